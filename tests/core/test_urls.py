"""URL encoding, XML escaping and scoping: tables of inputs at the edges."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sitemapkit import ConfigError, Options, UrlError
from sitemapkit.protocol.urls import OutOfScope, Scope, encode_url, escape_xml

BASE = "https://example.org/docs/"


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        ("ümlat.php", "https://example.org/docs/%C3%BCmlat.php"),  # the protocol's own example
        ("a b/c.html", "https://example.org/docs/a%20b/c.html"),
        ("already%20encoded/", "https://example.org/docs/already%20encoded/"),  # not encoded twice
        ("100%/", "https://example.org/docs/100%25/"),  # a lone % is encoded
        ("bad%zz", "https://example.org/docs/bad%25zz"),
        ("q?a=1&b=2", "https://example.org/docs/q?a=1&b=2"),
        ("日本/", "https://example.org/docs/%E6%97%A5%E6%9C%AC/"),
        ('x[1]<>"{}|\\^`', "https://example.org/docs/x%5B1%5D%3C%3E%22%7B%7D%7C%5C%5E%60"),
        ("it's(ok)!*", "https://example.org/docs/it's(ok)!*"),
        ("", "https://example.org/docs/"),
        ("/docs/a/", "https://example.org/docs/a/"),
        ("sub/../b/", "https://example.org/docs/b/"),
        ("https://EXAMPLE.org:443/docs/x", "https://example.org/docs/x"),
        ("HTTPS://example.org/docs/é", "https://example.org/docs/%C3%A9"),
        ("frag.html#top", "https://example.org/docs/frag.html#top"),
    ],
)
def test_loc_encoding(given: str, expected: str) -> None:
    assert Scope(BASE).loc(given) == expected


@pytest.mark.parametrize(
    ("given", "reason"),
    [
        ("/other/", "outside base_url"),
        ("../up.html", "outside base_url"),
        ("http://example.org/docs/x", "outside base_url"),  # another scheme
        ("https://example.org:8443/docs/x", "outside base_url"),  # another port
        ("https://www.example.org/docs/x", "outside base_url"),  # another host
        ("https://example.org/docsx/", "outside base_url"),  # a sibling folder, not a child
        ("a" * 2100, "too long"),
    ],
)
def test_out_of_scope(given: str, reason: str) -> None:
    with pytest.raises(OutOfScope) as raised:
        Scope(BASE).loc(given)
    assert raised.value.reason == reason


def test_loc_length_limit_exact() -> None:
    """<loc>: "This value must be less than 2,048 characters"."""
    scope = Scope(BASE)
    room = 2047 - len(scope.prefix)
    assert len(scope.loc("a" * room)) == 2047
    with pytest.raises(OutOfScope):
        scope.loc("a" * (room + 1))


@pytest.mark.parametrize("given", ["a\nb", "a\rb", "tab\there", "nul\x00", "del\x7f", "https://example.org/docs/\n"])
def test_control_characters_rejected(given: str) -> None:
    with pytest.raises(UrlError, match="control characters"):
        Scope(BASE).loc(given)


def test_idna_host_and_default_port() -> None:
    assert encode_url("http://bücher.example:80/ä") == "http://xn--bcher-kva.example/%C3%A4"
    assert Scope("https://bücher.example/").loc("x") == "https://xn--bcher-kva.example/x"


@pytest.mark.parametrize(
    ("given", "expected"),
    [("a&b", "a&amp;b"), ("it's", "it&apos;s"), ('"q"', "&quot;q&quot;"), ("<x>", "&lt;x&gt;"), ("plain", "plain")],
)
def test_escape_xml(given: str, expected: str) -> None:
    assert escape_xml(given) == expected


def test_base_without_trailing_slash_is_a_folder() -> None:
    assert Scope("https://example.org/docs").loc("a/") == "https://example.org/docs/a/"


@pytest.mark.parametrize(
    "base",
    [
        "",
        "   ",
        "example.org",
        "/docs/",
        "ftp://example.org/",
        "https://",
        "https:///path",
        "https://x.org/?q=1",
        "https://x.org/a b/",
    ],
)
def test_bad_base_url(base: str) -> None:
    with pytest.raises(ConfigError) as raised:
        Options(base_url=base)
    assert raised.value.option == "base_url"
    assert raised.value.for_setting("site_url").startswith("site_url: ")


# Base URLs one check refuses, each for one reason. A C1 control (NEL, U+0085) was
# accepted by Options and refused later by Scope, which every build makes.
_BAD_BASES = {
    "https://example.org/a\x85b/": "contains spaces or control characters",
    "https://example.org/a\x9fb/": "contains spaces or control characters",
    "https://example.org/a\x7fb/": "contains spaces or control characters",
    "https://example.org/a\tb/": "contains spaces or control characters",
    "https://example.org/a b/": "contains spaces or control characters",
    "https://[::1/": "has an invalid host or port",
    "https://x.org:99999/": "has an invalid host or port",
    "https://ü..x/": "has a host name that cannot be encoded",
    "ftp://example.org/": "is not an absolute http(s) URL with a host",
    "https://x.org/#top": "must not have a query or fragment",
}


def _base_url_problem(make) -> str | None:
    try:
        make()
    except ConfigError as error:
        assert error.option == "base_url"
        return error.problem
    return None


@pytest.mark.parametrize("base", [*_BAD_BASES, "https://example.org/a\u00e9b/", "https://bücher.example/d"])
def test_options_and_scope_judge_a_base_url_alike(base: str) -> None:
    """One check: what Options accepts, Scope (made by every build, and by
    ``check``) accepts, with the same one line for what it refuses."""
    from_options = _base_url_problem(lambda: Options(base_url=base))
    from_scope = _base_url_problem(lambda: Scope(base))
    assert from_options == from_scope
    assert from_options == (f"{base!r} {_BAD_BASES[base]}" if base in _BAD_BASES else None)


class TestNamesArePaths:
    """A file or document name is text: Page.from_path encodes what a path segment
    may not hold, "%" included; Page(url) keeps a URL's meaning."""

    @pytest.mark.parametrize(
        ("name", "expected"),
        [
            ("c#sharp.html", "c%23sharp.html"),
            ("what?.html", "what%3F.html"),
            ("lit%20eral.html", "lit%2520eral.html"),
            ("a\tb.html", "a%09b.html"),
            ("ü b/x.html", "%C3%BC%20b/x.html"),
            ("&+(),;=!$*'@~.html", "&+(),;=!$*'@~.html"),
            ("a:b/c:d.html", "a%3Ab/c:d.html"),  # not a scheme
            ("guide/", "guide/"),
        ],
    )
    def test_encode_path(self, name: str, expected: str) -> None:
        from sitemapkit.protocol.urls import encode_path

        assert encode_path(name) == expected

    def test_page_by_path_and_by_url_differ(self) -> None:
        from sitemapkit import Page

        scope = Scope(BASE)
        assert scope.loc(Page.from_path("lit%20eral.html").loc) == BASE + "lit%2520eral.html"
        assert scope.loc(Page("lit%20eral.html").loc) == BASE + "lit%20eral.html"
        assert scope.loc(Page.from_path("c#sharp.html").loc) == BASE + "c%23sharp.html"
        assert scope.loc(Page.from_path("a:b.html").loc) == BASE + "a%3Ab.html"

    @pytest.mark.parametrize(
        ("one", "other"),
        [
            ("https://x.org/a&b/", "https://x.org/a%26b/"),
            ("https://x.org/%C3%BC/", "https://x.org/ü/"),
            ("https://x.org/a%20b", "https://x.org/a b"),
            ("https://x.org/a%2a", "https://x.org/a*"),
        ],
    )
    def test_same_file_in_other_spellings(self, one: str, other: str) -> None:
        from sitemapkit.protocol.urls import same_file_key

        assert same_file_key(one) == same_file_key(other)

    @pytest.mark.parametrize(
        ("one", "other"),
        [
            ("https://x.org/a%2Fb", "https://x.org/a/b"),  # an encoded "/" is part of a name
            ("https://x.org/a?x=%26", "https://x.org/a?x=&"),  # queries keep their meaning
            ("https://x.org/a+b", "https://x.org/a%20b"),  # "+" is no space in a path
            ("https://x.org/c%23sharp", "https://x.org/c#sharp"),
        ],
    )
    def test_different_files(self, one: str, other: str) -> None:
        from sitemapkit.protocol.urls import same_file_key

        assert same_file_key(one) != same_file_key(other)


