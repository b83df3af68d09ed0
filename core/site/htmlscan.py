"""A page's markup read as a browser reads it: the HTML standard's tokenizer, and
of its tree builder the rules that say where the head ends.

A browser does not look for ``</head>`` in the bytes. Its tokenizer reads the page
left to right in states (HTML standard, section 13.2.5): in a comment, in the
text of a ``<script>`` (with its ``<!--`` escapes), of a ``<style>``,
``<noframes>`` or, scripting on, ``<noscript>`` (raw text), of a ``<title>`` or
``<textarea>`` (RCDATA), inside a tag's quoted attribute value, a ``</head>`` or
``<body`` is text. Its tree builder (13.2.6.4.4 "in head", 13.2.6.4.6 "after
head") then ends the head at the first thing that belongs in a body: text that is
not whitespace, a start tag of an element a head may not hold (``<body>``,
``<div>``, ``<img>``...), or ``</body>``, ``</html>``, ``</br>``. ``</head>``
itself does not end it: a ``<meta>`` or ``<link>`` after it, before any body
content, is still put in the head. What a ``<template>`` holds is a fragment of
its own, never part of the head, and nothing in it ends the head.

The tokenizer here is not tied to the head: :func:`next_token` and
:func:`skip_text` read any markup, and :class:`HeadReader` applies the head's
rules on top of them, so a reader of the body can carry on where it stops.

Most heads hold only whitespace, comments, ``<meta>``, ``<link>``, ``<title>``,
``<style>`` and ``<script>`` until ``</head>``: :data:`_PLAIN_RUN` reads such a
run in one regular-expression match; the tokens around it (``</head>``,
``<template>``, a script with ``<!--`` in it, the body's first tag) are read one
at a time. Every pattern reads each byte a bounded number of times (atomic groups
where a pattern repeats), so a hostile head costs time linear in its size.
"""

from __future__ import annotations

import itertools
import re
import sys
from collections.abc import Callable

from ..protocol.patterns import any_byte_but, deferred, word_trie

_WHITESPACE = rb"\t\n\f\r "
# What ends a tag name (HTML standard, "tag name state"): whitespace, "/" or ">".
_NAME_END = rb"(?=[\t\n\f\r />])"

_group_numbers = itertools.count()


def _atomic(pattern: bytes) -> bytes:
    """``pattern`` matched as an atomic group: the first way it matches is kept and
    never backtracked into, so a construct left open costs one pass, not
    exponential retries. Python 3.11 has atomic groups; 3.10 has the same match
    as "(?=(?P<x>...))(?P=x)", slower."""
    if sys.version_info >= (3, 11):
        return rb"(?>" + pattern + rb")"
    name = b"atomic%d" % next(_group_numbers)
    return rb"(?=(?P<" + name + rb">" + pattern + rb"))(?P=" + name + rb")"


def _possessive(pattern: bytes) -> bytes:
    """``pattern``, whose ``*+``, ``++`` and ``?+`` are possessive (never given
    back), as Python 3.11 reads them; on 3.10, which has no possessive
    quantifiers, the greedy ones: the patterns written so match the same either
    way (what follows a possessive run cannot match what it took), only faster."""
    if sys.version_info >= (3, 11):
        return pattern
    # No pattern is compiled while the module is imported; none of those written
    # so has an escaped "*", "+" or "?" before a "+".
    return pattern.replace(b"*+", b"*").replace(b"++", b"+").replace(b"?+", b"?")


# A tag's attributes up to its closing ">" (the tokenizer's attribute states):
# quotes delimit a value only right after "=", an unquoted value ends at
# whitespace or ">", a "<" or a quote elsewhere is part of a name. A quoted value
# left open runs to the end of the data, as it does in a browser.
_ATTRIBUTE_NAME = rb"[^\t\n\f\r />][^\t\n\f\r />=]*"


def _attribute_value(capture: bool = False) -> bytes:
    """ "=" and an attribute's value, double-quoted, single-quoted or unquoted;
    ``capture``: each form's text a group of its own."""
    text = rb"(" if capture else rb"(?:"
    return (
        rb"[\t\n\f\r ]*=[\t\n\f\r ]*(?:\""
        + text
        + rb"[^\"]*)\"?|'"
        + text
        + rb"[^']*)'?|"
        + text
        + rb"[^\t\n\f\r >]*))"
    )


def _attributes(guard: bytes = b"") -> bytes:
    """The attributes, each name where ``guard`` (a lookahead) holds."""
    return _atomic(rb"(?:[\t\n\f\r /]+|" + guard + _ATTRIBUTE_NAME + rb"(?:" + _attribute_value() + rb")?)*")


# A comment: "<!-->" and "<!--->" are whole comments; else it ends at the first
# "-->" or "--!>" (the comment end states).
def _comment_rest() -> bytes:
    """What follows a comment's "<!--" up to its end (a fresh atomic group each call)."""
    return rb"(?:-?>|" + _atomic(rb"(?:[^-]+|-(?!-!?>))*") + rb"--!?>)"


_COMMENT = rb"<!--" + _comment_rest()
_OPEN_COMMENT = rb"<!--(?:-?>|" + _atomic(rb"(?:[^-]+|-(?!-!?>))*") + rb"(?:--!?>)?)"
# "<!DOCTYPE ...>", "<?xml ...?>", "<![CDATA[" outside SVG and MathML, and "</"
# not followed by a letter are read up to the first ">" (a bogus comment).
_BOGUS = rb"<(?:!(?!--)|\?|/(?![A-Za-z]))[^>]*>"
_OPEN_BOGUS = rb"<(?:!|\?|/(?![A-Za-z]))[^>]*>?"


def _ci(word: str) -> bytes:
    return rb"(?i:" + word.encode() + rb")"


