"""W3C Datetime: the one place dates are read and written. Pure: no I/O, no clock.

sitemaps.org/protocol.html, <lastmod>: "This date should be in W3C Datetime format.
This format allows you to omit the time portion, if desired, and use YYYY-MM-DD."
The W3C note (https://www.w3.org/TR/NOTE-datetime) admits a full date, optionally
followed by hh:mm, hh:mm:ss or hh:mm:ss.s and a time zone (``Z`` or ``+hh:mm``).

Three users, one definition:

* :data:`W3C_DATETIME` says whether a text is a lastmod the protocol admits, to
  the calendar day (``2023-02-29`` is not one); the encoder writes such a text as
  given and ``sitemapkit check`` holds other sitemaps to it.
* :func:`parse_lastmod` reads the looser forms people and YAML write in front
  matter (a space for ``T``, no zone, ``+hhmm``) and :func:`format_w3c` writes
  any of them in the protocol's form.
* :data:`FIXED_WIDTH_FORMS` are the forms ``sitemapkit generate``'s block path
  takes; they are built from the same pieces as :data:`W3C_DATETIME`, so a date
  the block path takes is one the careful path takes too. The block path checks
  a block's dates with :func:`fixed_width_dates`, whole-text operations that
  tests/core/test_dates.py holds to these forms, text by text.
"""

from __future__ import annotations

import collections
import datetime as dt
import re
from typing import Union

from .errors import LastmodError
from .patterns import deferred

Lastmod = Union[dt.date, dt.datetime, str, None]

_UTC = dt.timezone.utc


# ---- moments as the sitemap holds them ----------------------------------------------


def whole_second(moment: dt.datetime) -> dt.datetime:
    """``moment`` as a lastmod holds it: a naive datetime is taken as UTC (the
    zone git, file times and generators' naive dates mean), and it is cut to the
    whole second, the precision the sitemap is written with."""
    if moment.utcoffset() is None:
        moment = moment.replace(tzinfo=_UTC)
    return moment.replace(microsecond=0) if moment.microsecond else moment


def start_of_day(day: dt.date) -> dt.datetime:
    """The moment a lastmod that is a day stands for (to compare it with times):
    the day's start in UTC."""
    return dt.datetime(day.year, day.month, day.day, tzinfo=_UTC)


def moment_of_timestamp(seconds: float) -> dt.datetime:
    """A git commit time or a file time (seconds since the epoch) as the moment
    it is: UTC, to the whole second (:func:`whole_second`)."""
    return dt.datetime.fromtimestamp(int(seconds), _UTC)


# ---- the pieces of the protocol's form ---------------------------------------------
# Plain (non-capturing) regular expression text, valid as str and as bytes patterns.

# Years 0001 to 9999 (Python's dates, and the four digits W3C Datetime has).
_YEAR = r"(?:[1-9][0-9]{3}|0[1-9][0-9][0-9]|00[1-9][0-9]|000[1-9])"
# Leap years: divisible by 4, except centuries not divisible by 400.
_LEAP_YEAR = r"(?:[0-9][0-9](?:0[48]|[2468][048]|[13579][26])|(?:0[48]|[2468][048]|[13579][26])00)"
#: YYYY-MM-DD, a day that exists.
DATE = (
    r"(?:" + _YEAR + r"-(?:(?:0[1-9]|1[0-2])-(?:0[1-9]|1[0-9]|2[0-8])|(?:0[13-9]|1[0-2])-(?:29|30)"
    r"|(?:0[13578]|1[02])-31)|" + _LEAP_YEAR + r"-02-29)"
)
_HOUR_MINUTE = r"T(?:[01][0-9]|2[0-3]):[0-5][0-9]"
#: Thh:mm:ss, whole seconds (what the encoder writes).
TIME = _HOUR_MINUTE + r":[0-5][0-9]"
#: +hh:mm or -hh:mm.
OFFSET = r"[+-](?:[01][0-9]|2[0-3]):[0-5][0-9]"
_ZONE = r"(?:Z|" + OFFSET + r")"

#: A lastmod as the protocol admits it, to the calendar day and clock minute.
W3C_DATETIME = deferred(DATE + r"(?:" + _HOUR_MINUTE + r"(?::[0-5][0-9](?:\.[0-9]+)?)?" + _ZONE + r")?\Z")

#: The forms of a fixed width (so a byte pattern can look behind for them): a
#: date; a time to the second in UTC ("Z"); a time to the second with an offset.
#: Each is a W3C_DATETIME form (tests/core/test_dates.py holds them to it).
FIXED_WIDTH_FORMS = (DATE, DATE + TIME + "Z", DATE + TIME + OFFSET)