def test_any_file_name_round_trips_through_its_url():
    """Whatever a file name holds, the URL made from it decodes to that name."""
    from urllib.parse import unquote

    from hypothesis import given, settings
    from hypothesis import strategies as st

    from sitemapkit import Page

    scope = Scope(BASE)
    segment = st.text(
        st.characters(blacklist_categories=("Cs",), blacklist_characters="/"), min_size=1, max_size=12
    ).filter(lambda s: s not in (".", ".."))

    @settings(max_examples=300, deadline=None)
    @given(st.lists(segment, min_size=1, max_size=3))
    def round_trip(segments: list[str]) -> None:
        name = "/".join(segments)
        loc = scope.loc(Page.from_path(name).loc)
        assert loc.startswith(BASE)
        assert unquote(loc[len(BASE) :]) == name

    round_trip()


@pytest.mark.parametrize(
    "url",
    [
        "https://example.org/docs/../admin/secret",
        "https://example.org/docs/%2e%2e/admin/pct",
        "https://example.org/docs/%2E./admin/mixed",
        "https://example.org/docs/a/../../admin/mid",
        "//evil.example/x",
        "//evil.example/docs/x",
    ],
)
def test_dot_segments_and_network_paths_cannot_leave_the_base(url: str) -> None:
    """Dot segments are resolved in absolute URLs too, "." spelled %2E included;
    "//host/..." names another host, not a path below the base."""
    with pytest.raises(OutOfScope):
        Scope("https://example.org/docs/").loc(url)