def _raw_text(name: str) -> bytes:
    # Raw text and RCDATA end at the first "</name" followed by whitespace, "/" or ">".
    return _atomic(rb"(?:[^<]+|<(?!/" + _ci(name) + rb"[\t\n\f\r />]))*")


# Start tags of void elements a head holds, and the elements with text a plain
# head holds besides its scripts.
_HEAD_VOID_NAMES = ("meta", "link", "base", "basefont", "bgsound")
_HEAD_VOID = _ci("|".join(_HEAD_VOID_NAMES))
_HEAD_TEXT_ELEMENTS = ("title", "style", "noframes")


def _plain_tokens(attributes: Callable[[], bytes], named: bool = True) -> tuple[bytes, ...]:
    """What a plain head holds, each token whole, its tags' attributes read by
    ``attributes``: whitespace, the void head elements, comments, bogus comments,
    <html> and <head>, end tags that are ignored there, <title>, <style>,
    <noframes>, and <script>s without "<!--" in their text. A run of them read as
    far as it goes ends at the end of the data or at a token it does not hold
    (read by next_token)."""

    def group(name: bytes) -> bytes:
        # A run needs no groups: its tokens are picked apart one at a time after.
        return rb"(?P<" + name + rb">" if named else rb"(?:"

    def element_with_text(name: str, text: bytes) -> bytes:
        start = rb"<" + _ci(name) + _NAME_END + attributes() + rb">"
        return start + text + rb"</" + _ci(name) + _NAME_END + attributes() + rb">"

    return (
        rb"[\t\n\f\r ]+",
        group(b"kept") + rb"<" + _HEAD_VOID + _NAME_END + attributes() + rb">)",
        _COMMENT,
        _BOGUS,
        rb"<" + _ci("html|head") + _NAME_END + attributes() + rb">",
        rb"</(?!" + _ci("head|body|html|br|template") + _NAME_END + rb")[A-Za-z][^\t\n\f\r />]*" + attributes() + rb">",
        *(element_with_text(name, _raw_text(name)) for name in _HEAD_TEXT_ELEMENTS),
        group(b"script")
        + rb"<"
        + _ci("script")
        + _NAME_END
        + attributes()
        + rb">)"
        + group(b"script_text")
        + _atomic(rb"(?:[^<]+|<(?!!--|/" + _ci("script") + rb"[\t\n\f\r />]))*")
        + rb")</"
        + _ci("script")
        + _NAME_END
        + attributes()
        + rb">",
    )


def _grammar(attributes: Callable[[], bytes]) -> tuple[re.Pattern[bytes], re.Pattern[bytes]]:
    """A run of plain tokens, and one plain token (to pick the tags out of a run)."""
    # Without capturing groups a run reads a tenth faster: no marks are saved at
    # each token.
    run = rb"(?:" + rb"|".join(_plain_tokens(attributes, named=False)) + rb")*"
    return deferred(run, re.DOTALL), deferred(rb"|".join(_plain_tokens(attributes)), re.DOTALL)


_PLAIN_RUN, _PLAIN_TOKEN = _grammar(_attributes)
# Where no quoted attribute value holds a ">", every tag ends at its first ">":
# the same tokens, read several times faster.
_SIMPLE_RUN, _SIMPLE_TOKEN = _grammar(lambda: rb"[^>]*")
# A quoted attribute value holding a ">", or left open (HTML standard: a value is
# quoted when its quote follows "="). Searched for in text and raw text too, where
# it does no harm but costs the simple reading.
_QUOTED_GREATER_THAN = deferred(
    _possessive(rb"=[\t\n\f\r ]*+(?:\"" + any_byte_but(b'">') + b"*+|'" + any_byte_but(b"'>") + rb"*+)(?:>|\Z)")
)
# A <meta> or <link> tag in a head's <noscript> text ("in head noscript", scripting off).
_NOSCRIPT_HEAD_TAG = deferred(rb"<" + _ci("meta|link") + _NAME_END + _attributes() + rb">", re.DOTALL)
# "</head>", whitespace, then the body's start tag: how most heads end.
_BODY_AFTER_HEAD = deferred(rb"(?:</(?i:head)>)?[\t\n\f\r ]*<(?i:body)(?=[\t\n\f\r />])")
# What looks like a head's end in the bytes: where the data holds none past what
# the simple run read, more of the page decides where the head ends.
_HEAD_END_IN_BYTES = deferred(rb"</(?i:head)[\t\n\f\r />]|<(?i:body)[\t\n\f\r />]")

# Any one token, each kind its own group. A construct left open (a tag, a
# comment, a bogus comment) runs to the end of the data, as at the end of a file.
_TOKEN = deferred(
    rb"(?P<whitespace>[\t\n\f\r ]+)"
    rb"|(?P<comment>" + _OPEN_COMMENT + rb")"
    rb"|(?P<bogus>" + _OPEN_BOGUS + rb")"
    rb"|(?P<end></(?P<end_name>[A-Za-z][^\t\n\f\r />]*)" + _attributes() + rb">?)"
    rb"|(?P<start><(?P<name>[A-Za-z][^\t\n\f\r />]*)" + _attributes() + rb"(?P<closed>>)?)"
    # Text: a "<" that opens none of the above is text too.
    rb"|(?P<text>[^<]+|<)",
    re.DOTALL,
)

#: Elements whose text the tokenizer reads as raw text or RCDATA, up to their end
#: tag (scripting on: <noscript> too, as the browsers crawlers render with).
RAW_TEXT_ELEMENTS = frozenset(
    {"script", "style", "noscript", "noframes", "xmp", "iframe", "noembed", "title", "textarea"}
)
# The start tags a head holds ("in head"); any other start tag is body content.
# After </head>, <noscript> is body content too ("after head").
_IN_HEAD = frozenset(
    {
        "base",
        "basefont",
        "bgsound",
        "link",
        "meta",
        "title",
        "noscript",
        "noframes",
        "style",
        "script",
        "template",
        "html",
        "head",
    }
)
# End tags that end the head ("anything else" in "in head" and "after head").
_HEAD_ENDING_END_TAGS = frozenset({"body", "html", "br"})

