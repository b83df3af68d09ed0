"""Real Pelican builds of fixtures/pelican, copied into tmp_path so nothing is written in the repository."""

from __future__ import annotations

import datetime as dt
import json
from importlib import metadata
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

# git: shared by every test folder (tests/conftest.py), re-exported for this one.
from conftest import git

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "pelican"
# Rich wraps Pelican's log lines at the terminal width; wide lines keep messages whole.
CLI_ENV = {**os.environ, "COLUMNS": "400", "NO_COLOR": "1", "TERM": "dumb"}

# The Pelican this environment runs (tests/tasks.py tests the oldest allowed and the newest).
PELICAN_VERSION = tuple(int(part) for part in metadata.version("pelican").split(".")[:2])

# The date of the fixture's one commit: the lastmod of every page without dates.
FIRST_COMMIT = dt.datetime(2020, 5, 1, 10, 0, tzinfo=dt.timezone.utc)




class Site:
    """A copy of the fixture site that a test may add files to, built with the real Pelican."""

    def __init__(self, root: Path, tmp_path: Path) -> None:
        self.root = root
        self.config_file = root / "pelicanconf.py"
        self.content = root / "content"
        self.output = tmp_path / "output"
        self.cache = tmp_path / "cache"

    def write(self, relative: str, text: str) -> Path:
        path = self.content / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        return path

    def settings(self, **overrides: Any) -> dict[str, Any]:
        from pelican.settings import read_settings

        return read_settings(
            str(self.config_file),
            override={"OUTPUT_PATH": str(self.output), "CACHE_PATH": str(self.cache), **overrides},
        )

    def build(self, **overrides: Any) -> Path:
        """Build in this process, as ``Pelican(settings).run()``; returns the output folder."""
        from pelican import Pelican

        Pelican(self.settings(**overrides)).run()
        return self.output

    def cli(self, *args: str, timeout: float = 120) -> subprocess.CompletedProcess:
        """Run the pelican command line, as users do (exit status, messages, --fatal)."""
        return subprocess.run(
            [sys.executable, "-m", "pelican", str(self.content), "-s", str(self.config_file),
             "-o", str(self.output), "-e", f"CACHE_PATH={json.dumps(str(self.cache))}", *args],
            cwd=self.root, env=CLI_ENV, capture_output=True, text=True, timeout=timeout,
        )


def copy_fixture(tmp_path: Path) -> Site:
    """The fixture in a git repository of its own, as real sites are.

    Without git the core falls back to file times, and a fresh copy gives every file
    the same time: the core rightly warns that these tell nothing.
    """
    root = tmp_path / "site"
    shutil.copytree(FIXTURE, root, ignore=shutil.ignore_patterns("output", "cache", "__pycache__"))
    if PELICAN_VERSION < (4, 10):
        # `status: skip` came with Pelican 4.10; 4.9 logs an error for it (fatal
        # under --fatal warnings) and skips the file all the same.
        (root / "content" / "articles" / "skipped.md").unlink()
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "fixture", when=FIRST_COMMIT)
    return Site(root, tmp_path)


@pytest.fixture
def site(tmp_path: Path) -> Site:
    """A fresh copy of the fixture for a test to change and build."""
    return copy_fixture(tmp_path)


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> Path:
    """The output folder of one build of the unchanged fixture, shared by a module's
    tests that only read it."""
    from pelican.log import LimitFilter

    LimitFilter._raised_messages.clear()
    return copy_fixture(tmp_path_factory.mktemp("built")).build()


@pytest.fixture(autouse=True)
def fresh_pelican_logging():
    """Pelican's log filter drops a message it has logged before in this process
    (and counts warnings for --fatal): each test starts with a clean slate."""
    from pelican.log import LimitFilter

    LimitFilter._raised_messages.clear()
    LimitFilter._group_count.clear()
    yield
    LimitFilter._raised_messages.clear()
