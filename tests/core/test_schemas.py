"""The sitemaps.org schemas every output check validates against.

Without ../shared/schemas beside the repository the schema part of those checks
is left out (their other assertions still run), and this test says so, once.
"""

from __future__ import annotations

import pytest

from conftest import SCHEMAS, SCHEMAS_MISSING, assert_valid


def test_sitemaps_org_schemas_are_there_and_reject_a_bad_sitemap() -> None:
    if not SCHEMAS.exists():
        pytest.skip(SCHEMAS_MISSING)
    bad = (
        b'<?xml version="1.0" encoding="UTF-8"?>\n'
        b'<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'
        b"<url><lastmod>2024-01-01</lastmod><loc>https://example.org/</loc></url></urlset>"
    )
    with pytest.raises(AssertionError, match="not valid"):
        assert_valid(bad)
