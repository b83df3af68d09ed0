"""One date module: the protocol's form, front-matter dates, and the block path's
byte patterns, all from sitemapkit.protocol.dates."""

from __future__ import annotations

import datetime as dt
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import io
from pathlib import Path

from sitemapkit import LastmodError, Options, Page, SitemapkitError, UrlError, build_site
from sitemapkit.engine.urllist import write_url_list
from sitemapkit.protocol import dates
from sitemapkit.protocol import encoder
from sitemapkit.protocol.encoder import EncodeResult, EntryWriter
from sitemapkit.protocol.urls import Scope


def test_the_encoder_reads_dates_without_the_git_code() -> None:
    source = open(encoder.__file__, encoding="utf-8").read()
    assert "lastmod import" not in source and "from . import lastmod" not in source
    assert not hasattr(encoder, "format_lastmod")


@settings(max_examples=300, deadline=None)
@given(
    st.datetimes(min_value=dt.datetime(1, 1, 1), max_value=dt.datetime(9999, 12, 31)),
    st.integers(-23 * 60 - 59, 23 * 60 + 59),
    st.sampled_from(["date", "Z", "offset"]),
)
def test_every_fixed_width_form_is_a_w3c_datetime_and_back(moment, minutes, form) -> None:
    """What the block path's patterns take, the careful path takes and writes as given."""
    moment = moment.replace(microsecond=0)
    if form == "date":
        text = moment.date().isoformat()
    elif form == "Z":
        text = moment.isoformat() + "Z"
    else:
        text = moment.replace(tzinfo=dt.timezone(dt.timedelta(minutes=minutes))).isoformat()
    index = ["date", "Z", "offset"].index(form)
    assert re.fullmatch(dates.FIXED_WIDTH_FORMS[index], text)
    assert dates.W3C_DATETIME.match(text)
    assert dates.written_lastmod(text)[0] == text


@settings(max_examples=300, deadline=None)
@given(st.from_regex(r"\A[0-9]{4}-[0-9]{2}-[0-9]{2}(T[0-9]{2}:[0-9]{2}:[0-9]{2}(Z|[+-][0-9]{2}:[0-9]{2}))?\Z"))
def test_the_pattern_takes_a_text_exactly_when_it_is_a_real_moment(text: str) -> None:
    """The calendar (leap years, month lengths, year 0) and the clock are the
    pattern's as they are Python's."""
    try:
        dates.parse_lastmod(text)
        real = text[:4] != "0000"
    except ValueError:
        real = False
    assert bool(dates.W3C_DATETIME.match(text)) == real
    assert any(re.fullmatch(form, text) for form in dates.FIXED_WIDTH_FORMS) == real


# Shapes with any digits, and any of the characters a line could hold instead.
_FIXED_WIDTH_SHAPED = r"\A[0-9]{4}-[0-9]{2}-[0-9]{2}(T[0-9]{2}:[0-9]{2}:[0-9]{2}(Z|[+-][0-9]{2}:[0-9]{2}))?\Z"


def _taken_one_by_one(lines: list[str]) -> bool:
    return all(any(re.fullmatch(form, line) for form in dates.FIXED_WIDTH_FORMS) for line in lines)


@settings(max_examples=500, deadline=None)
@given(
    st.lists(
        st.one_of(
            st.from_regex(_FIXED_WIDTH_SHAPED),
            # A shape with one character changed, dropped or added.
            st.tuples(
                st.from_regex(_FIXED_WIDTH_SHAPED), st.integers(0, 25), st.sampled_from("0123456789-:TZ+ x\t٢")
            ).map(lambda t: t[0][: t[1]] + t[2] + t[0][t[1] + 1 :]),
            st.tuples(st.from_regex(_FIXED_WIDTH_SHAPED), st.integers(0, 25)).map(
                lambda t: t[0][: t[1]] + t[0][t[1] + 1 :]
            ),
            st.tuples(st.from_regex(_FIXED_WIDTH_SHAPED), st.from_regex(_FIXED_WIDTH_SHAPED)).map("".join),
        ),
        min_size=1,
        max_size=6,
    )
)
def test_the_block_check_of_many_dates_takes_what_the_forms_take_one_by_one(lines: list[str]) -> None:
    """fixed_width_dates, the block path's check of a block's dates at once,
    says what FIXED_WIDTH_FORMS say of each line."""
    text = "".join(line + "\n" for line in lines).encode("utf-8")
    assert dates.fixed_width_dates(text) == _taken_one_by_one(lines)