_RAW_TEXT_ENDS: dict[str, re.Pattern[bytes]] = {
    name: deferred(rb"</" + _ci(name) + rb"[\t\n\f\r />]") for name in RAW_TEXT_ELEMENTS
}
_END_TAG_REST = deferred(_attributes() + rb">")
# The script data states: "<!--" escapes the text, in which "<script" starts a
# double escape, in which "</script" does not end the script (it returns to the
# escape); "-->" ends either (HTML standard, "script data escaped state").
_SCRIPT_DATA = deferred(rb"<!--|</" + _ci("script") + rb"[\t\n\f\r />]")
_SCRIPT_ESCAPED = deferred(rb"-->|</" + _ci("script") + rb"[\t\n\f\r />]|<" + _ci("script") + rb"[\t\n\f\r />]")
_SCRIPT_DOUBLE_ESCAPED = deferred(rb"-->|</" + _ci("script") + rb"[\t\n\f\r />]")


class NeedMore(Exception):
    """The data ends inside a token: more of the page decides what it is."""


def next_token(data: bytes, position: int, final: bool) -> re.Match[bytes]:
    """The token at ``position`` (``data`` must not end there). Raises
    :class:`NeedMore` when it runs to the end of ``data`` and ``final`` is false."""
    token = _TOKEN.match(data, position)
    assert token is not None  # the text alternative matches any byte
    if token.end() == len(data) and not final:
        raise NeedMore
    return token


def skip_text(data: bytes, name: str, position: int, final: bool) -> tuple[int, int]:
    """Where the text of the raw-text or RCDATA element ``name``, starting at
    ``position``, ends, and where its end tag ends: ``(len(data), len(data))``
    when ``final`` and it is never closed (it runs to the end of the file)."""
    if name == "script":
        end = _script_text_end(data, position)
    else:
        found = _RAW_TEXT_ENDS[name].search(data, position)
        end = found.start() if found else -1
    if end >= 0:
        closed = _END_TAG_REST.match(data, end + 2 + len(name))
        if closed is not None:
            return end, closed.end()
    if not final:
        raise NeedMore
    return len(data), len(data)


def _script_text_end(data: bytes, position: int) -> int:
    """Where the ``</script`` that ends a script's text starts, or -1."""
    state = _SCRIPT_DATA
    while True:
        found = state.search(data, position)
        if found is None:
            return -1
        text = found.group()
        if text.startswith(b"</"):
            if state is not _SCRIPT_DOUBLE_ESCAPED:
                return found.start()
            # "</script" ends the double escape; the text stays escaped.
            state, position = _SCRIPT_ESCAPED, found.end() - 1
        elif text == b"<!--":
            # The escape's "--" may already be the start of its closing "-->".
            state, position = _SCRIPT_ESCAPED, found.start() + 2
        elif text == b"-->":
            state, position = _SCRIPT_DATA, found.end()
        else:  # "<script" inside the escape
            state, position = _SCRIPT_DOUBLE_ESCAPED, found.end() - 1


