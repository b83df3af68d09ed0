"""check_built_page: pages a sitemap must leave out, read from their built <head>.

Google Search Central: "noindex ... prevents a page from being indexed"; a
rel="canonical" names "the preferred URL" of duplicates; an instant meta refresh
is read as a redirect. A sitemap should list neither.
"""

from __future__ import annotations

import gc
import os
import time
from html import escape

import html5lib
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from sitemapkit.site.htmlcheck import HEAD_READ_LIMIT, _HeadParser, check_built_page, refresh_url, relevant_tags
from sitemapkit.site.htmlscan import HeadReader
from sitemapkit.protocol.urls import comparable_url

PAGE_URL = "https://example.com/docs/guide/"


def _page(head: str, body: str = "<p>Text</p>") -> str:
    return f"<!doctype html>\n<html lang='en'>\n<head>\n<meta charset='utf-8'>\n<title>T</title>\n{head}\n</head>\n<body>{body}</body>\n</html>\n"


NOINDEX = '<meta name="robots" content="noindex">'

# What comes before a noindex, and whether the noindex is still in the head. A
# browser ends the head at its first body content, never at a "</head>" or "<body"
# inside a comment, raw text, RCDATA, an attribute value or a <template>.
HEAD_END_CASES = [
    ('<script>document.write("</head><body>");</script>', "noindex"),
    ("<script>if (a <body) {}</script>", "noindex"),
    ("<!-- </head> -->", "noindex"),
    ("<!-- <body> -->", "noindex"),
    ("<style>/* </head><body> */</style>", "noindex"),
    ("<title>What </head> means</title>", "noindex"),
    ('<meta name="description" content="</head><body>">', "noindex"),
    ("<template></head><body><p>Text</p></template>", "noindex"),
    ("<template><template></template></head></template>", "noindex"),
    ("<noscript></head><body><p>Enable JavaScript</p></noscript>", "noindex"),
    # CDATA-like script text: "<![CDATA[" means nothing in a script.
    ('<script>//<![CDATA[\nif (a < b) document.write("</head><body>");\n//]]></script>', "noindex"),
    # "<!--" in a script escapes it: a "<script>...</script>" in it does not end it.
    ('<script><!--\ndocument.write("<script>x()</script></head>");\n//--></script>', "noindex"),
    ("<script><!-- --></script>", "noindex"),
    # "</head>" does not end the head: a <meta> before the body's first content is the head's.
    ("</head>", "noindex"),
    ("</head>\n<!-- c -->\n", "noindex"),
    ("</p></div>", "noindex"),  # end tags that close nothing are ignored
    # The first body content ends the head, with or without </head> and <body>.
    ("<body>", None),
    ("</body>", None),
    ("<div>", None),
    ('<img src="/logo.png">', None),
    ("Some text", None),
    ("&nbsp;", None),
    ("a < b", None),
    ("<textarea></textarea>", None),
    ("</head><noscript></noscript>", None),  # after </head>, a <noscript> is the body's
    # Outside SVG and MathML "<![CDATA[" opens a bogus comment that ends at the first
    # ">", here the one of "</head>"; the "]]>" after it is text, the body's.
    ("<![CDATA[</head>]]>", None),
]

