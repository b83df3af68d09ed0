"""Benchmark of the core's lastmod pass (issues 6 and 12) against the MkDocs build it runs in.

    .venvs/mkdocs/bin/python tests/benchmarks/bench_lastmod.py [--pages N] [--commits C] [--rounds R] [--assert]

Generates an N-page MkDocs site (default 2,000) in a git repository with C commits
(default 2,000; made with ``git fast-import``: one commit adds every page and the
shared files pages include, the rest each edit one page or included file, every
25th renames a page, and every 10th step is a side branch of 3 commits merged
with a merge commit, one of them repeating content main already has), plus one
page generated outside the repository, as mkdocs-gen-files writes it. Each page
includes one of 40 shared files (as Sphinx pages include CHANGES files), and 50
ignored, installed files (a virtual environment's) are included too. Then it
measures side by side, alternating, R rounds each (median):

- ``mkdocs build`` with no plugin but search: the build every other figure is
  compared with;
- ``resolve_lastmods`` over every page source and included file, in this
  process (first-parent history, one pass per repository): target at most 5% of
  that build;
- ``mkdocs build`` with ``git-revision-date-localized`` added, the usual way MkDocs
  sites get git dates (needs ``pip install mkdocs-git-revision-date-localized-plugin``
  in this environment): its ratio to the plain build is reported.

Before timing, the dates are checked against ``git log -1 --first-parent`` run per
file (one process each) on a sample, renamed pages and included files first, so a
fast wrong answer cannot pass.
It is a benchmark, not a test: it exits 0 whatever the figures, unless ``--assert``.
"""

from __future__ import annotations

import argparse
import datetime as dt
import importlib.util
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from sitemapkit.site.lastmod import resolve_lastmods

TARGET_SHARE = 0.05
START = int(dt.datetime(2021, 1, 1, tzinfo=dt.timezone.utc).timestamp())
# Every 25th commit is a pure rename, as on a real site that has been reorganised.
RENAME_EVERY = 25
# Every 10th step is a side branch of SIDE_COMMITS commits and a merge commit, so
# the first-parent pass meets merges whose changes land after their commits.
MERGE_EVERY = 10
SIDE_COMMITS = 3
SECTIONS = 20
# Shared files pages include (page i includes number i % INCLUDED_FILES), and
# ignored files they also name (installed modules): git dates the first, not the second.
INCLUDED_FILES = 40
INSTALLED_FILES = 50
# Per-file `git log -1` on this many pages: enough to catch a wrong date, few
# enough to stay out of the benchmark's time.
CHECK_SAMPLE = 40

_PARAGRAPH = (
    "Sitemaps tell crawlers which pages exist and when each last changed. This "
    "paragraph is filler of a realistic length, with `code`, *emphasis* and a "
    "[link](../index.md) so that Markdown has some work to do on every page.\n\n"
)


def page_text(index: int, revision: int) -> str:
    return f"# Page {index}\n\nRevision {revision}.\n\n" + _PARAGRAPH * 6 + f"## Details\n\n{_PARAGRAPH * 3}"


def page_path(index: int, generation: int = 0) -> str:
    suffix = f"-v{generation}" if generation else ""
    return f"docs/section-{index % SECTIONS:02d}/page-{index:05d}{suffix}.md"


def included_path(number: int) -> str:
    return f"includes/part-{number:03d}.md"