class HeadReader:
    """Reads a page's head, as a browser builds it, from data that may come in
    pieces: call :meth:`read` with all the data so far (each call with more of
    it) until it returns True.

    Then :attr:`end` is where the head's content ends (the first body content,
    or the end of the data), and :meth:`tags` and :meth:`scripts` give the
    ``<meta>``, ``<link>`` and ``<base>`` tags and the ``<script>`` elements the
    head holds, in order; none from inside comments, raw text, RCDATA or a
    ``<template>``.
    """

    def __init__(self) -> None:
        self.end: int | None = None
        self._position = 0
        self._after_head = False
        self._templates = 0
        self._data = b""
        # Stretches of the data read as one plain run, outside templates, and the
        # tags and scripts read one token at a time: their start, and the bytes.
        self._runs: list[tuple[int, int, re.Pattern[bytes]]] = []
        # Whether the simple grammar has read the data (see _SIMPLE_RUN): once the
        # data holds what looks like the end of the head.
        self._simple_done = False
        # Where the simple grammar got to in data that ended before the head did.
        self._simple_reached = 0
        self._tags: list[tuple[int, bytes]] = []
        self._scripts: list[tuple[int, bytes, bytes]] = []
        #: Tokens read one at a time (the rest are read in runs): a measure of the work.
        self.steps = 0

    def read(self, data: bytes, final: bool) -> bool:
        """Read on in ``data`` (the page from its start); True when the head has
        ended, or when ``final`` (``data`` ends where the file or the read limit
        does)."""
        self._data = data
        if self._position == 0 and data.startswith(b"\xef\xbb\xbf"):
            self._position = 3  # a UTF-8 byte order mark is no text of the page
        try:
            self._read(data, final)
        except NeedMore:
            return False
        return True

    def _read(self, data: bytes, final: bool) -> None:
        size = len(data)
        if not self._simple_done:
            # The simple grammar first, as far as it reads (on from where it got
            # to in the data before); it stands where no quoted value in what it
            # read holds a ">", else the full grammar reads it all again.
            reached = _SIMPLE_RUN.match(data, self._simple_reached or self._position)
            assert reached is not None  # a run of no tokens is a run too
            if not final and _HEAD_END_IN_BYTES.search(data, reached.end()) is None:
                # The tokens read so far stay whole in more data.
                self._simple_reached = reached.end()
                raise NeedMore
            self._simple_done = True
            until = reached.end()
            if until > self._position and not _QUOTED_GREATER_THAN.search(data, 0, until):
                self._runs.append((self._position, until, _SIMPLE_TOKEN))
                self._position = until
            body = _BODY_AFTER_HEAD.match(data, self._position)
            if body is not None:
                # The common end, "</head>" then "<body", read at once.
                self.end = body.end() - len(b"<body")
                return
        while True:
            self._run(data, _PLAIN_RUN, _PLAIN_TOKEN, size)
            run_end = self._position
            if run_end == size:
                if not final:
                    raise NeedMore
                self.end = size
                return
            token = next_token(data, run_end, final)
            self.steps += 1
            if self._templates:
                self._in_template(data, token, final)
            elif self._ends_head(data, token, final):
                self.end = token.start()
                return

    def _run(self, data: bytes, run: re.Pattern[bytes], token: re.Pattern[bytes], until: int) -> None:
        found = run.match(data, self._position, until)
        assert found is not None  # a run of no tokens is a run too
        if found.end() > self._position:
            if self._templates == 0:
                self._runs.append((self._position, found.end(), token))
            self._position = found.end()

    def _ends_head(self, data: bytes, token: re.Match[bytes], final: bool) -> bool:
        """Whether ``token`` is the first of the body; else reads past it."""
        kind = token.lastgroup
        after = token.end()
        if kind == "start":
            name = token.group("name").lower().decode("latin-1")
            if name not in _IN_HEAD or (name == "noscript" and self._after_head):
                return True
            if name == "template":
                self._templates = 1
            elif name in RAW_TEXT_ELEMENTS:
                text_end, after = skip_text(data, name, after, final)
                if name == "script":
                    self._scripts.append((token.start(), token.group(), data[token.end() : text_end]))
                elif name == "noscript":
                    # Read with scripting off too (what a crawler that runs no
                    # script sees): its <meta> and <link> tags are the head's.
                    # mike's redirect stubs hold their meta refresh there.
                    for tag in _NOSCRIPT_HEAD_TAG.finditer(data, token.end(), text_end):
                        self._tags.append((tag.start(), tag.group()))
            elif name in ("meta", "link", "base") and token.group("closed"):
                self._tags.append((token.start(), token.group()))
        elif kind == "end":
            name = token.group("end_name").lower().decode("latin-1")
            if name in _HEAD_ENDING_END_TAGS:
                return True
            if name == "head":
                self._after_head = True
        elif kind == "text":
            return True
        # Whitespace, comments and ignored end tags hold nothing for the head.
        self._position = after
        return False

    def _in_template(self, data: bytes, token: re.Match[bytes], final: bool) -> None:
        """Reads past ``token``, inside a <template>: only the tokenizer's states
        and other templates count; nothing in it is the head's, nothing in it
        ends the head."""
        kind = token.lastgroup
        after = token.end()
        if kind == "start":
            name = token.group("name").lower().decode("latin-1")
            if name == "template":
                self._templates += 1
            elif name == "plaintext":
                # Everything after it is text, to the end of the file.
                if not final:
                    raise NeedMore
                after = len(data)
            elif name in RAW_TEXT_ELEMENTS:
                after = skip_text(data, name, after, final)[1]
        elif kind == "end" and token.group("end_name").lower() == b"template":
            # </template> closes the innermost template, whatever is open in it.
            self._templates -= 1
        self._position = after

    def _collect(self) -> None:
        """The tags and scripts of the runs, picked out of them once."""
        # A run is whole tokens, so the tokens found one after another in it are
        # the ones the run matched.
        for start, end, grammar in self._runs:
            for token in grammar.finditer(self._data, start, end):
                if token.lastgroup == "kept":
                    self._tags.append((token.start(), token.group()))
                elif token.group("script"):
                    self._scripts.append((token.start(), token.group("script"), token.group("script_text")))
        self._runs = []
        self._tags.sort()
        self._scripts.sort()

    def tags(self) -> list[bytes]:
        """The head's ``<meta>``, ``<link>`` and ``<base>`` start tags, in order."""
        self._collect()
        return [tag for _, tag in self._tags]

    def scripts(self) -> list[tuple[bytes, bytes]]:
        """The head's ``<script>`` elements, in order: (start tag, text)."""
        self._collect()
        return [(tag, text) for _, tag, text in self._scripts]


# ---- the body: the images a page shows ------------------------------------------

