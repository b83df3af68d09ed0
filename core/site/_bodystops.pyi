# The compiled body reader's stops (_bodystops.c): its interface, for type checkers.
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
    /,
) -> None: ...
def next_stop(data: bytes, position: int, innermost: bytes | None, /) -> tuple[str | None, int, int]: ...