@pytest.mark.parametrize(
    "line",
    [
        "2024-02-29",
        "2023-02-29",
        "1900-02-29",
        "2000-02-29",
        "0000-01-01",
        "0001-01-01",
        "2024-04-31",
        "2024-13-01",
        "2024-00-10",
        "2024-05-00",
        "2024-05-05T24:00:00Z",
        "2024-05-05T23:60:00Z",
        "2024-05-05T23:59:60Z",
        "2024-05-05T23:59:59+23:59",
        "2024-05-05T23:59:59+24:00",
        "2024-05-05T23:59:59+05:60",
        "2024-05-05T23:59:59-05:70",
        "2024-05-05T10:00:00-00:00",
        "2024-05-052024-05-05T10:00:00Z",
        "2024-05-05T10:00:00.5Z",
        "٢٠٢٤-05-01",
        "",
    ],
)
def test_the_block_check_of_many_dates_on_the_calendar_and_the_clock(line: str) -> None:
    text = (line + "\n").encode("utf-8")
    assert dates.fixed_width_dates(text) == _taken_one_by_one([line])
    # The same line among good ones, anywhere.
    good = b"2024-05-05\n2024-05-05T10:00:00Z\n"
    assert dates.fixed_width_dates(good + text + good) == _taken_one_by_one([line])


@pytest.mark.parametrize("value", ["2024-02-30", "2024-05-01T24:00:00Z", "yesterday", "2024-05-01 10:00", "٢٠٢٤-05-01"])
def test_written_lastmod_refuses_what_the_protocol_does_not_take(value: str) -> None:
    with pytest.raises(LastmodError):
        dates.written_lastmod(value)


_BASE = "https://example.org/"


def _entry(page: Page) -> None:
    EntryWriter(Options(base_url=_BASE), Scope(_BASE), EncodeResult()).entry(page)


def _build(page: Page, tmp_path: Path) -> None:
    build_site([page], Options(base_url=_BASE), tmp_path)


def _url_list(page: Page, tmp_path: Path) -> None:
    line = f"{page.loc}\t{page.lastmod}\n" if page.lastmod is not None else f"{page.loc}\n"
    write_url_list(io.BytesIO(line.encode()), Options(base_url=_BASE), tmp_path, EncodeResult())


_PATHS = {"encoder": lambda page, tmp_path: _entry(page), "build_site": _build, "url list": _url_list}


@pytest.mark.parametrize("path", sorted(_PATHS))
@pytest.mark.parametrize(
    ("page", "error"),
    [
        (Page("a", lastmod="yesterday"), LastmodError),
        (Page("a", lastmod="2023-02-29"), LastmodError),
        (Page("a\x85b"), UrlError),
    ],
)
def test_a_bad_date_is_a_lastmod_error_on_every_path(tmp_path: Path, path: str, page: Page, error: type) -> None:
    """A bad date says it is one (LastmodError), on every path that writes an
    entry; it is still a UrlError and a SitemapkitError, which callers catch.
    A bad URL is a UrlError, never a LastmodError."""
    if path == "build_site" and error is UrlError:
        pytest.skip("build_site reports a page whose URL cannot be written and goes on")
    with pytest.raises(SitemapkitError) as raised:
        _PATHS[path](page, tmp_path)
    assert type(raised.value) is error
    assert isinstance(raised.value, UrlError)