#: Elements that hold a page's content rather than its chrome (header, navigation,
#: sidebars, footer), by the real themes: ``<main>`` and ``<article>`` (MkDocs'
#: default theme puts role="main" on a div; furo and Pelican's notmyidea use
#: <article>), any of these with ``role="main"`` (alabaster, the Read the Docs
#: theme), Material's ``div.md-content``, Sphinx themes' ``div.body`` and
#: notmyidea's ``section#content``.
CONTENT_ELEMENTS = frozenset({"main", "article"})
CONTENT_CLASSES = frozenset({"md-content", "body"})
CONTENT_IDS = frozenset({"content"})
# A tag that marks a content element holds one of these (its role, class or id
# value), in any case: most <div>s hold none, and their attributes are not read.
_CONTENT_WORDS = tuple(sorted(word.encode() for word in {*CONTENT_CLASSES, *CONTENT_IDS, "main"}))
# Start tags a body reader stops at; the rest are read in runs. "div" and
# "section" may hold the content; raw-text elements and <template> are skipped.
# <div> and <section> only may hold the content: the quick reading passes over
# their tags unless one may mark a content element or the innermost one open is
# of their kind (see _quick_stops).
_MAYBE_CONTENT_TAGS = b"div|section"
#: The elements an image is taken from: <img>, SVG's <image>, <source> (in a <picture>).
IMAGE_ELEMENTS = (b"img", b"image", b"source")
# The attributes an image tag's reference is taken from (see _image_reference),
# in the order _image_reference unpacks them.
_IMAGE_ATTRIBUTES = (b"src", b"srcset", b"href", b"xlink:href")
# The kinds of the stops the body reader acts on (their group names in the quick
# reading's search), and the element names they stand for.
_IMAGE_KINDS = {name.decode(): name for name in IMAGE_ELEMENTS}
_CONTENT_KINDS = {"main": b"main", "article": b"article"}
_CONTENT_END_KINDS = {"end_main": b"main", "end_article": b"article"}
_RAW_KINDS = {"raw_" + name: name for name in RAW_TEXT_ELEMENTS}
_MAYBE_KINDS = {"maybe_" + name.decode(): name for name in _MAYBE_CONTENT_TAGS.split(b"|")}
_MAYBE_NAMES = frozenset(_MAYBE_KINDS.values())
# The raw-text elements a body holds most, passed over whole inside the quick
# reading's search where their text ends before the boundary; the others, rare in
# a body, stop it and are passed by skip_text. The whole forms are what compiling
# the search costs, once a build for each form of it: the seven others took 2.5 ms
# of its 4.1.
_PASSED_WHOLE = ("script", "style")
# Stops passed over whole: a comment, a <script>, a <style>.
_PASSED_KINDS = frozenset({"comment", *("whole_" + name for name in _PASSED_WHOLE)})
# The kinds of the start tags the body reader acts on, as the tokenizer reads them.
_START_KINDS = {
    **{name: kind for kind, name in _IMAGE_KINDS.items()},
    **{name.encode(): kind for kind, name in _RAW_KINDS.items()},
    **{name: kind for kind, name in _CONTENT_KINDS.items()},
    **{name: kind for kind, name in _MAYBE_KINDS.items()},
    b"plaintext": "plaintext",
    b"template": "template",
}
# The same stops for the tokenizer's run (past a quoted ">"): every start tag a
# kind names, and the end tags of the content elements, <template>, <div> and <section>.
_BODY_TAGS = b"|".join(sorted(_START_KINDS))
_BODY_END_TAGS = b"|".join(sorted({*_CONTENT_KINDS.values(), b"template", *_MAYBE_NAMES}))
# A run of tokens the body reader passes over whole: text, comments, bogus
# comments, start tags of other elements and end tags of other elements, each
# tag read to its ">" by the tokenizer's attribute states (a ">" in a quoted value
# does not end it). Linear: every alternative starts at a distinct byte and the
# attributes are atomic.
_BODY_RUN = deferred(
    rb"(?:[^<]+"
    rb"|"
    + _COMMENT
    + rb"|"
    + _BOGUS
    + rb"|<(?!(?i:"
    + _BODY_TAGS
    + rb")"
    + _NAME_END
    + rb")[A-Za-z][^\t\n\f\r />]*"
    + _attributes()
    + rb">"
    rb"|</(?!(?i:" + _BODY_END_TAGS + rb")" + _NAME_END + rb")[A-Za-z][^\t\n\f\r />]*" + _attributes() + rb">"
    rb")*",
    re.DOTALL,
)


# Where no quoted attribute value holds a ">" (see _QUOTED_GREATER_THAN), every
# tag ends at its first ">", and the body reader searches the lower-cased bytes
# for the next construct it acts on: one search a stop, each stop's kind the name
# of the empty group ending it (``lastgroup``). A search tries each ">" in turn:
# from it, text (a "<" that opens nothing is text) and then a stop. A ">" ends a
# token or stands in text, so the text after it is read as the tokenizer reads it,
# and no stop inside a tag is found: the tag's own "<" comes between. Comments,
# raw text and RCDATA are stops, passed over whole where they end before the
# boundary (a script whose text holds "<!--" is left to skip_text).
# A tag's rest in the simple reading: to its first ">", or to the boundary when it
# is left open there (the stop is then handed to the tokenizer).
_QUICK_TAG_REST = _NAME_END + rb"[^>]*+>?"


def _simple_text(name: bytes) -> bytes:
    """The text of the raw-text or RCDATA element ``name`` (lower case) up to its
    end tag, in the simple reading: it ends at the first "</name"; a script's
    only while no "<!--" comes before it (the escape states: skip_text reads those)."""
    other = rb"<(?!/" + name + _NAME_END + (rb"|!--)" if name == b"script" else rb")")
    return rb"[^<]*+(?:" + other + rb"[^<]*+)*+"


def _quick_stops(innermost: bytes | None) -> re.Pattern[bytes]:
    """The stops while ``innermost`` is the innermost content element open: a
    search from a ">", and a match at a position in text.

    Its own kind's start and end tags always stop (``inner``, ``inner_end``: they
    nest in it or close it). Another <div> or <section> start tag stops
    (``maybe_div``, ``maybe_section``) only where its bytes up to the first ">"
    may hold a content word, or a "<" comes before that ">"; their end tags
    never stop. The names are a trie (word_trie): a "<" that opens none of them,
    most of a page's, costs a test or two."""
    own = innermost if innermost in (b"div", b"section") else None
    words = b"|".join(re.escape(word) for word in _CONTENT_WORDS)
    may_mark = _NAME_END + rb"(?=" + any_byte_but(b"<>") + rb"*(?:" + words + rb"|<))"
    stops = {b"!--": rb"(?:" + _comment_rest() + rb"(?P<comment>)|(?P<open_comment>))"}
    for kind, name in {**_IMAGE_KINDS, **_CONTENT_KINDS}.items():
        stops[name] = _QUICK_TAG_REST + rb"(?P<" + kind.encode() + rb">)"
    for kind, name in _CONTENT_END_KINDS.items():
        stops[b"/" + name] = _QUICK_TAG_REST + rb"(?P<" + kind.encode() + rb">)"
    stops[b"template"] = _QUICK_TAG_REST + rb"(?P<template>)"
    stops[b"/template"] = _QUICK_TAG_REST + rb"(?P<end_template>)"
    stops[b"plaintext"] = _NAME_END + rb"(?P<plaintext>)"
    for kind, raw_name in _RAW_KINDS.items():
        word = raw_name.encode()
        raw = rb">?(?P<" + kind.encode() + rb">)"
        if raw_name not in _PASSED_WHOLE:
            stops[word] = _NAME_END + rb"[^>]*+" + raw
            continue
        # The element whole where its text ends before the boundary.
        whole = rb">" + _simple_text(word) + rb"</" + word + _NAME_END + rb"[^>]*+>(?P<whole_" + word + rb">)"
        stops[word] = _NAME_END + rb"[^>]*+(?:" + whole + rb"|" + raw + rb")"
    for kind, name in _MAYBE_KINDS.items():
        if name == own:
            stops[name] = _QUICK_TAG_REST + rb"(?P<inner>)"
            stops[b"/" + name] = _QUICK_TAG_REST + rb"(?P<inner_end>)"
        else:
            stops[name] = may_mark + rb"[^>]*+>?(?P<" + kind.encode() + rb">)"
    return deferred(_possessive(rb"<" + word_trie(stops)))


