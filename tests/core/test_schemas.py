"""The sitemaps.org schemas every output check validates against.

Without ../shared/schemas beside the repository the schema part of those checks
is left out (their other assertions still run) and each test that passes without
its schema checks is reported as skipped, with how many it could not make.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import ROOT, SCHEMAS, SCHEMAS_MISSING, assert_valid


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


SCHEMA_ONLY_TESTS = '''
from conftest import assert_valid

URLSET = (
    b'<?xml version="1.0" encoding="UTF-8"?>\\n'
    b'<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>https://example.org/</loc></url></urlset>'
)


def test_schema_checks_only():
    assert_valid(URLSET)
    assert_valid(URLSET)


def test_schema_check_then_a_failing_assertion():
    assert_valid(URLSET)
    assert False, "an assertion that is no schema check"


def test_no_schema_check():
    assert URLSET
'''


def _run_with_schemas(tmp_path: Path, schemas: Path) -> subprocess.CompletedProcess:
    """Run SCHEMA_ONLY_TESTS with the shared helpers (tests/conftest.py, loaded as
    the plugin ``conftest``) and the schemas read from ``schemas``."""
    (tmp_path / "test_schema_only.py").write_text(SCHEMA_ONLY_TESTS)
    return subprocess.run(
        # No -P (Python 3.11+): the working folder, put on sys.path, is tmp_path.
        [sys.executable, "-m", "pytest", "-c", str(ROOT / "pyproject.toml"), "-p", "conftest",
         "-p", "no:cacheprovider", "-rA", str(tmp_path / "test_schema_only.py")],
        cwd=tmp_path, capture_output=True, text=True, env={**os.environ, "SITEMAPKIT_TEST_SCHEMAS": str(schemas)},
    )


def test_without_schemas_each_schema_check_is_reported_as_skipped(tmp_path: Path) -> None:
    missing = tmp_path / "no-schemas-here"
    result = _run_with_schemas(tmp_path, missing)
    out = result.stdout
    assert re.search(r"\b1 failed, 1 passed, 1 skipped\b", out), out
    assert re.search(
        rf"SKIPPED \[1\] \S*test_schema_only\.py:\d+: 2 schema checks not made \(.*{re.escape(str(missing))}", out
    ), out
    assert re.search(r"PASSED \S*::test_no_schema_check", out), out
    assert re.search(r"FAILED \S*::test_schema_check_then_a_failing_assertion", out), out


def test_with_schemas_the_schema_checks_are_made(tmp_path: Path, schemas_dir: Path) -> None:
    result = _run_with_schemas(tmp_path, schemas_dir)
    assert re.search(r"\b1 failed, 2 passed in\b", result.stdout), result.stdout
