"""The environment benchmark children run in: sitemapkit as a pip-installed user has it.

``pip install sitemapkit`` compiles the package to bytecode once; every later
run loads it. A shell that sets ``PYTHONDONTWRITEBYTECODE=1`` (this project's
machine does), with the editable install the benchmarks use, makes every child
compile sitemapkit from source again, a cost no user pays and the floors (which
import little or nothing of sitemapkit) do not pay either. So before timing,
:func:`compile_sitemapkit` compiles the folders the environment imports, and
children run in :func:`child_environment`, which lets them use that bytecode
(and write what is still missing, as Python does by default).

The adapters' benchmarks share the rest: the per-round ratio summary, the
image files their sites show and the dated git history of their sources.

Nothing here imports sitemapkit: a benchmark's own process stays small, since
Linux folds its high-water RSS into every child's.
"""

from __future__ import annotations

import datetime as dt
import os
import subprocess
import sys
from pathlib import Path

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


def ratios(times: list[float], baseline: list[float]) -> list[float]:
    """Each round's ratio of ``times`` to ``baseline`` (measured side by side)."""
    return [time / base for time, base in zip(times, baseline)]


def ratio_summary(times: list[float], baseline: list[float]) -> str:
    """The median of the per-round ratios and their range: ``1.021x (0.990-1.060x)``.
    Machine load only ever adds time, to either side: the range shows how far a
    single round can be trusted, the median what the rounds agree on."""
    import statistics

    each = ratios(times, baseline)
    return f"{statistics.median(each):.3f}x ({min(each):.3f}-{max(each):.3f}x)"


#: A 1x1 transparent PNG: image files the generated sites show, so that images
#: are really found (and listed) where the sitemap's image entries are on.
TINY_PNG = bytes.fromhex(
    "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
    "1f15c4890000000b4944415478da636000020000050001e9fadcd80000000049454e44ae426082"
)


#: The dated history of a generated site (commit_history): its files arrive over
#: this many commits, a month apart from this date.
COMMITS = 12
FIRST_DATE = dt.datetime(2023, 1, 1, 12, 0, tzinfo=dt.timezone.utc)


def git(root: Path, *args: str, when: dt.datetime | None = None) -> None:
    """Run git in ``root`` without the user's configuration; ``when``: the commit's date."""
    env = {
        **os.environ,
        "GIT_CONFIG_GLOBAL": os.devnull,
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_AUTHOR_NAME": "bench",
        "GIT_AUTHOR_EMAIL": "bench@example.org",
        "GIT_COMMITTER_NAME": "bench",
        "GIT_COMMITTER_EMAIL": "bench@example.org",
    }
    if when is not None:
        env["GIT_AUTHOR_DATE"] = env["GIT_COMMITTER_DATE"] = when.isoformat()
    subprocess.run(["git", *args], cwd=root, env=env, check=True, capture_output=True)


def commit_history(root: Path, paths: list[Path]) -> None:
    """A git work tree at ``root`` whose ``paths`` arrive over COMMITS dated
    commits, a month apart, every fifth commit also editing some older ones (as
    real sites do, so git dates have real work to do); a last commit adds the
    rest of the folder."""
    git(root, "init", "-q")
    batch = (len(paths) + COMMITS - 1) // COMMITS
    for commit in range(COMMITS):
        when = FIRST_DATE + dt.timedelta(days=30 * commit)
        if commit % 5 == 4:
            for path in paths[: commit * batch : 7]:
                with path.open("a") as f:
                    f.write(f"\nRevised in commit {commit}.\n")
        added = [str(p) for p in paths[commit * batch : (commit + 1) * batch]]
        if added:
            git(root, "add", "--", *added)
        # A small site runs out of files before the last commits: those are empty.
        git(root, "commit", "-q", "-a", "--allow-empty", "-m", f"commit {commit}", when=when)
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "the rest", when=FIRST_DATE + dt.timedelta(days=30 * COMMITS))