def _head_pass() -> re.Pattern[bytes]:
    """A run over the lower-cased tokens a plain head is made of, in the simple
    reading (every tag ends at its first ">"), none of which the body reader
    acts on where nothing is open: whitespace, the doctype and bogus comments,
    comments, <html>, <head>, <body> and the void head elements, <title>,
    <style>, <noframes> and scripts without "<!--" in their text, and end tags
    other than </template>. A reader starting at a page's start passes over its
    head in one run instead of a stop at each of its scripts."""
    tag_rest = _NAME_END + rb"[^>]*+>"
    tokens = {name.encode(): tag_rest for name in ("html", "head", "body", *_HEAD_VOID_NAMES)}
    tokens[b"!"] = rb"(?:--" + _comment_rest() + rb"|(?!--)[^>]*+>)"
    tokens[b"?"] = rb"[^>]*+>"
    tokens[b"/"] = rb"(?!template" + _NAME_END + rb")[^>]*+>"
    for name in (*_HEAD_TEXT_ELEMENTS, "script"):
        word = name.encode()
        tokens[word] = tag_rest + _simple_text(word) + rb"</" + word + tag_rest
    return deferred(_possessive(rb"(?:[\t\n\f\r ]++|<" + word_trie(tokens) + rb")*+"))


_HEAD_PASS = _head_pass()
_QUICK_STOPS = {innermost: _quick_stops(innermost) for innermost in (None, b"div", b"section")}
_QUICK_STOPS.update({name: _QUICK_STOPS[None] for name in _CONTENT_KINDS.values()})
# What opens a tag, a bogus comment or a comment: the rest of "<" is text.
_OPENS = deferred(rb"<[A-Za-z!?/]")
# One attribute of a start tag: its name, and its value (double-quoted,
# single-quoted or unquoted), as the tokenizer reads them.
_ATTRIBUTE = deferred(rb"(" + _ATTRIBUTE_NAME + rb")(?:" + _attribute_value(capture=True) + rb")?")
# A start tag's attributes after its name up to its first "src" and that one's
# value (its form's group the last): an <img>'s reference where it has no srcset.
_FIRST_SRC = deferred(_attributes(guard=rb"(?!(?i:src)[\t\n\f\r /=>])") + rb"(?i:src)" + _attribute_value(capture=True))
_TAG_NAME = deferred(rb"</?[^\t\n\f\r />]*")
# The body reader's stops found by compiled code, where it was built (see
# core/site/_pagescan.c): the same stops as the tokenizer's reading, told the
# names and words here, and answering with one of _COMPILED_KINDS.
_COMPILED_KINDS = (
    *_IMAGE_KINDS,
    *_CONTENT_KINDS,
    *_MAYBE_KINDS,
    "template",
    "plaintext",
    "end_template",
    "inner",
    "inner_end",
)
try:
    from . import _pagescan
except ImportError:  # not built (no C compiler where it was installed): the patterns above read the body
    _pagescan = None  # type: ignore[assignment]
else:
    _pagescan.configure(
        _COMPILED_KINDS,
        {
            name: _COMPILED_KINDS.index(kind)
            for name, kind in _START_KINDS.items()
            if kind in _COMPILED_KINDS and kind not in _MAYBE_KINDS
        },
        {name: _COMPILED_KINDS.index(kind) for kind, name in _MAYBE_KINDS.items()},
        tuple(sorted(name.encode() for name in RAW_TEXT_ELEMENTS)),
        _CONTENT_WORDS,
        next(name for name, kind in _START_KINDS.items() if kind == "template"),
        _COMPILED_KINDS.index("end_template"),
        _COMPILED_KINDS.index("inner"),
        _COMPILED_KINDS.index("inner_end"),
        _IMAGE_ATTRIBUTES,
        tuple(_COMPILED_KINDS.index(kind) for kind in _IMAGE_KINDS),
    )
    _next_stop = _pagescan.next_stop
#: Whether this installation scans pages with compiled code (the body's stops, the words a page holds).
COMPILED_SCANS = _pagescan is not None


def words_present(data: bytes, words: tuple[bytes, ...]) -> list[bytes]:
    """Those of ``words`` that ``data`` holds in any case (ASCII, as
    ``bytes.lower``), in their order: each word's ``in`` of the lowered data, in
    one reading of ``data`` and without lowering it where the compiled scans are
    built (a page's searches for the words its checks look for ran through its
    lowered copy once a word)."""
    if _pagescan is not None:
        return _pagescan.present(data, words)
    lowered = data.lower()
    return [word for word in words if word.lower() in lowered]


#: The longest ``srcset`` read: a real one is a few hundred bytes; the rest of a
#: longer one is passed over (a hostile one costs no more than this).
SRCSET_READ_LIMIT = 16_384


