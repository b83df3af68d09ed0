# The page scans in C (_pagescan.c): their interface, for type checkers.
def configure(
    kinds: tuple[str, ...],
    plain: dict[bytes, int],
    maybe: dict[bytes, int],
    raw: tuple[bytes, ...],
    words: tuple[bytes, ...],
    template: bytes,
    end_template: int,
    inner: int,
    inner_end: int,
    attributes: tuple[bytes, ...],
    with_values: tuple[int, ...],
    /,
) -> None: ...
def next_stop(
    data: bytes, position: int, innermost: bytes | None, /
) -> tuple[str | None, int, int, tuple[bytes | None, ...] | None]: ...
def present(data: bytes, words: tuple[bytes, ...], /) -> list[bytes]: ...
