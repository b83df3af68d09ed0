"""Built-page checks: noindex, canonical elsewhere, meta-refresh redirect stubs.

(stub: being written; the interface below is fixed)
"""

from __future__ import annotations

from pathlib import Path


def check_built_page(
    path: Path, url: str, *, noindex: bool = True, canonical: bool = True, redirects: bool = True
) -> tuple[str | None, str | None]:
    """Read only the head of the built HTML file ``path`` published at ``url``.

    Returns ``(reason, canonical_target)``: ``reason`` is ``"noindex"``,
    ``"canonical"`` or ``"redirect"`` when the page must be left out, else None;
    ``canonical_target`` is the absolute URL the page names as canonical when it
    points elsewhere, else None.
    """
    return None, None
