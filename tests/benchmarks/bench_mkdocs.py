"""Build-time cost of the MkDocs adapter, against MkDocs' own sitemap and git-revision-date-localized.

    .venvs/mkdocs/bin/python tests/benchmarks/bench_mkdocs.py --pages 2000 --rounds 5
    .venvs/mkdocs/bin/python tests/benchmarks/bench_mkdocs.py --pages 400 --rounds 7   # a small site

Generates a site of ``--pages`` Markdown pages in a git work tree (a history of
several dated commits, so git-based dates have real work to do; every fourth
page shows one of a few figures), then runs full ``mkdocs build`` runs side by
side, in an order that rotates between rounds:

- ``mkdocs``: plain MkDocs, writing its own sitemap.xml and .gz (build date as lastmod);
- ``sitemapkit``: with ``plugins: [sitemapkit]`` and git dates (``lastmod: git``);
  image entries on, by default; ``--no-images`` sets ``images: false``;
- ``git-revision-date-localized``: the usual way to get git dates into MkDocs
  (pip install mkdocs-git-revision-date-localized-plugin); measured when installed.

No other plugin is enabled (not even search), so the ratios show each plugin's cost
on its own, undiluted. ``--nav full`` (the default) leaves the nav to MkDocs, which
then lists every page, so each page renders a 2,000-entry nav, as on a real site
without a nav setting; ``--nav sections`` lists only the section indexes, making
pages cheap to render and the plugins' share of the build as large as it gets.
The figure of merit is the median over rounds of each round's time ratio against
plain MkDocs (printed with the range of those ratios, wall and CPU); the budget
for sitemapkit is 1.03, at 2,000 pages and on small sites alike (issue 26: a
fixed cost per build, imports and git, weighs most there). Before timing,
sitemapkit is compiled to bytecode and every build runs without
PYTHONDONTWRITEBYTECODE (benchenv.py), as for a pip-installed user. Exit status 1
when sitemapkit is over budget.

Every build runs ``mkdocs build`` in a process of its own through a small driver,
which in the sitemapkit builds also times sitemapkit's own CPU: importing its
plugin and each of the plugin's hooks (git's processes included). That share of
the build is measured directly, where the ratio of two builds is the small
difference of two noisy figures.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchenv import FIRST_DATE, TINY_PNG, child_environment, commit_history, compile_sitemapkit, ratio_summary

SITE_URL = "https://bench.example.org/"
VARIANTS = {
    "mkdocs": [],
    "sitemapkit": [{"sitemapkit": {"lastmod": "git"}}],
    "git-revision-date-localized": ["git-revision-date-localized"],
}
INCUMBENT_MODULE = "mkdocs_git_revision_date_localized_plugin"
PARAGRAPH = (
    "MkDocs turns Markdown into HTML. This paragraph stands in for the prose of a real "
    "page: a few sentences with *emphasis*, `inline code` and a link to "
    "[the protocol](https://www.sitemaps.org/protocol.html), so that each page costs "
    "about what a small page of real documentation costs to read and write."
)
# Every this many pages shows one of FIGURES images in its text.
IMAGE_EVERY = 4
FIGURES = 20


def _page(section: str, name: str, number: int) -> str:
    figure = f"![Figure](../img/figure-{number % FIGURES:02d}.png)\n\n" if number % IMAGE_EVERY == 0 else ""
    return (
        f"# {section} {name}\n\n{PARAGRAPH}\n\n{figure}## Usage\n\n"
        f"```python\ndef {name}(x):\n    return x * {number}\n```\n\n"
        f"- one item\n- another item with `code`\n\n{PARAGRAPH}\n"
    )


def encode_pages(root: Path, pages: int, nav: str, images: bool = True) -> None:
    """``pages`` pages: a home page, then sections of 100 (an index and 99 pages)."""
    docs = root / "docs"
    docs.mkdir(parents=True)
    (docs / "robots.txt").write_text("User-agent: *\nDisallow:\n")
    (docs / "index.md").write_text(f"# Benchmark\n\n{PARAGRAPH}\n")
    (docs / "img").mkdir()
    for figure in range(FIGURES):
        (docs / "img" / f"figure-{figure:02d}.png").write_bytes(TINY_PNG)
    paths = [docs / "index.md"]
    for number in range(pages - 1):
        section = f"section{number // 100:02d}"
        if number % 100 == 0:
            (docs / section).mkdir()
            paths.append(docs / section / "index.md")
            paths[-1].write_text(f"# {section}\n\n{PARAGRAPH}\n")
        else:
            paths.append(docs / section / f"page{number:04d}.md")
            paths[-1].write_text(_page(section, f"page{number:04d}", number))
    # YAML is a superset of JSON: lists are written as JSON.
    nav_setting = ""
    if nav == "sections":
        indexes = [str(p.relative_to(docs)) for p in paths if p.name == "index.md"]
        nav_setting = f"nav: {json.dumps(indexes)}\nvalidation:\n  nav:\n    omitted_files: ignore\n"
    for variant, plugins in VARIANTS.items():
        if variant == "sitemapkit" and not images:
            plugins = [{"sitemapkit": {"lastmod": "git", "images": False}}]
        (root / f"{variant}.yml").write_text(
            f"site_name: bench\nsite_url: {SITE_URL}\ndocs_dir: docs\n"
            f"theme:\n  name: mkdocs\nplugins: {json.dumps(plugins)}\n{nav_setting}"
        )
    commit_history(root, paths)


# ``mkdocs build`` as its command line runs it, in a fresh process. For the
# sitemapkit builds, the plugin's module is imported first (MkDocs then finds it
# imported; the MkDocs modules it imports, which every build loads, before it,
# untimed) and its hooks are wrapped, each timed by this process's CPU clock and
# its finished children's (the core runs git): their sum, with the import, is
# sitemapkit's own CPU in that very build. functools.wraps keeps the hooks'
# event priorities, which MkDocs reads off them.
_DRIVER = """
import functools, json, resource, sys, time