def test_one_format_function() -> None:
    assert dates.format_w3c("2024-05-01 10:00") == "2024-05-01T10:00:00+00:00"
    assert dates.written_lastmod(dt.date(2024, 5, 1)) == ("2024-05-01", dt.datetime(2024, 5, 1, tzinfo=dt.timezone.utc))


# ---- one rule for a moment: naive is UTC, whole seconds ---------------------------

_ZONES = [None, dt.timezone.utc, dt.timezone(dt.timedelta(hours=2)), dt.timezone(dt.timedelta(hours=-5, seconds=30))]


@settings(max_examples=300, deadline=None)
@given(
    st.datetimes(min_value=dt.datetime(1, 1, 2), max_value=dt.datetime(9999, 12, 30)),
    st.sampled_from(range(len(_ZONES))),
)
def test_every_reader_of_a_datetime_takes_naive_as_utc_to_the_second(moment: dt.datetime, zone: int) -> None:
    """Front matter (parse_lastmod), the encoder (written_lastmod, LastmodWriter),
    the newest member of a listing (lastmod_instant) and format_w3c hold a
    datetime as one moment: whole_second's."""
    value = moment if _ZONES[zone] is None else moment.replace(tzinfo=_ZONES[zone])
    expected = dates.whole_second(value)
    assert expected.utcoffset() is not None and expected.microsecond == 0
    assert dates.parse_lastmod(value) == expected
    assert dates.lastmod_instant(value) == expected
    text, instant = dates.written_lastmod(value)
    assert instant == expected
    assert dates.LastmodWriter().text(value) == text == dates.format_w3c(value)
    assert dates.written_lastmod(text)[1] == expected


@settings(max_examples=100, deadline=None)
@given(st.dates())
def test_a_day_stands_for_its_start_in_utc_on_every_path(day: dt.date) -> None:
    expected = dates.start_of_day(day)
    assert expected.utcoffset() == dt.timedelta(0) and expected.date() == day
    assert dates.lastmod_instant(day) == dates.written_lastmod(day)[1] == expected
    assert dates.written_lastmod(day.isoformat())[1] == dates.lastmod_instant(day.isoformat()) == expected


def test_git_and_file_times_are_one_moment_on_every_path(tmp_path: Path) -> None:
    """A commit time and a file time (seconds, a fraction too) become a lastmod
    the same way for build_site's dates (resolve_lastmods, git and mtime) and for
    sitemapkit build's file times: moment_of_timestamp's."""
    import os

    from conftest import git, sitemap_entries
    from sitemapkit import resolve_lastmods
    from sitemapkit.engine.folderbuild import build_folder

    site = tmp_path / "site"
    site.mkdir()
    stamps = {"a.html": 1_700_000_000.75, "b.html": 1_710_000_000.25}
    for name, stamp in stamps.items():
        (site / name).write_text("<html><head><title>t</title></head><body>x</body></html>")
        os.utime(site / name, (stamp, stamp))
    files = [site / name for name in stamps]
    by_mtime = resolve_lastmods(files, "mtime").dates
    assert {path.name: by_mtime[path] for path in files} == {
        name: dates.moment_of_timestamp(stamp) for name, stamp in stamps.items()
    }
    build_folder(site, Options(base_url=_BASE, lastmod="mtime"), workers=1)
    written = {loc.rsplit("/", 1)[1]: entry["lastmod"] for loc, entry in sitemap_entries(site).items()}
    assert written == {name: dates.format_w3c(dates.moment_of_timestamp(stamp)) for name, stamp in stamps.items()}

    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "a.md").write_text("a")
    committed = dt.datetime(2024, 5, 1, 10, 0, 7, tzinfo=dt.timezone(dt.timedelta(hours=2)))
    git(repo, "init", "-q")
    git(repo, "add", "a.md")
    git(repo, "commit", "-q", "-m", "a", when=committed)
    by_git = resolve_lastmods([repo / "a.md"], "git").dates
    assert by_git[repo / "a.md"] == dates.moment_of_timestamp(committed.timestamp())
    assert by_git[repo / "a.md"].utcoffset() == dt.timedelta(0)