def attributes_of(tag: bytes, name_end: int | None = None) -> dict[bytes, bytes]:
    """A start tag's attributes, names in lower case; the first of a repeated
    name counts (HTML standard, tokenizer). Values keep character references.
    ``name_end``: where the tag's name ends, when the caller knows."""
    found: dict[bytes, bytes] = {}
    if name_end is None:
        name_match = _TAG_NAME.match(tag)
        name_end = name_match.end() if name_match else 0
    position = name_end
    # findall gives b"" for the value forms that did not match: one of the three
    # did, or the attribute has no value, which is the empty value.
    for name, double_quoted, single_quoted, unquoted in _ATTRIBUTE.findall(tag, position):
        name = name.lower()
        if name not in found:
            found[name] = double_quoted or single_quoted or unquoted
    return found


def largest_candidate(srcset: str) -> str | None:
    """The URL of a ``srcset``'s largest candidate (HTML standard, "parse a srcset
    attribute": a URL, then descriptors up to a comma; the widest ``w``, else
    the densest ``x``; a candidate without a descriptor is ``1x``); None when it
    has none. Reads at most SRCSET_READ_LIMIT characters, each once."""
    text = srcset[:SRCSET_READ_LIMIT]
    best: tuple[float, float, int] | None = None
    best_url = None
    position, end, order = 0, len(text), 0
    while position < end:
        while position < end and (text[position] in "\t\n\f\r ,"):
            position += 1
        if position >= end:
            break
        start = position
        while position < end and text[position] not in "\t\n\f\r ":
            position += 1
        url = text[start:position]
        descriptor = ""
        if url.endswith(","):
            url = url.rstrip(",")
        else:
            comma = text.find(",", position)
            stop = end if comma < 0 else comma
            descriptor = text[position:stop].strip()
            position = stop + 1
        width, density = 0.0, 1.0
        for word in descriptor.split():
            try:
                if word.endswith("w"):
                    width = float(int(word[:-1]))
                elif word.endswith("x"):
                    density = float(word[:-1])
            except ValueError:
                pass
        order -= 1
        key = (width, density, order)  # the first of equal candidates wins
        if url and (best is None or key > best):
            best, best_url = key, url
    return best_url


class BodyImages:
    """The image references a page's body holds, read on from where its head
    ended (:attr:`HeadReader.end`), or from the page's start (an image in a
    head starts the body: the head holds none), in document order: ``<img src>`` (its
    ``srcset``'s largest candidate when it has one), ``<source srcset>`` (in a
    ``<picture>``), SVG ``<image href>`` (or ``xlink:href``). Nothing inside
    comments, raw text, RCDATA or a ``<template>`` counts.

    :attr:`content` holds those inside a content element (:data:`CONTENT_ELEMENTS`
    and the classes, ids and role that mark one), :attr:`elsewhere` the others,
    each a list of attribute values (bytes, character references kept). At most
    ``limit`` of each are kept; past that the reading stops.

    Between quoted attribute values holding a ">" (where the tokenizer reads
    each tag), the body is read quickly, one search a stop (see _quick_stops),
    a head's plain tokens in one run (see _head_pass); ``quick=False``
    reads it all with the tokenizer, the same images more slowly (for the tests).
    Where the compiled stops are built (:data:`COMPILED_SCANS`), they find each
    stop instead, with the tokenizer's rules throughout; ``compiled=False``
    reads quickly with the patterns all the same (for the tests).
    """

    def __init__(
        self,
        data: bytes,
        start: int,
        limit: int,
        quick: bool = True,
        compiled: bool = True,
    ) -> None:
        self.content: list[bytes] = []
        self.elsewhere: list[bytes] = []
        #: Whether the page has a content element at all.
        self.has_content = False
        #: Tags read one at a time (the rest are read in runs): a measure of the work.
        self.steps = 0
        self._read(data, start, limit, quick, compiled and quick and _pagescan is not None)

    def _read(self, data: bytes, position: int, limit: int, quick: bool, native: bool) -> None:
        size = len(data)
        if position >= size:
            return
        # Up to the next quoted value holding a ">", tags end at their first ">";
        # past it (its tag read by the tokenizer), the next is looked for.
        simple_until, quoted_end = (position, position) if quick else (0, size)
        # The patterns read the lowered data; the compiled stops read the data in
        # any case (so do the values they return).
        lowered = data.lower() if quick and not native else b""
        # The content elements open around the position: each one's name and how
        # many of its kind are open in it, innermost last. Content elements nest
        # (Material's <main> holds the navigation, with the logo, and .md-content
        # beside it): only the innermost hold the content, so each image is kept
        # with the element it is in, and those of an element that holds another
        # are dropped at the end.
        open_elements: list[list] = []  # [name, depth, number]
        holds_other: set[int] = set()
        content: list[tuple[int, bytes]] = []
        elsewhere = self.elsewhere
        number = 0
        templates = 0
        steps = 0
        # The compiled stops find each stop themselves, with the tokenizer's rules
        # throughout: no quoted ">" bounds them and no head run is needed.
        if quick and not native:
            quoted = _QUOTED_GREATER_THAN.search(data, position)
            simple_until, quoted_end = (quoted.start(), quoted.end()) if quoted else (size, size)
            position = _HEAD_PASS.match(lowered, position, simple_until).end()  # type: ignore[union-attr]
        try:
            values = None  # an image tag's values, where the compiled stops read them
            while position < size:
                kind = ""
                if native:
                    found, at, end, values = _next_stop(data, position, open_elements[-1][0] if open_elements else None)
                    if found is None:
                        return
                    kind = found
                else:
                    if position >= quoted_end:
                        quoted = _QUOTED_GREATER_THAN.search(data, position)
                        simple_until, quoted_end = (quoted.start(), quoted.end()) if quoted else (size, size)
                    if position < simple_until:
                        stop = _QUICK_STOPS[open_elements[-1][0] if open_elements else None].search(
                            lowered, position, simple_until
                        )
                        at = stop.start() if stop is not None else simple_until
                        # A stop is a token unless a construct opened after the last ">"
                        # before it, and is still open there: then it is inside that.
                        after = lowered.rfind(b">", position, at) + 1 or position
                        opened = _OPENS.search(lowered, after, at)
                        if opened is not None:
                            close = lowered.find(b">", at, simple_until)
                            if close >= 0:
                                position = close + 1
                                continue
                            position = opened.start()  # left open at the boundary: the tokenizer reads it
                        elif stop is None:
                            position = simple_until
                            continue  # the boundary: read on in full
                        else:
                            kind = stop.lastgroup or ""  # every stop ends in its kind's group
                            end = stop.end()
                            if lowered[end - 1] != 62 and kind != "plaintext":
                                kind, position = "", at  # left open at the boundary: the tokenizer reads it
                    else:
                        run = _BODY_RUN.match(data, position)
                        assert run is not None
                        position = run.end()
                        if position >= size:
                            return
                    if not kind:
                        token = next_token(data, position, True)
                        kind, at, end = _token_kind(token, open_elements[-1][0] if open_elements else None)
                steps += 1
                position = end
                if not kind:
                    continue  # text, whitespace, a comment, a tag the reading does not act on
                name = _IMAGE_KINDS.get(kind)
                if name is not None:
                    # The commonest stop first (nothing else is checked for it).
                    if templates:
                        continue
                    if open_elements:
                        if len(content) >= limit:
                            return  # enough content images: the rest cannot be listed
                        reference = _image_reference(name, data, at, end, lowered, values)
                        if reference:
                            content.append((open_elements[-1][2], reference))
                    elif len(elsewhere) < limit:
                        reference = _image_reference(name, data, at, end, lowered, values)
                        if reference:
                            elsewhere.append(reference)
                    continue
                if kind in _PASSED_KINDS:
                    continue
                raw = _RAW_KINDS.get(kind)
                if raw is not None:
                    position = skip_text(data, raw, end, True)[1]
                    continue
                if kind == "plaintext":
                    return
                if kind == "template":
                    templates += 1
                    continue
                if kind == "end_template":
                    templates = max(0, templates - 1)
                    continue
                if kind == "inner_end" or kind in _CONTENT_END_KINDS:
                    # End tags count inside templates too: only </template> closes one.
                    if open_elements and (kind == "inner_end" or _CONTENT_END_KINDS[kind] == open_elements[-1][0]):
                        open_elements[-1][1] -= 1
                        if open_elements[-1][1] == 0:
                            open_elements.pop()
                    continue
                if templates:
                    continue
                if kind in _CONTENT_KINDS or _marks_content_quickly(data[at:end]):
                    if open_elements:
                        holds_other.add(open_elements[-1][2])
                    number += 1
                    # A <main> or <article>, another <div> or <section>, or one of the innermost's kind.
                    opened_name = _CONTENT_KINDS.get(kind) or _MAYBE_KINDS.get(kind) or open_elements[-1][0]
                    open_elements.append([opened_name, 1, number])
                    self.has_content = True
                elif kind == "inner":
                    open_elements[-1][1] += 1
        finally:
            self.steps = steps
            self.content = [reference for element, reference in content if element not in holds_other]


