"""Each source file's last change: one git pass, or file times; never a lie.

(stub: being written; the interface below is fixed)
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from collections.abc import Iterable
from pathlib import Path

from .model import Notice


@dataclasses.dataclass
class LastmodResult:
    #: Every path asked for -> its last change (UTC, timezone-aware) or None (unknown
    #: or untrustworthy: omit lastmod).
    dates: dict[Path, dt.datetime | None]
    notices: list[Notice] = dataclasses.field(default_factory=list)


def resolve_lastmods(sources: Iterable[Path], mode: str = "auto") -> LastmodResult:
    """Last change of each source file, by ``mode`` (auto | git | mtime | none)."""
    paths = [Path(p) for p in sources]
    if mode == "none":
        return LastmodResult({p: None for p in paths})
    dates = {}
    for p in paths:
        try:
            dates[p] = dt.datetime.fromtimestamp(int(p.stat().st_mtime), dt.timezone.utc)
        except OSError:
            dates[p] = None
    return LastmodResult(dates)
