"""One date module: the protocol's form, front-matter dates, and the block path's
byte patterns, all from sitemapkit.protocol.dates."""

from __future__ import annotations

import datetime as dt
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sitemapkit import UrlError
from sitemapkit.protocol import dates
from sitemapkit.protocol import encoder


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


@pytest.mark.parametrize("value", ["2024-02-30", "2024-05-01T24:00:00Z", "yesterday", "2024-05-01 10:00", "٢٠٢٤-05-01"])
def test_written_lastmod_refuses_what_the_protocol_does_not_take(value: str) -> None:
    with pytest.raises(UrlError):
        dates.written_lastmod(value)


def test_one_format_function() -> None:
    assert dates.format_w3c("2024-05-01 10:00") == "2024-05-01T10:00:00+00:00"
    assert dates.written_lastmod(dt.date(2024, 5, 1)) == ("2024-05-01", dt.datetime(2024, 5, 1, tzinfo=dt.timezone.utc))