def test_dot_segments_inside_the_base_resolve() -> None:
    scope = Scope("https://example.org/docs/")
    assert scope.loc("https://example.org/docs/a/%2e%2e/b") == "https://example.org/docs/b"
    assert scope.loc("https://example.org/docs/a/./b") == "https://example.org/docs/a/b"
    # Not a dot segment: left as written.
    assert scope.loc("https://example.org/docs/a%2Eb/..c") == "https://example.org/docs/a%2Eb/..c"


def test_url_comparison_lives_with_scope() -> None:
    from sitemapkit.site import htmlcheck
    from sitemapkit.protocol import robotsrules
    from sitemapkit.protocol import urls

    # No copy of its own: htmlcheck compares through urls.
    assert getattr(htmlcheck, "comparable_url", urls.comparable_url) is urls.comparable_url
    assert robotsrules.normalise_percent_encoding is urls.normalise_percent_encoding
    assert not hasattr(htmlcheck, "_remove_dot_segments")
    assert urls.comparable_url("https://example.org/a/%2e%2e/b/index.html") == "https://example.org/b/"


def test_a_network_path_reference_is_another_host_even_below_the_root() -> None:
    with pytest.raises(OutOfScope):
        Scope("https://example.org/").loc("//evil.example/x")
    assert Scope("https://example.org/").loc("//example.org/x") == "https://example.org/x"


@settings(max_examples=500, deadline=None)
@given(st.text(st.sampled_from("/.%2eEa?#\t\n"), max_size=12))
def test_every_dot_segment_holds_a_mark_the_block_path_looks_for(text: str) -> None:
    """The block path searches for the marks before it runs the pattern."""
    from sitemapkit.protocol.urls import DOT_ENDING_SEGMENT, SLASH_DOT_SEGMENT

    if re.search(SLASH_DOT_SEGMENT, text):
        assert "%2" in text or re.search(DOT_ENDING_SEGMENT, text)


@pytest.mark.parametrize(
    "url, below",
    [
        ("https://example.org/docs/a%20b/c.html", "a b/c.html"),
        ("https://EXAMPLE.org:443/docs/sitemap-1.xml", "sitemap-1.xml"),
        # As written: the site folder refuses to open what climbs.
        ("https://example.org/docs/x/../../outside/secret.xml", "x/../../outside/secret.xml"),
        ("https://example.org/docs/", ""),
        # Decoded, the path may climb: check's site folder refuses to open it.
        ("https://example.org/docs/..%2F..%2Fetc/passwd", "../../etc/passwd"),
        ("https://example.org/other/../docs/a", None),
        ("https://example.org/other/x", None),
        ("//etc/passwd", None),
    ],
)
def test_the_file_a_url_names_stays_below_the_base_folder(url: str, below: str | None) -> None:
    assert Scope("https://example.org/docs/").file_below(url) == below


_REFERENCE_PIECES = [
    "a",
    "B",
    "/",
    ".",
    "..",
    "../",
    ":",
    "%",
    "%2e",
    "?",
    "#",
    ";",
    "//",
    "x.png",
    "@",
    "-",
    "~",
    " ",
    "\\",
]
_REFERENCE_PIECES += ["http://h.org", "https://h.org/", "HTTPS://h.org/", "mailto:", "https://[::1]/", "é"]
_BASES = [
    "https://example.org/",
    "https://example.org",
    "https://example.org/a/b/",
    "https://example.org/a/b/c/index.html",
    "https://example.org/a/b.html",
    "https://example.org/a//b/",
    "https://example.org/a/./b/",
    "https://example.org/a/../b",
    "http://h.example:8080/x",
    "https://example.org/a?q",
    "https://example.org/a#f",
    "https://example.org/a;p/b",
]


@settings(max_examples=3000, deadline=None)
@given(st.sampled_from(_BASES), st.lists(st.sampled_from(_REFERENCE_PIECES), min_size=1, max_size=6).map("".join))
def test_a_reference_resolves_as_urljoin_resolves_it(base: str, reference: str) -> None:
    """The quick readings of plain references (absolute, by path, relative) give
    what urljoin gives, and the same None for what is no web URL."""
    from urllib.parse import urljoin, urlsplit

    from sitemapkit.protocol.urls import resolve_web_reference

    try:
        target = urljoin(base, reference)
        expected = target if urlsplit(target).scheme.lower() in ("http", "https") else None
    except ValueError:
        expected = None
    assert resolve_web_reference(base, reference) == expected
