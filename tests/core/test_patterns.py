"""Regular expressions compiled on first use (`sitemapkit.protocol.patterns`).

Importing the core must compile none of its own patterns: on a small site that
compiling cost more than the pages did. Every pattern still has to be a valid
one, so each is compiled here.
"""

from __future__ import annotations

import importlib
import importlib.util
import pkgutil
import re
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import sitemapkit
from sitemapkit.protocol import patterns
from sitemapkit.protocol.errors import SitemapkitError
from sitemapkit.protocol.patterns import any_byte_but, compile_all, deferred, word_trie


def _core_modules() -> list[str]:
    names = []
    for module in pkgutil.walk_packages(sitemapkit.__path__, "sitemapkit."):
        # The adapters import their generators; the core's modules import none.
        if not module.name.startswith("sitemapkit.plugins"):
            names.append(module.name)
    return names


def test_every_deferred_pattern_compiles():
    for name in _core_modules():
        try:
            importlib.import_module(name)
        except SitemapkitError:
            # A module of an extra this environment lacks (PyYAML's readers): it
            # must then hold no pattern of its own, or this test would miss it.
            source = importlib.util.find_spec(name).origin
            assert "deferred(" not in Path(source).read_text(encoding="utf-8"), name
    # The tokenizer's, the URL rules', the dates', the configurations' readers...
    assert compile_all() > 50


def test_a_deferred_pattern_behaves_as_the_compiled_one():
    source = r"(?P<scheme>[a-z]+)://(?P<host>[^/]+)"
    pattern = deferred(source, re.IGNORECASE)
    compiled = re.compile(source, re.IGNORECASE)
    assert pattern.pattern == source
    text = "see HTTPS://Example.org/a and ftp://b.example/"
    assert pattern.search(text).groupdict() == compiled.search(text).groupdict()
    assert pattern.groups == 2
    assert pattern.groupindex == compiled.groupindex
    assert pattern.flags == compiled.flags
    assert [m.span() for m in pattern.finditer(text)] == [m.span() for m in compiled.finditer(text)]
    assert pattern.sub("<url>", text) == compiled.sub("<url>", text)
    assert pattern.split(text) == compiled.split(text)
    assert pattern.fullmatch("a://b") and not pattern.match(" a://b")
    assert deferred(rb"\d+").findall(b"1 22 333") == [b"1", b"22", b"333"]


def test_a_wrong_pattern_fails_when_compiled():
    pattern = deferred(r"(unclosed")
    try:
        with pytest.raises(re.error):
            compile_all()
        with pytest.raises(re.error):
            pattern.search("unclosed")
    finally:
        patterns._MADE.remove(pattern)


# Counts the patterns compiled from sitemapkit's own files while the entry points
# are imported (what every MkDocs, Pelican, Sphinx and command-line run imports).
_COUNT_COMPILES = """
import importlib.util, re, sys
# The package's folder, found without importing it.
package = importlib.util.find_spec("sitemapkit").submodule_search_locations[0]
compiled = []
original = re._compile
def counting(pattern, flags):
    frame = sys._getframe(1)
    while frame is not None and frame.f_code.co_filename == re.__file__:
        frame = frame.f_back
    if frame is not None and frame.f_code.co_filename.startswith(package):
        compiled.append(f"{frame.f_code.co_filename}:{frame.f_lineno}")
    return original(pattern, flags)
re._compile = counting
import sitemapkit, sitemapkit.engine.pages, sitemapkit.commands.cli, sitemapkit.engine.folderbuild
print("\\n".join(compiled))
"""


def test_importing_the_core_compiles_no_pattern(tmp_path: Path) -> None:
    # Run outside the repository, so that the installed package is the one imported.
    run = subprocess.run([sys.executable, "-c", _COUNT_COMPILES], capture_output=True, text=True, cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == "", f"compiled while importing:\n{run.stdout}"


@pytest.mark.parametrize("excluded", [b'">', b"'>", b"<>", b"\x00", b"\xff", b"\x00\xff", b"-]\\^", b"", b"aA"])
def test_any_byte_but_matches_every_byte_but_those_excluded(excluded: bytes) -> None:
    # The ranges stand in for "[^...]": any byte left out or let in would change
    # what the tokenizer's patterns read.
    any_other = re.compile(any_byte_but(excluded))
    assert [byte for byte in range(256) if not any_other.fullmatch(bytes([byte]))] == sorted(set(excluded))
    # Written as ranges, so that re compiles one bitmap lookup (not a comparison with each byte).
    assert b"^" not in any_byte_but(excluded)[:2]


@settings(max_examples=200, deadline=None)
@given(
    st.sets(st.binary(min_size=0, max_size=4).map(lambda word: bytes(b"ab-"[byte % 3] for byte in word)), min_size=1),
    st.binary(max_size=40).map(lambda text: bytes(b"ab- "[byte % 4] for byte in text)),
)
def test_a_word_trie_matches_where_the_alternation_of_its_words_does(words: set[bytes], text: bytes) -> None:
    # Each word's tail says where it ends (not before another a, b or -), so at
    # most one word matches at a position and the order of the words is free.
    tail = rb"(?![ab\-])"
    flat = re.compile(b"|".join(re.escape(word) + tail for word in sorted(words, key=len, reverse=True)))
    trie = re.compile(word_trie(dict.fromkeys(words, tail)))
    for position in range(len(text) + 1):
        flat_match, trie_match = flat.match(text, position), trie.match(text, position)
        assert (flat_match and flat_match.span()) == (trie_match and trie_match.span())