# Each fixed-width form with every digit written as 0, and its line break: a
# line holds one of these forms when its digits so written give one of these.
_FIXED_WIDTH_SHAPES = (
    b"0000-00-00\n",
    b"0000-00-00T00:00:00Z\n",
    b"0000-00-00T00:00:00+00:00\n",
    b"0000-00-00T00:00:00-00:00\n",
)
# In those forms a colon is followed by the tens of a minute or second (the
# offset's too): 0 to 5. Digits 0-5 written as 0 and 6-9 as 6 show a greater one
# as ":6"; then 6 as 0 gives the shapes.
_TENS_OVER_FIVE = bytes.maketrans(b"0123456789", b"0000006666")
_DIGITS_AS_ZERO = bytes.maketrans(b"6", b"0")


def fixed_width_dates(lines: bytes) -> bool:
    """Whether each line of ``lines`` (each ending in a line break) is a date in
    one of :data:`FIXED_WIDTH_FORMS`: a check for many dates at once, in C.

    The shapes are counted: each shape holds one line break, at its end, and no
    shape ends another, so shapes found in the text never overlap, and they fill
    it only if every line is one. Then the values: minutes, seconds and offset
    minutes below 60, and the day, month, year, hour and offset as datetime
    reads them (every date it takes in these shapes is one the forms take).
    """
    if not lines.endswith(b"\n"):
        return False
    digits = lines.translate(_TENS_OVER_FIVE)
    if b":6" in digits:
        return False
    shapes = digits.translate(_DIGITS_AS_ZERO)
    if sum(shapes.count(shape) * len(shape) for shape in _FIXED_WIDTH_SHAPES) != len(lines):
        return False
    # Python before 3.11 reads no "Z".
    texts = lines[:-1].decode("ascii").replace("Z", "+00:00").split("\n")
    try:
        collections.deque(map(dt.datetime.fromisoformat, texts), maxlen=0)
    except ValueError:
        return False
    return True


# ---- front-matter dates -------------------------------------------------------------

# W3C Datetime, and what YAML and people write for it: a space instead of "T", a
# missing zone (taken as UTC), +hhmm, a lowercase z. Field ranges are checked by
# datetime itself, whose words name the bad field.
_LOOSE_DATETIME = deferred(
    r"""
    (?P<year>\d{4})-(?P<month>\d{2})-(?P<day>\d{2})
    (?:
        [Tt\ ]
        (?P<hour>\d{2}):(?P<minute>\d{2})
        (?::(?P<second>\d{2})(?:[.,]\d+)?)?
        \ ?
        (?P<zone>[Zz]|[+-]\d{2}(?::?\d{2})?)?
    )?
    """,
    # ASCII: int() would also read other scripts' digits, which no date format uses.
    re.VERBOSE | re.ASCII,
)

_EXPECTED = "a date like 2024-05-01, 2024-05-01 10:00 or 2024-05-01T10:00:00+02:00"


def parse_lastmod(value: object) -> dt.date | dt.datetime:
    """A front-matter date as a ``date`` or a timezone-aware ``datetime``.

    Dates without a time stay dates; naive datetimes are taken as UTC; times are
    cut to whole seconds, the precision the sitemap is written with. Raises
    ``ValueError`` naming the value for anything else.
    """
    if isinstance(value, dt.datetime):
        return whole_second(value)
    if isinstance(value, dt.date):
        return value
    if not isinstance(value, str):
        raise ValueError(f"lastmod {value!r} is a {type(value).__name__}, not a date: expected {_EXPECTED}")
    text = value.strip()
    match = _LOOSE_DATETIME.fullmatch(text)
    if not match:
        raise ValueError(f"lastmod {value!r} is not a date: expected {_EXPECTED}")
    part = match.groupdict()
    try:
        day = dt.date(int(part["year"]), int(part["month"]), int(part["day"]))
        if part["hour"] is None:
            return day
        zone = _parse_zone(part["zone"])
        return dt.datetime(
            day.year,
            day.month,
            day.day,
            int(part["hour"]),
            int(part["minute"]),
            int(part["second"] or 0),
            tzinfo=zone,
        )
    except ValueError as error:
        # datetime's own words ("month must be in 1..12") name the bad field.
        raise ValueError(f"lastmod {value!r} is not a valid date: {error}") from None


def _parse_zone(text: str | None) -> dt.timezone:
    if text is None or text in ("Z", "z"):
        return _UTC
    sign = -1 if text[0] == "-" else 1
    digits = text[1:].replace(":", "")
    hours, minutes = int(digits[:2]), int(digits[2:] or 0)
    if hours > 23 or minutes > 59:
        raise ValueError(f"time zone offset {text} is out of range")
    return dt.timezone(sign * dt.timedelta(hours=hours, minutes=minutes))


# ---- writing -------------------------------------------------------------------------


