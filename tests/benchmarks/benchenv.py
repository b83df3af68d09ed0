"""The environment benchmark children run in: sitemapkit as a pip-installed user has it.

``pip install sitemapkit`` compiles the package to bytecode once; every later
run loads it. A shell that sets ``PYTHONDONTWRITEBYTECODE=1`` (this project's
machine does), with the editable install the benchmarks use, makes every child
compile sitemapkit from source again, a cost no user pays and the floors (which
import little or nothing of sitemapkit) do not pay either. So before timing,
:func:`compile_sitemapkit` compiles the folders the environment imports, and
children run in :func:`child_environment`, which lets them use that bytecode
(and write what is still missing, as Python does by default).

Nothing here imports sitemapkit: a benchmark's own process stays small, since
Linux folds its high-water RSS into every child's.
"""

from __future__ import annotations

import os
import subprocess
import sys

# The folders of the tree the environment imports: sitemapkit (core/) and
# sitemapkit.plugins (plugins/), wherever the install put them.
_PACKAGE_FOLDERS = (
    "import importlib.util\n"
    "for name in ('sitemapkit', 'sitemapkit.plugins'):\n"
    "    for folder in importlib.util.find_spec(name).submodule_search_locations:\n"
    "        print(folder)\n"
)


def child_environment() -> dict[str, str]:
    """This process's environment without ``PYTHONDONTWRITEBYTECODE``."""
    return {name: value for name, value in os.environ.items() if name != "PYTHONDONTWRITEBYTECODE"}


def compile_sitemapkit(python: str = sys.executable) -> list[str]:
    """Compile the sitemapkit package that ``python`` imports, as pip does at install
    (timestamp-checked ``.pyc`` files in ``__pycache__``); the folders compiled."""
    environment = child_environment()
    found = subprocess.run(
        [python, "-c", _PACKAGE_FOLDERS], capture_output=True, text=True, check=True, env=environment
    )
    folders = sorted(set(found.stdout.splitlines()))
    # compileall writes whatever PYTHONDONTWRITEBYTECODE says; -q still shows errors.
    subprocess.run(
        [python, "-m", "compileall", "-q", "--invalidation-mode", "timestamp", *folders],
        check=True,
        env=environment,
    )
    return folders