own_file, timed = sys.argv[1], sys.argv[2] == "sitemapkit"


def cpu():
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time() + children.ru_utime + children.ru_stime


own = 0.0
from mkdocs.__main__ import cli

if timed:
    import mkdocs.config.base, mkdocs.config.config_options, mkdocs.plugins, mkdocs.utils.meta

    started = cpu()
    from sitemapkit.plugins.mkdocs import SitemapkitPlugin
    own += cpu() - started

    def timing(hook):
        @functools.wraps(hook)
        def wrapper(*args, **kwargs):
            global own
            started = cpu()
            try:
                return hook(*args, **kwargs)
            finally:
                own += cpu() - started
        return wrapper

    for name in [n for n in vars(SitemapkitPlugin) if n.startswith("on_")]:
        setattr(SitemapkitPlugin, name, timing(getattr(SitemapkitPlugin, name)))

try:
    cli.main(args=sys.argv[3:], prog_name="mkdocs", standalone_mode=False)
finally:
    with open(own_file, "w") as file:
        json.dump({"own_cpu": own, "cpu": cpu()}, file)
"""


def build(root: Path, variant: str) -> tuple[float, float, float]:
    """Wall-clock seconds and CPU seconds of one full ``mkdocs build``, and of that
    CPU, sitemapkit's own (0 in the other builds)."""
    site = root / f"site-{variant}"
    shutil.rmtree(site, ignore_errors=True)
    own_file = root / "own-cpu.json"
    command = [sys.executable, "-c", _DRIVER, str(own_file), variant]
    command += ["build", "-q", "-f", str(root / f"{variant}.yml"), "-d", str(site)]
    env = {**child_environment(), "DISABLE_MKDOCS_2_WARNING": "true"}
    cpu_before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    result = subprocess.run(command, cwd=root, env=env, capture_output=True, text=True)
    elapsed = time.perf_counter() - started
    cpu_after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (cpu_after.ru_utime - cpu_before.ru_utime) + (cpu_after.ru_stime - cpu_before.ru_stime)
    if result.returncode != 0 or "WARNING" in result.stderr:
        raise SystemExit(f"{variant} build failed:\n{result.stderr[-3000:]}")
    sitemap = site / "sitemap.xml"
    if not sitemap.is_file():
        raise SystemExit(f"{variant} wrote no sitemap.xml")
    return elapsed, cpu, json.loads(own_file.read_text())["own_cpu"]


def check_output(root: Path, pages: int, images: bool) -> None:
    """The sitemapkit build listed every page, with git dates, not the build date,
    and (with images on) the figure of every page that shows one."""
    text = (root / "site-sitemapkit" / "sitemap.xml").read_text()
    urls = text.count("<url>")
    listed_images = text.count("<image:image>")
    # Of the pages after the home page, those numbered by IMAGE_EVERY (each
    # hundredth is a section's index, which shows none).
    shown = sum(1 for number in range(pages - 1) if number % IMAGE_EVERY == 0 and number % 100)
    if listed_images != (shown if images else 0):
        raise SystemExit(f"sitemapkit listed {listed_images} images; {shown if images else 0} pages show one")
    lastmods = {line.split("<lastmod>")[1][:10] for line in text.splitlines() if "<lastmod>" in line}
    if urls != pages or not lastmods or max(lastmods) > f"{FIRST_DATE.year + 1}-12-31":
        raise SystemExit(
            f"sitemapkit output looks wrong: {urls} URLs for {pages} pages, lastmods {sorted(lastmods)[:5]}"
        )
    print(f"  checked: sitemapkit listed {urls} URLs with {len(lastmods)} distinct git dates, {listed_images} images")