def _token_kind(token: re.Match[bytes], innermost: bytes | None) -> tuple[str, int, int]:
    """A token read by the tokenizer as the quick reading's stop it is: its kind
    (empty for one the reader does not act on), start and end."""
    kind = ""
    if token.lastgroup == "end":
        name = token.group("end_name").lower()
        kind = "end_template" if name == b"template" else "inner_end" if name == innermost else ""
    elif token.lastgroup == "start":
        name = token.group("name").lower()
        kind = "inner" if name == innermost and name in _MAYBE_NAMES else _START_KINDS.get(name, "")
    return kind, token.start(), token.end()


def _may_mark_content(lowered_tag: bytes) -> bool:
    """Whether a lower-cased tag holds a content word (see _CONTENT_WORDS)."""
    return any(word in lowered_tag for word in _CONTENT_WORDS)


def _marks_content_quickly(tag: bytes) -> bool:
    return _may_mark_content(tag.lower()) and _marks_content(attributes_of(tag))


def _marks_content(attributes: dict[bytes, bytes]) -> bool:
    if attributes.get(b"role", b"").strip().lower() == b"main":
        return True
    if CONTENT_CLASSES.intersection(attributes.get(b"class", b"").decode("latin-1").split()):
        return True
    return attributes.get(b"id", b"").strip().decode("latin-1") in CONTENT_IDS


def _image_reference(
    name: bytes, data: bytes, at: int, end: int, lowered: bytes, values: tuple[bytes | None, ...] | None = None
) -> bytes | None:
    """The reference of the image tag ``name`` at ``data[at:end]`` (``lowered``:
    ``data`` in lower case, or empty; ``values``: the tag's values of
    _IMAGE_ATTRIBUTES, None for one it lacks, where the compiled stops read them)."""
    if values is None:
        if name == b"img" and lowered and lowered.find(b"srcset", at, end) < 0:
            # No srcset: the first src is the reference (most images), the rest of
            # the tag not read.
            first_src = _FIRST_SRC.match(data, at + 4, end)
            if first_src is not None:
                start, stop = first_src.span(first_src.lastindex or 0)  # one of the value's forms matched
                return data[start:stop] or None
        attributes = attributes_of(data[at:end], len(name) + 1)
        values = tuple(attributes.get(attribute) for attribute in _IMAGE_ATTRIBUTES)
    src, srcset, href, xlink_href = values
    if name == b"source":
        return _largest(srcset) if srcset else None
    if name == b"image" and (href is not None or xlink_href is not None):
        return href or xlink_href
    if srcset:
        largest = _largest(srcset)
        if largest:
            return largest
    return src or None


def _largest(srcset: bytes) -> bytes | None:
    url = largest_candidate(srcset[:SRCSET_READ_LIMIT].decode("latin-1"))
    return url.encode("latin-1") if url else None