CASES = [
    # (head snippet, expected reason, expected canonical target)
    ("", None, None),
    # robots meta
    ('<meta name="robots" content="noindex">', "noindex", None),
    ('<meta name="robots" content="noindex,nofollow">', "noindex", None),
    ('<meta name="robots" content="nofollow, noindex">', "noindex", None),
    ('<meta name="robots" content="noindex nofollow">', "noindex", None),
    ('<meta name="robots" content="max-snippet:-1, NOINDEX">', "noindex", None),
    ('<meta name="robots" content="none">', "noindex", None),
    ('<meta name="robots" content="nofollow">', None, None),
    ('<meta name="robots" content="index, follow">', None, None),
    ('<meta name="robots" content="noindexer">', None, None),
    ('<meta name="robots" content="">', None, None),
    ('<meta name="robots">', None, None),
    ('<meta name="googlebot" content="noindex">', "noindex", None),
    ('<meta name="GoogleBot" content="None">', "noindex", None),
    ('<meta name="bingbot" content="noindex">', None, None),  # another crawler's business
    ('<meta name="description" content="noindex tips">', None, None),
    ('<META NAME="ROBOTS" CONTENT="NOINDEX">', "noindex", None),
    ("<meta content='noindex' name='robots'/>", "noindex", None),
    ("<meta content=noindex name=robots>", "noindex", None),
    ('<meta name=" robots " content="noindex">', "noindex", None),
    ('<meta name="robots" content="&#110;oindex">', "noindex", None),
    ('<meta name="robots" content="noindex" name="description">', "noindex", None),  # first attribute counts
    ('<!-- <meta name="robots" content="noindex"> -->', None, None),
    ('<script>var s = \'<meta name="robots" content="noindex">\';</script>', None, None),
    ('<SCRIPT type="module">let s = "<meta name=robots content=noindex>";</Script >', None, None),
    ('<script>document.write("</scr" + "ipt>")</script><meta name="robots" content="noindex">', "noindex", None),
    ('<style>/* <meta name="robots" content="noindex"> */</style>', None, None),
    ('<title>How to write <meta name="robots" content="noindex"></title>', None, None),
    # <noscript> is raw text with scripting on, but a crawler that runs no script
    # reads its tags: a noindex there is a noindex (mike's stubs redirect there).
    ('<noscript><meta name="robots" content="noindex"></noscript>', "noindex", None),
    ('<noscript><meta http-equiv="refresh" content="0; url=../2.0/"></noscript>', "redirect", None),
    ('<template><meta name="robots" content="noindex"></template>', None, None),  # a fragment of its own
    ('<!--> <meta name="robots" content="noindex">', "noindex", None),  # "<!-->" is a whole comment
    ('<!-- a comment --!> <meta name="robots" content="noindex">', "noindex", None),
    ('<!-- never closed <meta name="robots" content="noindex">', None, None),
    ('<meta property="og:description" content="<meta name=robots content=noindex>">', None, None),
    ('<link rel="alternate" title="a > b" href="/feed.xml"><meta name="robots" content="noindex">', "noindex", None),
    ('<link href=/it\'s rel=stylesheet><meta name="robots" content="noindex">', "noindex", None),
    ('<meta\nname="robots"\ncontent="noindex"\n/>', "noindex", None),
    # where the head ends, as a browser reads it (HEAD_END_CASES below)
    *((head + NOINDEX, reason, None) for head, reason in HEAD_END_CASES),
    # canonical
    ('<link rel="canonical" href="https://example.com/docs/guide/">', None, None),
    ('<link rel="canonical" href="https://example.com/docs/other/">', "canonical", "https://example.com/docs/other/"),
    ('<link rel="canonical" href="../other/">', "canonical", "https://example.com/docs/other/"),
    ('<link rel="canonical" href="/docs/other/">', "canonical", "https://example.com/docs/other/"),
    ('<link rel="canonical" href="./">', None, None),
    ('<link rel="canonical" href="">', None, None),
    ('<link rel="canonical" href="#top">', None, None),
    ('<link href="https://example.com/docs/other/" rel="canonical" />', "canonical", "https://example.com/docs/other/"),
    ("<link rel='canonical' href='https://example.com/docs/other/'>", "canonical", "https://example.com/docs/other/"),
    ('<LINK REL="Canonical" HREF="https://example.com/docs/other/">', "canonical", "https://example.com/docs/other/"),
    ('<link rel="alternate canonical" href="/x">', "canonical", "https://example.com/x"),
    ('<link rel="alternate" href="/x" hreflang="de">', None, None),
    ('<link rel="canonical">', None, None),
    (
        '<link rel="canonical" href="  https://example.com/docs/other/\n">',
        "canonical",
        "https://example.com/docs/other/",
    ),
    ('<link rel="canonical" href="https://example.com/a?x=1&amp;y=2">', "canonical", "https://example.com/a?x=1&y=2"),
    # canonical: the same address spelled differently is the page itself
    ('<link rel="canonical" href="HTTPS://EXAMPLE.COM/docs/guide/">', None, None),
    ('<link rel="canonical" href="https://example.com:443/docs/guide/">', None, None),
    ('<link rel="canonical" href="https://example.com/docs/guide/index.html">', None, None),
    ('<link rel="canonical" href="index.html">', None, None),
    ('<link rel="canonical" href="https://example.com/docs/%67uide/">', None, None),
    ('<link rel="canonical" href="https://example.com/docs/./guide/">', None, None),
    ('<link rel="canonical" href="https://example.com/docs/guide/#intro">', None, None),
    # canonical: different addresses, worth a user's look
    ('<link rel="canonical" href="http://example.com/docs/guide/">', "canonical", "http://example.com/docs/guide/"),
    (
        '<link rel="canonical" href="https://www.example.com/docs/guide/">',
        "canonical",
        "https://www.example.com/docs/guide/",
    ),
    ('<link rel="canonical" href="https://example.com/docs/guide">', "canonical", "https://example.com/docs/guide"),
    (
        '<link rel="canonical" href="https://example.com:8443/docs/guide/">',
        "canonical",
        "https://example.com:8443/docs/guide/",
    ),
    (
        '<link rel="canonical" href="https://example.com/docs/guide/?page=2">',
        "canonical",
        "https://example.com/docs/guide/?page=2",
    ),
    ('<link rel="canonical" href="mailto:web@example.com">', None, None),
    ('<link rel="canonical" href="http://[broken/">', None, None),
    # two canonical links that disagree cancel out; two that agree count
    ('<link rel="canonical" href="/a"><link rel="canonical" href="/b">', None, None),
    (
        '<link rel="canonical" href="/a"><link rel="canonical" href="https://example.com/a">',
        "canonical",
        "https://example.com/a",
    ),
    # <base href> changes what a relative href means
    (
        '<base href="https://example.com/other/"><link rel="canonical" href="./">',
        "canonical",
        "https://example.com/other/",
    ),
    ('<link rel="canonical" href="./"><base href="/other/">', "canonical", "https://example.com/other/"),
    ('<base target="_blank"><link rel="canonical" href="./">', None, None),
    # meta refresh
    ('<meta http-equiv="refresh" content="0; url=https://example.com/new/">', "redirect", None),
    ('<meta http-equiv="refresh" content="0;URL=\'../new/\'">', "redirect", None),
    ('<meta http-equiv="Refresh" content="0; url=/new/">', "redirect", None),
    ('<meta content="1;url=/new/" http-equiv="refresh" />', "redirect", None),
    ('<meta http-equiv="refresh" content="0, /new/">', "redirect", None),
    ('<meta http-equiv="refresh" content="5; url=/new/">', "redirect", None),
    ('<meta http-equiv="refresh" content="0; url=&quot;/new/&quot;">', "redirect", None),
    ('<meta http-equiv="refresh" content="30">', None, None),  # a timed reload
    ('<meta http-equiv="refresh" content="0; url=./">', None, None),  # reload of itself
    ('<meta http-equiv="refresh" content="0; url=https://example.com/docs/guide/index.html">', None, None),
    ('<meta http-equiv="refresh" content="later; url=/new/">', None, None),  # invalid: ignored by browsers
    ('<meta http-equiv="refresh">', None, None),
    ('<meta http-equiv="refresh" content="0; url=javascript:void(0)">', None, None),
    ('<meta http-equiv="refresh" content="0; url=http://[::1">', None, None),
    (
        '<meta http-equiv="refresh" content="0; url=/new/"><meta http-equiv="refresh" content="0; url=/other/">',
        "redirect",
        None,
    ),
    ('<meta http-equiv="content-type" content="text/html; charset=utf-8">', None, None),
    # several reasons: the most explicit wins, the canonical target is still told
    (
        '<link rel="canonical" href="/new/"><meta http-equiv="refresh" content="0; url=/new/">',
        "redirect",
        "https://example.com/new/",
    ),
    (
        '<meta name="robots" content="noindex"><link rel="canonical" href="/new/">',
        "noindex",
        "https://example.com/new/",
    ),
    ('<meta name="robots" content="noindex"><meta http-equiv="refresh" content="0; url=/new/">', "noindex", None),
]