def make_site(root: Path, pages: int, commits: int, seed: int = 6) -> None:
    """The repository: mkdocs configs at the top, pages under docs/, C commits."""
    env = git_env()
    subprocess.run(["git", "init", "-q", "-b", "main", str(root)], check=True, env=env)
    stream: list[bytes] = []

    def commit(when: int, changes: list[str]) -> None:
        stream.append(
            f"commit refs/heads/main\ncommitter Bench <bench@example.invalid> {when} +0000\ndata 6\nchange\n".encode()
        )
        stream.extend(line.encode() for line in changes)

    def inline(path: str, text: str) -> str:
        data = text.encode()
        return f"M 100644 inline {path}\ndata {len(data)}\n{text}\n"

    plain = "site_name: Lastmod bench\nsite_url: https://example.org/\nplugins:\n  - search\n"
    gitrev = plain + "  - git-revision-date-localized:\n      type: iso_datetime\n"
    generation = [0] * pages
    first = [inline("mkdocs.yml", plain), inline("mkdocs-gitrev.yml", gitrev), inline("docs/index.md", "# Home\n")]
    first += [inline(".gitignore", ".venv/\n")]
    first += [inline(page_path(i), page_text(i, 0)) for i in range(pages)]
    first += [inline(included_path(k), page_text(k, 0)) for k in range(INCLUDED_FILES)]
    commit(START, first)
    rng = random.Random(seed)
    current = [page_text(i, 0) for i in range(pages)]  # each page's latest content

    def change(number: int) -> str:
        if rng.random() < 0.2:
            return inline(included_path(rng.randrange(INCLUDED_FILES)), page_text(-1, number))
        index = rng.randrange(pages)
        current[index] = page_text(index, number)
        return inline(page_path(index, generation[index]), current[index])

    number = 1
    while number < commits:
        when = START + number * 3600
        if number % MERGE_EVERY == 0 and number + SIDE_COMMITS < commits:
            # A side branch from main; the merge commit carries its changes (its
            # tree is main's plus them), dated after them.
            side = [change(number + k) for k in range(SIDE_COMMITS - 1)]
            # The last side commit repeats what main already has: no change lands.
            repeated = rng.randrange(pages)
            side.append(inline(page_path(repeated, generation[repeated]), current[repeated]))
            for k, line in enumerate(side):
                head = "from refs/heads/main\n" if k == 0 else ""
                stream.append(
                    f"commit refs/heads/side\ncommitter Bench <bench@example.invalid> {when + k * 60} +0000\n"
                    f"data 4\nside\n{head}".encode()
                )
                stream.append(line.encode())
            number += SIDE_COMMITS
            stream.append(
                f"commit refs/heads/main\ncommitter Bench <bench@example.invalid> {START + number * 3600} +0000\n"
                f"data 5\nmerge\nmerge refs/heads/side\n".encode()
            )
            stream.extend(line.encode() for line in side)
            number += 1
            continue
        if number % RENAME_EVERY == 0:
            index = rng.randrange(pages)
            old = page_path(index, generation[index])
            generation[index] += 1
            commit(when, [f"R {old} {page_path(index, generation[index])}\n"])
        else:
            line = change(number)
            commit(when, [line])
        number += 1
    subprocess.run(["git", "fast-import", "--quiet"], cwd=root, input=b"".join(stream), check=True, env=env)
    subprocess.run(["git", "reset", "-q", "--hard", "main"], cwd=root, check=True, env=env)
    for number in range(INSTALLED_FILES):
        installed = root / ".venv" / "lib" / f"module_{number:03d}.py"
        installed.parent.mkdir(parents=True, exist_ok=True)
        installed.write_text("# installed\n")


def git_env() -> dict[str, str]:
    # The same answers whatever the user's git config says.
    return {**os.environ, "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"}


def sources(root: Path) -> list[Path]:
    """Every page source: the repository's, and one generated outside it."""
    generated = root.parent / "generated" / "api.md"
    generated.parent.mkdir(exist_ok=True)
    generated.write_text("# API\n")
    return [*sorted((root / "docs").rglob("*.md")), generated]


def includes(root: Path) -> list[Path]:
    """Every file pages include: the shared parts (in git) and installed modules (ignored)."""
    return [*sorted((root / "includes").glob("*.md")), *sorted((root / ".venv").rglob("*.py"))]


