"""The checks that keep one rule in one place: ruff (lint and format) over the
repository, and mypy over the core, which ships ``py.typed``.

They run in the test command, so CI fails on a lint or type error like on any
other failing test. The versions are pinned in the ``lint`` extra: a newer ruff
may format differently.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", *args], cwd=ROOT, capture_output=True, text=True, check=False)


@pytest.mark.parametrize(
    "command", [("ruff", "check", "--no-cache", "."), ("ruff", "format", "--check", "--no-cache", ".")]
)
def test_ruff(command: tuple[str, ...]) -> None:
    done = _run(*command)
    assert done.returncode == 0, done.stdout + done.stderr


def test_mypy_on_the_core() -> None:
    # Settings in pyproject.toml ([tool.mypy]): the core, strict about Optional and untyped calls.
    done = _run("mypy", "--no-incremental")
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_core_can_import_no_generator() -> None:
    """The banned-import rule (ruff TID251) is on for core/ and fires: a core module
    that imports a generator fails the lint (the module is read from standard input,
    nothing is written into core/)."""
    source = "import mkdocs\nfrom sphinx.application import Sphinx\nimport pelican.signals\n"
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "ruff",
            "check",
            "--no-cache",
            "--select",
            "TID251",
            "--stdin-filename",
            "core/probe.py",
            "-",
        ],
        cwd=ROOT,
        input=source,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 1
    for name in ("mkdocs", "sphinx", "pelican"):
        assert f"`{name}` is banned" in done.stdout, done.stdout