@pytest.mark.parametrize(("head", "reason", "target"), CASES)
def test_head_table(tmp_path, head, reason, target):
    page = tmp_path / "index.html"
    page.write_text(_page(head), encoding="utf-8")
    assert check_built_page(page, PAGE_URL) == (reason, target)


SWITCHES = {"noindex": "noindex", "canonical": "canonical", "redirect": "redirects"}


@pytest.mark.parametrize(("head", "reason", "target"), [case for case in CASES if case[1]])
def test_each_switch_turns_its_check_off(tmp_path, head, reason, target):
    page = tmp_path / "index.html"
    page.write_text(_page(head), encoding="utf-8")
    off = {SWITCHES[reason]: False}
    found_reason, found_target = check_built_page(page, PAGE_URL, **off)
    assert found_reason != reason
    if reason == "canonical":
        assert found_target is None  # a check that is off is not looked at
    assert check_built_page(page, PAGE_URL, noindex=False, canonical=False, redirects=False) == (None, None)


def test_only_the_head_is_read(tmp_path):
    page = tmp_path / "page.html"
    page.write_text(_page("", body='<meta name="robots" content="noindex"><link rel="canonical" href="/x">'))
    assert check_built_page(page, PAGE_URL) == (None, None)


def test_a_page_without_head_tags_is_read_up_to_body(tmp_path):
    page = tmp_path / "page.html"
    page.write_text('<meta name="robots" content="noindex"><title>T</title><body><p>x</p>')
    assert check_built_page(page, PAGE_URL) == ("noindex", None)
    page.write_text('<title>T</title><body><meta name="robots" content="noindex">')
    assert check_built_page(page, PAGE_URL) == (None, None)


def test_head_past_the_read_limit_is_not_seen(tmp_path):
    page = tmp_path / "page.html"
    padding = "<script>" + "x" * HEAD_READ_LIMIT + "</script>"
    page.write_text(_page(padding + '<meta name="robots" content="noindex">'))
    assert check_built_page(page, PAGE_URL) == (None, None)
    page.write_text(_page('<meta name="robots" content="noindex">' + padding))
    assert check_built_page(page, PAGE_URL) == ("noindex", None)


@pytest.mark.parametrize("boundary", [4_096, 16_384])
@pytest.mark.parametrize("shift", [-8, -7, -6, -3, -1, 0, 1])
@pytest.mark.parametrize(
    ("head_end", "reason"),
    [
        ("</head><body>", None),
        ("<body>", None),
        # Not the end: "</head>" alone (a <meta> after it is still the head's), and
        # a script whose text holds "</head><body>".
        ("</head>", "noindex"),
        ("<script>'</head><body>'</script>", "noindex"),
        ("<!-- </head><body> -->", "noindex"),
    ],
)
def test_the_end_of_the_head_is_found_across_reads(tmp_path, boundary, shift, head_end, reason):
    # The file is read in growing pieces; where the head ends must not depend on
    # where a piece ends. A noindex just after the head must not count.
    start = '<html><head><meta name="description" content="'
    end = '">' + head_end
    padding = "x" * (boundary + shift - len(start) - len('">'))
    page = tmp_path / "page.html"
    page.write_text(start + padding + end + NOINDEX + "<p>Text</p>", encoding="ascii")
    assert page.read_bytes().index(head_end.encode()) == boundary + shift
    assert check_built_page(page, PAGE_URL) == (reason, None)