def _median_ratio(times: list[float], baseline: list[float]) -> float:
    return statistics.median(t / base for t, base in zip(times, baseline))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pages", type=int, default=2000, help="pages in the generated site (2000)")
    parser.add_argument("--rounds", type=int, default=5, help="rounds of side-by-side builds (5)")
    parser.add_argument(
        "--nav",
        choices=("full", "sections"),
        default="full",
        help="nav of every page (full, MkDocs' default) or of section indexes only",
    )
    parser.add_argument("--no-images", action="store_true", help="sitemapkit without image entries")
    parser.add_argument("--budget", type=float, default=1.03, help="largest acceptable median ratio (1.03)")
    args = parser.parse_args()
    if args.pages < 2 or args.rounds < 1:
        parser.error("--pages must be at least 2 and --rounds at least 1")

    variants = [v for v in VARIANTS if v != "git-revision-date-localized" or importlib.util.find_spec(INCUMBENT_MODULE)]
    if len(variants) < len(VARIANTS):
        print("mkdocs-git-revision-date-localized-plugin is not installed; measuring sitemapkit only")
    with tempfile.TemporaryDirectory(prefix="bench-mkdocs-") as tmp:
        root = Path(tmp)
        encode_pages(root, args.pages, args.nav, images=not args.no_images)
        compile_sitemapkit()
        print(
            f"{args.pages} pages, nav {args.nav}, images {'off' if args.no_images else 'on'}, {args.rounds} rounds, "
            f"Python {sys.version.split()[0]}, {os.cpu_count()} CPUs"
        )
        wall: dict[str, list[float]] = {v: [] for v in variants}
        cpu: dict[str, list[float]] = {v: [] for v in variants}
        own: list[float] = []  # sitemapkit's own CPU in each of its builds
        for round_number in range(args.rounds):
            # Rotate the order so no variant always runs first (cold caches) or last.
            shift = round_number % len(variants)
            for variant in variants[shift:] + variants[:shift]:
                seconds, cpu_seconds, own_seconds = build(root, variant)
                wall[variant].append(seconds)
                cpu[variant].append(cpu_seconds)
                if variant == "sitemapkit":
                    own.append(own_seconds)
            print(
                f"  round {round_number + 1}: "
                + ", ".join(f"{v} {wall[v][-1]:.2f}s ({cpu[v][-1]:.2f}s CPU)" for v in variants),
                flush=True,
            )
        check_output(root, args.pages, images=not args.no_images)
        print("medians of build time, and of per-round ratios to plain MkDocs with their range (wall; CPU)")
        over_budget = False
        for variant in variants:
            line = (
                f"  {variant:28} {statistics.median(wall[variant]):7.2f}s  {statistics.median(cpu[variant]):7.2f}s CPU"
            )
            if variant != "mkdocs":
                ratio = _median_ratio(wall[variant], wall["mkdocs"])
                line += (
                    f"  ratio {ratio_summary(wall[variant], wall['mkdocs'])};"
                    f" CPU ratio {ratio_summary(cpu[variant], cpu['mkdocs'])}"
                )
                if variant == "sitemapkit":
                    over_budget = ratio > args.budget
                    line += f"  {'OVER' if ratio > args.budget else 'within'} budget {args.budget}"
            print(line, flush=True)
        # Its own CPU against the plain build's: the ratio a quiet machine would show.
        share = statistics.median(own) / statistics.median(cpu["mkdocs"])
        print(
            f"sitemapkit's own CPU (its import and hooks, git included): median {statistics.median(own) * 1000:.1f} ms"
            f" ({min(own) * 1000:.1f}-{max(own) * 1000:.1f} ms), {share:.2%} of the plain build's CPU:"
            f" {1 + share:.3f}x from its own share",
            flush=True,
        )
        # Other load on the machine only ever adds time, so the fastest round of each
        # variant is the least disturbed figure (the budget is still judged on medians).
        print(
            "best of rounds: "
            + ", ".join(f"{v} {min(wall[v]) / min(wall['mkdocs']):.3f}" for v in variants if v != "mkdocs")
            + " (wall ratio to plain MkDocs)",
            flush=True,
        )
    return 1 if over_budget else 0


if __name__ == "__main__":
    sys.exit(main())