def format_w3c(value: object) -> str:
    """W3C Datetime for ``<lastmod>``: ``YYYY-MM-DD`` or ``YYYY-MM-DDThh:mm:ss+HH:MM``.

    Accepts whatever :func:`parse_lastmod` accepts. Datetimes keep their own offset
    (UTC prints as +00:00); an offset with seconds, which W3C Datetime cannot
    express, is converted to UTC.
    """
    moment = parse_lastmod(value)
    if not isinstance(moment, dt.datetime):
        return f"{moment.year:04d}-{moment.month:02d}-{moment.day:02d}"
    offset = moment.utcoffset() or dt.timedelta(0)
    if offset % dt.timedelta(minutes=1):
        moment, offset = moment.astimezone(_UTC), dt.timedelta(0)
    sign = "-" if offset < dt.timedelta(0) else "+"
    offset_minutes = abs(offset) // dt.timedelta(minutes=1)
    return (
        f"{moment.year:04d}-{moment.month:02d}-{moment.day:02d}"
        f"T{moment.hour:02d}:{moment.minute:02d}:{moment.second:02d}"
        f"{sign}{offset_minutes // 60:02d}:{offset_minutes % 60:02d}"
    )


def written_lastmod(value: Lastmod) -> tuple[str, dt.datetime] | None:
    """The ``<lastmod>`` text the sitemap gets for a page's lastmod, and the instant
    it stands for (to find the newest); None for no lastmod.

    Dates stay dates (``2024-05-01``); datetimes keep their offset to the second
    (``2024-05-01T10:00:00+02:00``); naive datetimes are taken as UTC. A string
    must already be W3C Datetime, and is written as given (stripped). Raises
    :class:`LastmodError` for anything else.
    """
    if value is None:
        return None
    if isinstance(value, dt.datetime):
        value = whole_second(value)
        # The common case, kept fast: an offset in whole minutes prints as it is.
        offset = value.utcoffset()
        if offset is not None and not offset.seconds % 60 and not offset.microseconds:
            return value.isoformat(), value
    elif type(value) is dt.date:
        return value.isoformat(), start_of_day(value)
    if isinstance(value, str) and not W3C_DATETIME.match(value.strip()):
        raise LastmodError(f"lastmod {value!r} is not a W3C Datetime (YYYY-MM-DD or YYYY-MM-DDThh:mm:ss+00:00)")
    try:
        parsed = parse_lastmod(value)
    except ValueError as error:
        raise LastmodError(str(error)) from None
    text = value.strip() if isinstance(value, str) else format_w3c(parsed)
    if isinstance(parsed, dt.datetime):
        return text, parsed
    return text, start_of_day(parsed)


def lastmod_instant(value: Lastmod) -> dt.datetime | None:
    """``written_lastmod(value)[1]``, the moment a lastmod stands for, without
    writing out the text for the datetimes and dates adapters mostly give; a day
    stands for its start in UTC."""
    if type(value) is dt.date:
        return start_of_day(value)
    if isinstance(value, dt.datetime):
        return whole_second(value)
    written = written_lastmod(value)
    return None if written is None else written[1]


class LastmodWriter:
    """:func:`written_lastmod`'s text, kept fast for the aware datetimes adapters
    mostly give (one per page): no instant worked out, and no isoformat(), which
    asks the time zone for its offset again (a zoneinfo zone works it out each time)."""

    def __init__(self) -> None:
        # UTC offset -> how it is written ("+02:00"); a site has a few.
        self.zones: dict[dt.timedelta, str] = {}

    def text(self, value: Lastmod) -> str | None:
        if isinstance(value, dt.datetime):
            offset = value.utcoffset()
            if offset is not None and not offset.seconds % 60 and not offset.microseconds:
                zone = self.zones.get(offset)
                if zone is None:
                    zone = self.zones[offset] = value.isoformat(timespec="seconds")[19:]
                return "%04d-%02d-%02dT%02d:%02d:%02d%s" % (
                    value.year,
                    value.month,
                    value.day,
                    value.hour,
                    value.minute,
                    value.second,
                    zone,
                )
        written = written_lastmod(value)
        return None if written is None else written[0]


def newest_written(texts: list[bytes]) -> str | None:
    """The newest of lastmod texts as written (ASCII bytes; empty ones ignored).

    Offsets stay within a day of UTC, so nothing whose calendar day is two days
    before the latest day written can be the newest: only the few texts near the
    top are parsed and compared as instants.
    """
    latest = max(texts, default=b"")
    if not latest:
        return None
    floor = (dt.date.fromisoformat(latest[:10].decode("ascii")) - dt.timedelta(days=2)).isoformat().encode("ascii")
    candidates = {text.decode("ascii") for text in filter(floor.__le__, texts)}
    return max(sorted(candidates), key=lambda text: written_lastmod(text)[1])  # type: ignore[index]