@pytest.mark.parametrize(
    ("encoding", "page_url", "href"),
    [
        ("utf-8", "https://example.com/%C3%BCber/", "/\u00fcber/"),
        ("iso-8859-1", "https://example.com/%C3%BCber/", "/\u00fcber/"),
        ("utf-8", "https://example.com/\u00fcber/", "https://example.com/%c3%bcber/"),
    ],
)
def test_non_ascii_canonical_matches_the_encoded_url(tmp_path, encoding, page_url, href):
    page = tmp_path / "page.html"
    head = f'<meta charset="{encoding}"><link rel="canonical" href="{href}">'
    page.write_bytes(f"<html><head>{head}</head><body></body></html>".encode(encoding))
    assert check_built_page(page, page_url) == (None, None)
    assert check_built_page(page, "https://example.com/other/")[0] == "canonical"


@pytest.mark.parametrize("encoding", ["utf-16-le", "utf-16-be"])
@pytest.mark.parametrize(
    ("head", "reason"),
    [
        ('<meta name="robots" content="noindex">', "noindex"),
        ('<meta http-equiv="refresh" content="0; url=/new/">', "redirect"),
        ('<link rel="canonical" href="/\u00fcber/">', "canonical"),
        ('<meta name="robots" content="index">', None),
    ],
)
def test_a_utf16_page_with_a_byte_order_mark_is_read_in_its_encoding(tmp_path, encoding, head, reason):
    page = tmp_path / "page.html"
    bom = "\ufeff".encode(encoding)
    page.write_bytes(bom + _page(head, body='<meta name="robots" content="noindex">').encode(encoding))
    assert check_built_page(page, PAGE_URL)[0] == reason
    if reason == "canonical":
        assert check_built_page(page, PAGE_URL)[1] == "https://example.com/\u00fcber/"
        assert check_built_page(page, "https://example.com/\u00fcber/") == (None, None)


def test_a_declared_utf16_charset_in_a_page_without_bom_is_read_as_utf8(tmp_path):
    # HTML standard, "prescan a byte stream": a <meta> naming UTF-16 means UTF-8
    # (bytes that could be read as ASCII this far are no UTF-16).
    page = tmp_path / "page.html"
    page.write_bytes(b'<html><head><meta charset="utf-16"><link rel="canonical" href="/caf\xe9/"></head></html>')
    assert check_built_page(page, PAGE_URL) == ("canonical", "https://example.com/caf\ufffd/")


def test_a_utf16_head_cut_by_the_read_limit_still_gives_an_answer(tmp_path):
    page = tmp_path / "page.html"
    # An odd number of bytes, and a surrogate pair cut in two at the limit.
    text = "<head><meta name=robots content=noindex>" + "\U0001f600" * HEAD_READ_LIMIT
    page.write_bytes(b"\xff\xfe" + text.encode("utf-16-le")[: HEAD_READ_LIMIT - 3])
    assert check_built_page(page, PAGE_URL) == ("noindex", None)


# Heads that a quadratic reader would take seconds on: each is a unit repeated,
# after a robots meta that sends every page through the parser.
HOSTILE_HEADS = {
    # Every "<meta" left open, and a non-UTF-8 byte in a robots meta so that the
    # declared charset is searched for.
    "unclosed-meta": (b'<meta name="robots" content="\xff">', b"<meta"),
    "unclosed-meta-charset": (b'<meta name="robots" content="\xff">', b"<meta charset"),
    "open-quotes": (b'<meta name="robots" content="x">', b'<a b="'),
    "equals-quotes": (b'<meta name="robots" content="x">', b"<a ='\""),
    # The same inside tags a head holds, which the reader reads on through.
    "open-quotes-in-head": (b'<meta name="robots" content="x">', b'<meta b="'),
    "equals-quotes-in-head": (b'<meta name="robots" content="x">', b"<link ='\""),
    "quoted-greater-than": (b'<meta name="robots" content="x">', b"<meta a=\"b>\" c='d>'>"),
    "comments": (b'<meta name="robots" content="x">', b"<!--"),
    "raw-text": (b'<meta name="robots" content="x"><script>', b"</script"),
    "canonical-open-quotes": (b"", b"<link rel=canonical href='"),
    "robots-unclosed": (b"", b"<meta name=robots content=noindex "),
    # The tokenizer's other states, each opened thousands of times and never closed.
    "script-openers": (b'<meta name="robots" content="x">', b"<script>"),
    "script-escapes": (b'<meta name="robots" content="x"><script>', b"<!--<script>"),
    "script-escape-ends": (b'<meta name="robots" content="x"><script>', b"<!--<script></script>-->"),
    "templates": (b'<meta name="robots" content="x">', b"<template>"),
    "template-comments": (b'<meta name="robots" content="x"><template>', b"<!-- </template"),
    "titles": (b'<meta name="robots" content="x">', b"<title></titl"),
    "noscripts": (b'<meta name="robots" content="x">', b"<noscript><meta name=robots content=noindex>"),
    "bogus-comments": (b'<meta name="robots" content="x">', b"<!DOCTYPE x"),
    "end-tags": (b'<meta name="robots" content="x">', b"</p a='"),
}


