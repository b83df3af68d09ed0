"""Regular expressions compiled when first used.

Python compiles a regular expression in Python code, and the core's grammars
(the HTML tokenizer's, the URL and date rules) are long: compiling all of them
when a module is imported cost a build more than its pages did on a small site.
Most runs use a few of them (a plain head never needs the full tokenizer), so a
module-level pattern is written ``deferred(source)``: the same object to its
users, compiled on the first call of any of its methods.
"""

from __future__ import annotations

import re
from typing import Any, AnyStr, cast

# The methods a compiled pattern is used through: found on the object itself once
# compiled, as quickly as on the pattern.
_METHODS = ("match", "fullmatch", "search", "finditer", "findall", "sub", "subn", "split", "scanner")
# Every deferred pattern made, for compile_all.
_MADE: list[_Deferred] = []


class _Deferred:
    """A pattern's source and flags until one of its methods is first called."""

    def __init__(self, source: str | bytes, flags: int) -> None:
        self.pattern = source
        self._flags = flags

    def __getattr__(self, name: str) -> Any:
        # Called only for names the object does not have yet: every method of the
        # pattern before it is compiled, and the pattern's other attributes.
        compiled = self.__dict__.get("_compiled")
        if compiled is None:
            compiled = re.compile(self.pattern, self._flags)
            self.__dict__["_compiled"] = compiled
            self.__dict__.update({method: getattr(compiled, method) for method in _METHODS})
        return getattr(compiled, name)

    def __repr__(self) -> str:
        return f"deferred({self.pattern!r}, {self._flags})"


def deferred(source: AnyStr, flags: int = 0) -> re.Pattern[AnyStr]:
    """``re.compile(source, flags)``, done when a method of the result is first
    called (a wrong pattern raises then, so each is compiled by the tests)."""
    pattern = _Deferred(source, flags)
    _MADE.append(pattern)
    return cast("re.Pattern[AnyStr]", pattern)


def compile_all() -> int:
    """Compile every deferred pattern of the modules imported so far (the tests
    do, so that a wrong one fails there); how many there are."""
    for pattern in _MADE:
        pattern.groups  # noqa: B018 (an attribute only the compiled pattern has)
    return len(_MADE)


def any_byte_but(excluded: bytes) -> bytes:
    """A bytes pattern's class of every byte not in ``excluded``, written as the
    ranges between them, for a class that runs over long stretches (attribute
    values, a body's text). ``re`` compiles a negated class of two or three bytes
    (``[^">]``) to a comparison with each of them for every byte, but a class of
    three ranges or more to one bitmap lookup: about twice as fast."""
    ranges, low = [], 0
    for byte in sorted(set(excluded)):
        if byte > low:
            ranges.append(re.escape(bytes([low])) + (b"-" + re.escape(bytes([byte - 1])) if byte - 1 > low else b""))
        low = byte + 1
    if low <= 0xFF:
        ranges.append(re.escape(bytes([low])) + (b"-" + re.escape(b"\xff") if low < 0xFF else b""))
    return b"[" + b"".join(ranges) + b"]"


def word_trie(alternatives: dict[bytes, bytes]) -> bytes:
    """A bytes pattern matching any ``word`` followed by its ``tail`` (a pattern)
    of ``alternatives``, written as a trie of the words: ``re`` tries the branches
    of an alternation one after another at each position, a trie only those that
    share the bytes read so far. The words' order is lost, so no two may match
    at the same position (as when each tail says where a word ends)."""
    by_first: dict[bytes, dict[bytes, bytes]] = {}
    branches = []
    for word, tail in sorted(alternatives.items()):
        if word:
            by_first.setdefault(word[:1], {})[word[1:]] = tail
        else:
            branches.append(tail)
    for first, rests in by_first.items():
        if len(rests) == 1:
            ((rest, tail),) = rests.items()
            branches.append(re.escape(first + rest) + tail)
        else:
            branches.append(re.escape(first) + word_trie(rests))
    return b"(?:" + b"|".join(branches) + b")"
