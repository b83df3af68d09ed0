"""Real MkDocs builds of fixtures/mkdocs, copied into tmp_path so nothing is written in the repository."""

from __future__ import annotations

import datetime as dt
import logging
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

# git: shared by every test folder (tests/conftest.py), re-exported for this one.
from conftest import git
import yaml

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "mkdocs"
# mkdocs-material 9.8 prints a banner about MkDocs 2 on every run unless told not to.
QUIET_ENV = {**os.environ, "DISABLE_MKDOCS_2_WARNING": "true", "NO_COLOR": "1"}


# The date of the fixture's one commit: every page's lastmod unless a test commits more.
FIRST_COMMIT = dt.datetime(2020, 5, 1, 10, 0, tzinfo=dt.timezone.utc)


class Project:
    """A copy of the fixture site whose mkdocs.yml a test may change."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.config_file = root / "mkdocs.yml"
        self.site = root / "site"

    def configure(self, *, sitemapkit: dict | None = None, drop: tuple[str, ...] = (), **settings) -> None:
        """Change top-level settings, remove some (``drop``) or add plugin options."""
        config = yaml.safe_load(self.config_file.read_text(encoding="utf-8"))
        config.update(settings)
        for key in drop:
            config.pop(key, None)
        if sitemapkit is not None:
            plugins = config["plugins"]
            for index, entry in enumerate(plugins):
                if entry == "sitemapkit":  # listed without settings
                    plugins[index] = entry = {"sitemapkit": {}}
                if isinstance(entry, dict) and "sitemapkit" in entry:
                    entry["sitemapkit"] = {**(entry["sitemapkit"] or {}), **sitemapkit}
        self.config_file.write_text(yaml.safe_dump(config, allow_unicode=True, sort_keys=False), encoding="utf-8")

    def build(self, *, site_dir: Path | None = None, dirty: bool = False, **overrides) -> Path:
        """Build in this process with the real MkDocs and return site_dir."""
        site_dir = site_dir or self.site
        from mkdocs.commands.build import build
        from mkdocs.config import load_config

        # The MkDocs CLI quiets these; in-process their debug output would flood the log.
        for name in ("MARKDOWN", "markdown", "watchdog"):
            logging.getLogger(name).setLevel(logging.WARNING)
        config = load_config(str(self.config_file), site_dir=str(site_dir), **overrides)
        build(config, dirty=dirty)
        return site_dir

    def cli(self, *args: str, timeout: float = 120) -> subprocess.CompletedProcess:
        """Run the mkdocs command line, as users do (exit status, messages, --strict)."""
        return subprocess.run(
            [sys.executable, "-m", "mkdocs", *args, "-f", str(self.config_file)],
            cwd=self.root,
            env=QUIET_ENV,
            capture_output=True,
            text=True,
            timeout=timeout,
        )


@pytest.fixture
def project(tmp_path: Path) -> Project:
    """The fixture in a git repository of its own, as real sites are.

    Without git the core falls back to file times, and a fresh checkout gives every
    file the same time: the core rightly warns that these tell nothing.
    """
    return Project(committed_copy(FIXTURE, tmp_path / "project"))


def committed_copy(fixture: Path, root: Path) -> Path:
    """A copy of ``fixture`` at ``root``, committed once at FIRST_COMMIT."""
    shutil.copytree(fixture, root)
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "fixture", when=FIRST_COMMIT)
    return root