def _scan_seconds(head: bytes) -> float:
    """The least CPU time, of several tries, that reading ``head`` takes."""
    tries = []
    gc.disable()
    try:
        for _ in range(5):
            started = time.process_time()
            relevant_tags(head, (b"robots", b"googlebot", b"canonical", b"refresh"))
            tries.append(time.process_time() - started)
    finally:
        gc.enable()
    return min(tries)


@pytest.mark.parametrize("shape", sorted(HOSTILE_HEADS))
def test_reading_a_hostile_head_takes_time_linear_in_its_size(shape):
    # Sixteen times the head takes about sixteen times the work when reading is
    # linear, 256 times when it is quadratic. Compared by the ratio of two sizes
    # on one machine, not by a time.
    prefix, unit = HOSTILE_HEADS[shape]
    # The larger is what the reader reads at most of a page.
    small, large = (b"<html><head>" + prefix + unit * (size // len(unit)) for size in (4_096, HEAD_READ_LIMIT))
    ratio = _scan_seconds(large) / max(_scan_seconds(small), 1e-5)
    assert ratio < 64, f"{shape}: 16 times the head took {ratio:.0f} times as long"


@pytest.mark.parametrize("shape", sorted(HOSTILE_HEADS))
def test_a_hostile_head_is_read_one_step_per_tag_at_most(shape):
    # The work done token by token (not in one run): at most one step a "<".
    prefix, unit = HOSTILE_HEADS[shape]
    head = b"<html><head>" + prefix + unit * (HEAD_READ_LIMIT // len(unit))
    reader = HeadReader()
    assert reader.read(head, final=True)
    assert reader.steps <= head.count(b"<") + 1


@pytest.mark.parametrize("shape", sorted(HOSTILE_HEADS))
def test_a_hostile_page_gives_an_answer(tmp_path, shape):
    prefix, unit = HOSTILE_HEADS[shape]
    page = tmp_path / "page.html"
    page.write_bytes(b"<html><head>" + prefix + unit * (HEAD_READ_LIMIT // len(unit)))
    assert check_built_page(page, PAGE_URL)[0] in (None, "noindex", "canonical")
    utf16 = tmp_path / "utf16.html"
    utf16.write_bytes(b"\xff\xfe" + (b"<html><head>" + prefix + unit * 3_000).decode("latin-1").encode("utf-16-le"))
    assert check_built_page(utf16, PAGE_URL)[0] in (None, "noindex", "canonical")


def test_a_fifo_handed_over_as_a_page_raises_oserror_and_does_not_hang(tmp_path):
    fifo = tmp_path / "pipe.html"
    os.mkfifo(fifo)
    # Nothing writes into it: without O_NONBLOCK, opening it would wait forever.
    with pytest.raises(OSError, match="not a regular file"):
        check_built_page(fifo, PAGE_URL)
    (tmp_path / "empty.html").write_bytes(b"")
    assert check_built_page(tmp_path / "empty.html", PAGE_URL) == (None, None)


def test_a_folder_named_like_a_page_raises_oserror(tmp_path):
    (tmp_path / "x.html").mkdir()
    with pytest.raises(OSError):
        check_built_page(tmp_path / "x.html", PAGE_URL)


def test_a_missing_file_raises_oserror(tmp_path):
    with pytest.raises(OSError):
        check_built_page(tmp_path / "missing.html", PAGE_URL)


@pytest.mark.parametrize(
    ("content", "url"),
    [
        ("0; url=/a", "/a"),
        ("0;url=/a", "/a"),
        ("0 ; URL = /a", "/a"),
        ("0; url='/a' trailing", "/a"),
        ('0; url="/a', "/a"),
        ("0; /a", "/a"),
        ("0,/a", "/a"),
        ("0 /a", "/a"),
        ("0.5; url=/a", "/a"),
        (".5; url=/a", "/a"),
        ("  3  ;  url=/a  ", "/a"),
        ("0; urx", "urx"),
        ("0; url /a", "url /a"),
        ("0; 'quoted'", "quoted"),
        ("0", None),
        ("0;", None),
        ("0; url=", None),
        ("", None),
        ("x", None),
        ("0x; url=/a", None),
        ("-1; url=/a", None),
    ],
)
def test_refresh_url_follows_the_html_standard(content, url):
    assert refresh_url(content) == url


@pytest.mark.parametrize(
    ("one", "other", "same"),
    [
        ("https://Example.com/a", "https://example.com/a", True),
        ("HTTPS://example.com/a", "https://example.com/a", True),
        ("http://example.com:80/a", "http://example.com/a", True),
        ("https://example.com:80/a", "https://example.com/a", False),
        ("https://example.com", "https://example.com/", True),
        ("https://example.com/%7Ea", "https://example.com/~a", True),
        ("https://example.com/%c3%bc", "https://example.com/\u00fc", True),
        ("https://example.com/a%2fb", "https://example.com/a%2Fb", True),
        ("https://example.com/a%2Fb", "https://example.com/a/b", False),
        ("https://example.com/a/../b", "https://example.com/b", True),
        ("https://example.com/d/index.html", "https://example.com/d/", True),
        # Only index.html is the folder's file (urls.INDEX_FILE); an index.htm is a page of its own.
        ("https://example.com/index.htm", "https://example.com/", False),
        ("https://example.com/d/main.html", "https://example.com/d/", False),
        ("https://example.com/a#x", "https://example.com/a", True),
        ("https://example.com/a?b=1", "https://example.com/a", False),
        ("https://example.com/a", "https://example.com/a/", False),
        ("https://b\u00fccher.example/", "https://xn--bcher-kva.example/", True),
    ],
)
def test_comparable_url(one, other, same):
    assert (comparable_url(one) == comparable_url(other)) is same


@settings(max_examples=300, deadline=None)
@given(
    st.binary(max_size=600),
    st.sampled_from(
        [
            b"",
            b"<head>",
            b'<meta name="robots" content="',
            b"<link rel=canonical href=",
            b'<meta http-equiv=refresh content="0;url=',
        ]
    ),
)
def test_any_bytes_give_an_answer_not_a_traceback(tmp_path_factory, noise, prefix):
    page = tmp_path_factory.mktemp("fuzz") / "page.html"
    page.write_bytes(prefix + noise)
    reason, target = check_built_page(page, PAGE_URL)
    assert reason in (None, "noindex", "canonical", "redirect")
    assert target is None or target.startswith(("http", "https"))


@settings(max_examples=200, deadline=None)
@given(
    st.text(max_size=40),
    st.text(max_size=40),
    st.text(max_size=40),
    st.sampled_from([PAGE_URL, "https://example.com", "http://[bad/", "https://example.com:99999/"]),
)
def test_any_attribute_values_give_an_answer_not_a_traceback(tmp_path_factory, canonical, refresh, base, page_url):
    page = tmp_path_factory.mktemp("fuzz") / "page.html"
    head = (
        f'<base href="{escape(base)}"><link rel="canonical" href="{escape(canonical)}">'
        f'<meta http-equiv="refresh" content="{escape(refresh)}">'
    )
    page.write_text(_page(head), encoding="utf-8", errors="surrogatepass")
    reason, target = check_built_page(page, page_url)
    assert reason in (None, "canonical", "redirect")
    assert target is None or target.startswith(("http:", "https:"))


_HEAD_FRAGMENTS = [
    '<meta name="robots" content="noindex">',
    "<meta name=robots content='index, follow'>",
    '<META NAME="googlebot" CONTENT="none"/>',
    '<link rel="canonical" href="/a">',
    "<link rel=canonical href='/b?x=1&amp;y=2'>",
    '<meta http-equiv="refresh" content="0; url=/c">',
    '<base href="/base/">',
    '<link rel="stylesheet" href="/s.css">',
    '<meta name="description" content="a > b, robots & canonical </head>">',
    "<script>if (a < b && c > d) {}</script>",
    '<script type="application/json">{"x": "<link rel=canonical href=/js>"}</script>',
    "<script>document.write('</head><body>')</script>",
    "<script><!-- document.write('<script></script><meta name=robots content=noindex>') --></script>",
    "<script><!--<script>",
    "<script>//<![CDATA[\n'</head>'\n//]]></script>",
    "<style>a > b { color: red }</style>",
    "<title>A &amp; B </head></title>",
    "<!-- <meta name=robots content=noindex> </head> -->",
    "<!-->",
    "<!-- never closed ",
    "<noscript><link rel=stylesheet href=/n.css></noscript>",
    "<noscript><meta name=robots content=noindex></head></noscript>",
    "<![CDATA[ x ]]>",
    "<!doctype html>",
    "</head>",
    "</p>",
    "</br>",
    "<body>",
    "<div>",
    "<textarea>",
    "some text ",
    "\n  ",
]


def _read_whole_then_in_pieces(page: bytes, cuts: list[int]) -> tuple:
    """What a reader makes of ``page`` read at once, and read as the page file
    comes in: each piece longer, until it says the head has ended."""
    at_once = HeadReader()
    at_once.read(page, final=True)
    in_pieces = HeadReader()
    for cut in sorted(cuts):
        if in_pieces.read(page[:cut], final=False):
            break
    else:
        in_pieces.read(page, final=True)
    return [(r.end, r.tags(), r.scripts()) for r in (at_once, in_pieces)]


@settings(max_examples=400, deadline=None)
@given(
    st.lists(st.sampled_from(_HEAD_FRAGMENTS + [f for f, _ in HEAD_END_CASES]), max_size=12),
    st.lists(st.integers(min_value=0, max_value=1_000), max_size=4),
)
def test_a_head_read_in_pieces_is_the_head_read_at_once(fragments, cuts):
    # The reader stops where the data may end inside a token and goes on when
    # more has come (what it read of the simple grammar stays read): the head,
    # its tags and its scripts are those of the page read whole.
    page = ("<!doctype html><html><head>" + "".join(fragments) + "</head><body><p>x</p>").encode("utf-8")
    at_once, in_pieces = _read_whole_then_in_pieces(page, cuts)
    assert in_pieces == at_once


def test_a_long_head_read_in_pieces_reads_its_simple_start_once():
    head = b"<html><head>" + b'<meta name="x" content="y">\n' * 200 + b"</head><body>"
    reader = HeadReader()
    assert not reader.read(head[:4_096], final=False)
    assert reader.read(head, final=True)
    assert reader.steps == 0  # every token of the head read in the simple runs
    assert _read_whole_then_in_pieces(head, [4_096])[1] == _read_whole_then_in_pieces(head, [])[0]


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(_HEAD_FRAGMENTS), max_size=12))
def test_the_head_holds_what_html5lib_puts_in_it(fragments):
    # html5lib implements the HTML standard's tokenizer and tree builder; the
    # reader must find in the head the same tags, with the same effect: those a
    # browser puts there (scripting on), and those of the head's <noscript>, which
    # a crawler that runs no script reads (scripting off). (Not with <template>:
    # html5lib 1.1 puts it in the body; the cases above hold it.)
    head = "<head>" + "".join(fragments)
    document = html5lib.HTMLParser(namespaceHTMLElements=False).parse(head, scripting=True)
    elements = [e for e in document.find("head") if e.tag in ("meta", "link", "base")]
    without_scripts = html5lib.HTMLParser(namespaceHTMLElements=False).parse(head, scripting=False)
    elements += [
        e for noscript in without_scripts.find("head").iter("noscript") for e in noscript if e.tag in ("meta", "link")
    ]
    browser = _HeadParser()
    browser.feed(
        "".join("<%s %s>" % (e.tag, " ".join(f'{k}="{escape(v)}"' for k, v in e.attrib.items())) for e in elements)
    )
    browser.close()
    selected = _HeadParser()
    selected.feed(
        relevant_tags(head.encode("utf-8"), (b"robots", b"googlebot", b"canonical", b"refresh")).decode("utf-8")
    )
    selected.close()
    assert _state(selected) == _state(browser)


def _state(parser: _HeadParser) -> tuple:
    return parser.noindex, parser.canonical_hrefs, parser.refresh_target, parser.base_href


# ---- quiet_facts: the quick verdict on a page read whole -------------------------------

_OWN = "https://example.org/guide/"
# Pieces a short page is made of: the words the checks look for in any case and
# place (a tag, a comment, a script, a title, an attribute value, the body), the
# page's own canonical link and others, heads' ends that are not ends, images.
_QUIET_PIECES = [
    "<title>Guide</title>",
    "<title></head><body>canonical</title>",
    '<meta name="viewport" content="width=device-width">',
    '<meta name="robots" content="noindex">',
    '<META NAME="ROBOTS" CONTENT="NOINDEX">',
    '<meta name="googlebot" content="none">',
    '<meta name="robots" content="index, follow">',
    f'<link rel="canonical" href="{_OWN}">',
    f'<link rel="Canonical" href="{_OWN}">',
    '<link rel="canonical" href="https://example.org/other/">',
    "<link rel=canonical href=/guide/>",
    f'<!-- <link rel="canonical" href="{_OWN}"> -->',
    '<!-- <meta name="robots" content="noindex"> -->',
    '<meta http-equiv="refresh" content="0; url=/other/">',
    '<meta property="article:modified_time" content="2024-01-02T03:04:05+00:00">',
    '<script type="application/ld+json">{"dateModified": "2024-02-03"}</script>',
    '<script>var s = "</head><body>";</script>',
    '<link rel="alternate" hreflang="fr" href="https://example.org/fr/guide/">',
    '<meta property="og:image" content="/cover.png">',
    '<base href="/elsewhere/">',
    "</head>",
    "<body>",
    "<p>Robots, canonical forms and a refresh of the hreflang notes.</p>",
    '<img src="/figure.png" alt="">',
    '<main><img src="figure.png"></main>',
    "<noscript><meta name=robots content=noindex></noscript>",
    "<template><meta name=robots content=noindex></template>",
    "text before the head ends ",
    # Each image tag a page is searched for, and a word holding a marker's shorter form.
    '<picture><source srcset="/p.webp 2x"></picture>',
    '<svg><image href="/chart.svg"/></svg>',
    '<meta name="twitter:image" content="/card.png">',
    "<p>bottom</p>",
]


@settings(max_examples=300, deadline=None)
@given(pieces=st.lists(st.sampled_from(_QUIET_PIECES), max_size=8), images=st.booleans(), bom=st.booleans())
# The page's own link where the head does not hold it, and another one where it does.
@example(pieces=[_QUIET_PIECES[11], _QUIET_PIECES[9]], images=False, bom=False)
@example(pieces=[_QUIET_PIECES[16], _QUIET_PIECES[7], "</head><body>", _QUIET_PIECES[3]], images=False, bom=False)
# Images in the content and around it, after a script holding a head's end.
@example(pieces=[_QUIET_PIECES[16], _QUIET_PIECES[23], _QUIET_PIECES[24], _QUIET_PIECES[7]], images=True, bom=False)
def test_a_page_said_to_say_nothing_says_nothing_when_read_whole(tmp_path_factory, pieces, images, bom) -> None:
    from sitemapkit.site.htmlcheck import head_markers, inspect_built_page, quiet_facts

    text = "<!doctype html><html><head>" + "".join(pieces) + "</body></html>"
    data = text.encode("utf-16") if bom else text.encode()
    path = tmp_path_factory.mktemp("page") / "index.html"
    path.write_bytes(data)
    markers = head_markers(True, True, True, True, True, images)
    quick = quiet_facts(data, _OWN, markers, images)
    if quick is not None:
        facts = inspect_built_page(
            path, _OWN, noindex=True, canonical=True, redirects=True, dates=True, alternates=True, images=images
        )
        # Nothing but the images the page shows, the same as read in full.
        assert quick == facts, (text, quick, facts)
        shown = {"images": facts.images, "uncertain_images": facts.uncertain_images}
        assert facts == type(facts)(**shown, outside_images=facts.outside_images), (text, facts)
        assert not bom


def test_quiet_facts_only_of_pages_that_need_no_reading() -> None:
    from sitemapkit.site.htmlcheck import head_markers, quiet_facts

    def says_nothing(data: bytes, url: str, markers: tuple[bytes, ...], images: bool) -> bool:
        facts = quiet_facts(data, url, markers, images)
        return facts is not None and not (facts.images or facts.outside_images)

    markers = head_markers(True, True, True, True, True, False)
    page = f'<!doctype html><html><head><title>t</title><link rel="canonical" href="{_OWN}"></head><body>x</body>'
    assert says_nothing(page.encode(), _OWN, markers, False)
    assert says_nothing(b"<p>plain", _OWN, markers, False)
    # Its own link twice, another URL, a word in the body: the head is read.
    assert not says_nothing(
        page.replace("<title>", f'<link rel="canonical" href="{_OWN}">').encode(), _OWN, markers, False
    )
    assert not says_nothing(page.encode(), "https://example.org/other/", markers, False)
    assert not says_nothing(page.replace("x</body>", "Robots</body>").encode(), _OWN, markers, False)
    assert not says_nothing(page.encode("utf-16"), _OWN, markers, False)
    # A check switched off has no word to look for.
    assert says_nothing(
        page.encode(), "https://example.org/other/", head_markers(True, False, True, True, True, False), False
    )
    # An image on a page whose images are wanted: its images, its head's tags unread;
    # with a <base> anywhere, or a word of the checks, the head is read.
    with_image = page.replace("x</body>", '<img src="a.png"></body>').encode()
    assert says_nothing(with_image, _OWN, markers, False)
    with_images = head_markers(True, True, True, True, True, True)
    shown = quiet_facts(with_image, _OWN, with_images, True)
    assert shown is not None and shown.images == (_OWN + "a.png",)
    assert quiet_facts(with_image.replace(b"<title>", b'<base href="/x/"><title>'), _OWN, with_images, True) is None
    assert (
        quiet_facts(
            with_image.replace(b"<title>", b'<meta property="og:image" content="/c.png">'), _OWN, with_images, True
        )
        is None
    )


@pytest.mark.parametrize(
    "text",
    [
        "<html><head><title>t</title></head><body>short</body></html>",
        "<html><head>" + "<meta name=x>" * 400 + '<meta name="robots" content="noindex"></head><body>long</body>',
        "<html><head><script>" + "x" * 5000 + '</script><link rel="canonical" href="/other/"></head>',
    ],
)
@pytest.mark.parametrize("utf16", [False, True])
def test_a_first_read_handed_over_reads_on_as_one_read_does(tmp_path, text: str, utf16: bool) -> None:
    from sitemapkit.site.htmlcheck import FIRST_READ, first_read, inspect_built_page

    path = tmp_path / "page.html"
    path.write_bytes(text.encode("utf-16") if utf16 else text.encode())
    read = first_read(str(path))
    assert read is not None and len(read[0]) == min(FIRST_READ, path.stat().st_size)
    flags = dict(noindex=True, canonical=True, redirects=True, dates=True, alternates=True)
    for images in (False, True):
        alone = inspect_built_page(path, "https://example.org/page.html", images=images, **flags)
        handed = inspect_built_page(path, "https://example.org/page.html", images=images, first=read[0], **flags)
        assert handed == alone
    assert first_read(str(tmp_path)) is None  # a folder is no page


# Words made of a few bytes, so that they overlap, repeat and end the data; the
# shortest of them from none to five bytes (the compiled reading reads a pair of
# bytes every few, fewer the shorter the shortest word).
def _words_of(alphabet: bytes, shortest: int) -> st.SearchStrategy[bytes]:
    return st.binary(min_size=shortest, max_size=shortest + 4).map(
        lambda word: bytes(alphabet[byte % len(alphabet)] for byte in word)
    )


_WORD_LISTS = st.integers(0, 5).flatmap(lambda shortest: st.lists(_words_of(b"aB<e", shortest), max_size=10))


@pytest.mark.parametrize("compiled", [pytest.param(True, id="compiled"), pytest.param(False, id="python")])
@settings(max_examples=1000, deadline=None)
@given(
    words=_WORD_LISTS.map(tuple),
    others=_WORD_LISTS.map(tuple),
    pieces=st.lists(_words_of(b"Ab<e", 0) | st.binary(max_size=3), max_size=30),
)
def test_the_words_a_page_holds_are_those_in_it(compiled, words, others, pieces) -> None:
    # One reading for all the words (compiled, where it is built) is each word's
    # ``in`` of the lowered data, in any case, whatever words were asked for before;
    # so is the reading where they are not built.
    from sitemapkit.site import htmlscan

    data = b"".join(pieces)
    lowered = data.lower()
    with pytest.MonkeyPatch.context() as patch:
        if not compiled:
            patch.setattr(htmlscan, "_pagescan", None)
        for asked in (words, others, words):
            found = htmlscan.words_present(data, asked)
            assert found == [word for word in asked if word.lower() in lowered], (data, asked)