def check_dates(root: Path, pages: list[Path], included: list[Path]) -> None:
    result = resolve_lastmods(pages, "auto", included)
    generated = {p for p in pages if root not in p.parents}
    undated = {p for p, d in result.dates.items() if d is None}
    expected_undated = generated | {p for p in included if ".venv" in p.parts}
    if undated != expected_undated or result.notices or result.not_in_git != generated:
        raise SystemExit(
            f"lastmod pass failed: {len(undated - expected_undated)} files without a date, "
            f"{len(expected_undated - undated)} dated that should not be; notices {result.notices}"
        )
    # Renamed pages and included files first: renames and merges are where a fast
    # pass could go wrong.
    in_git = [p for p in pages if p not in generated]
    renamed = [p for p in in_git if "-v" in p.stem][: CHECK_SAMPLE // 3]
    shared = [p for p in included if ".venv" not in p.parts][: CHECK_SAMPLE // 3]
    others = [p for p in in_git if p not in renamed]
    sample = (
        renamed + shared + random.Random(1).sample(others, min(CHECK_SAMPLE - len(renamed) - len(shared), len(others)))
    )
    for path in sample:
        expected = last_change_on_branch(root, path)
        if result.dates[path] != expected:
            raise SystemExit(f"wrong date for {path}: {result.dates[path]} (git log --first-parent says {expected})")


def last_change_on_branch(root: Path, path: Path) -> dt.datetime:
    """The reference answer, one process per file: the newest commit of the
    branch's first-parent chain that changed the file under its current name."""
    out = subprocess.run(
        ["git", "log", "-1", "--first-parent", "--format=%ct", "--", str(path.relative_to(root))],
        cwd=root,
        capture_output=True,
        text=True,
        check=True,
        env=git_env(),
    ).stdout.strip()
    if not out:
        raise SystemExit(f"no change of {path} in its history")
    return dt.datetime.fromtimestamp(int(out), dt.timezone.utc)


def time_build(root: Path, config: str, out: Path) -> float:
    begin = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "-q", "-f", str(root / config), "-d", str(out)],
        check=True,
        env=git_env(),
    )
    return time.perf_counter() - begin


def time_lastmod(pages: list[Path], included: list[Path]) -> float:
    begin = time.perf_counter()
    resolve_lastmods(pages, "auto", included)
    return time.perf_counter() - begin


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pages", type=int, default=2000)
    parser.add_argument("--commits", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--keep", action="store_true", help="keep the generated site and print where it is")
    parser.add_argument("--assert", dest="check", action="store_true", help="exit 1 when over the 5%% target")
    args = parser.parse_args()
    if args.pages < 1 or args.commits < 1 or args.rounds < 1:
        parser.error("--pages, --commits and --rounds must be at least 1")

    has_gitrev = importlib.util.find_spec("mkdocs_git_revision_date_localized_plugin") is not None
    work = Path(tempfile.mkdtemp(prefix="bench-lastmod-"))
    try:
        root = work / "site"
        begin = time.perf_counter()
        make_site(root, args.pages, args.commits)
        pages = sources(root)
        included = includes(root)
        print(
            f"site: {len(pages)} pages, {len(included)} included files, {args.commits} commits, "
            f"made in {time.perf_counter() - begin:.1f} s",
            flush=True,
        )
        check_dates(root, pages, included)
        print(
            f"dates checked against per-file `git log -1 --first-parent` on {min(CHECK_SAMPLE, len(pages))} files",
            flush=True,
        )

        timings: dict[str, list[float]] = {"plain": [], "lastmod": [], "gitrev": []}
        for round_number in range(1, args.rounds + 1):
            timings["plain"].append(time_build(root, "mkdocs.yml", work / "out-plain"))
            timings["lastmod"].append(time_lastmod(pages, included))
            if has_gitrev:
                timings["gitrev"].append(time_build(root, "mkdocs-gitrev.yml", work / "out-gitrev"))
            shown = ", ".join(f"{name} {values[-1]:.3f} s" for name, values in timings.items() if values)
            print(f"round {round_number}: {shown}", flush=True)

        plain = statistics.median(timings["plain"])
        lastmod = statistics.median(timings["lastmod"])
        share = lastmod / plain
        print(f"\nmedian of {args.rounds} rounds, {len(pages)} pages, {args.commits} commits:")
        print(f"  mkdocs build (search only)        {plain:8.3f} s")
        print(
            f"  resolve_lastmods (git pass)       {lastmod:8.3f} s   {share:6.1%} of the build (target <= {TARGET_SHARE:.0%})"
        )
        if has_gitrev:
            gitrev = statistics.median(timings["gitrev"])
            print(
                f"  mkdocs build + git-revision-date  {gitrev:8.3f} s   {gitrev / plain:6.2f}x the build "
                f"(+{gitrev - plain:.3f} s; sitemapkit's pass adds {lastmod:.3f} s)"
            )
        else:
            print(
                "  mkdocs build + git-revision-date  not measured: pip install mkdocs-git-revision-date-localized-plugin"
            )
        if args.keep:
            print(f"\nsite kept in {root}")
        return 1 if args.check and share > TARGET_SHARE else 0
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
