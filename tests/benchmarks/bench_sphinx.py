"""Build-time cost of the Sphinx adapter, against no sitemap extension and sphinx-sitemap.

    .venvs/sphinx/bin/python tests/benchmarks/bench_sphinx.py --pages 2000 --rounds 5
    .venvs/sphinx/bin/python tests/benchmarks/bench_sphinx.py --pages 300 --rounds 7 --jobs 1   # a small project

Generates a project of ``--pages`` documents in a git work tree (a history of
several dated commits, so git dates have real work to do; every fourth document
shows one of a few figures), then runs full builds side by side: each round
builds with no extension, with sitemapkit (git dates and image entries on:
``sitemapkit_lastmod = 'git'``, images on by default; ``--no-images`` sets
``sitemapkit_images = False``) and with sphinx-sitemap, in an order that rotates between
rounds, serially and with ``-j 2``. The figure of merit is the median over rounds
of each round's time ratio against no extension, printed with the range of those
ratios (wall and CPU); the budget for sitemapkit is 1.03 (issue 26), at 2,000
pages and on small projects alike. sphinx-sitemap (pip install sphinx-sitemap) is
measured when installed. Before timing, sitemapkit is compiled to bytecode and
every build runs without PYTHONDONTWRITEBYTECODE (benchenv.py), as for a
pip-installed user. Exit status 1 when sitemapkit is over budget.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchenv import TINY_PNG, child_environment, commit_history, compile_sitemapkit, ratio_summary

BASE_URL = "https://bench.example.org/"
VARIANTS = {
    "none": [],
    "sitemapkit": ["sitemapkit.plugins.sphinx"],
    "sphinx-sitemap": ["sphinx_sitemap"],
}
PARAGRAPH = (
    "Sphinx turns reStructuredText into HTML. This paragraph stands in for the prose of a "
    "real page: a few sentences with *emphasis*, ``inline code`` and a link to "
    "`the protocol <https://www.sitemaps.org/protocol.html>`_, so that each page costs "
    "about what a small page of real documentation costs to read and write."
)
# Every this many documents shows one of FIGURES images.
IMAGE_EVERY = 4
FIGURES = 20


# Times the other build-finished handlers (the sitemap writers, priority 500) from
# just before to just after, in the main process: their own cost, free of the
# noise of the rest of the build.
TIMER_EXTENSION = """\
import time
from pathlib import Path


def start(app, exception):
    app._bench_started = time.perf_counter()


def stop(app, exception):
    Path(app.outdir, "..", "handler-seconds").write_text(str(time.perf_counter() - app._bench_started))


def setup(app):
    app.connect("build-finished", start, priority=1)
    app.connect("build-finished", stop, priority=999)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
"""


def encode_pages(root: Path, pages: int, images: bool = True) -> None:
    """``pages`` documents in sections of 100, each linked from its section index."""
    src = root / "src"
    sections = [f"section{n:02d}" for n in range((pages + 99) // 100)]
    (src / "extra").mkdir(parents=True)
    (src / "img").mkdir()
    for figure in range(FIGURES):
        (src / "img" / f"figure-{figure:02d}.png").write_bytes(TINY_PNG)
    documents = [src / "index.rst"]
    (src / "extra" / "robots.txt").write_text("User-agent: *\nDisallow:\n")
    (src / "index.rst").write_text(
        "Benchmark\n=========\n\n.. toctree::\n   :maxdepth: 1\n\n" + "".join(f"   {s}/index\n" for s in sections)
    )
    written = 0
    for section in sections:
        names = [f"page{n:03d}" for n in range(min(100, pages - written))]
        written += len(names)
        folder = src / section
        folder.mkdir()
        (folder / "index.rst").write_text(
            f"{section}\n{'=' * len(section)}\n\n.. toctree::\n\n" + "".join(f"   {n}\n" for n in names)
        )
        documents.append(folder / "index.rst")
        for number, name in enumerate(names):
            title = f"{section} {name}"
            other = names[(number + 1) % len(names)]
            figure = f".. image:: /img/figure-{number % FIGURES:02d}.png\n\n" if number % IMAGE_EVERY == 0 else ""
            documents.append(folder / f"{name}.rst")
            documents[-1].write_text(
                f"{title}\n{'=' * len(title)}\n\n.. index:: single: {section}; {name}\n\n"
                f"{PARAGRAPH}\n\n{figure}See :doc:`{other}` next.\n\n"
                f"Usage\n-----\n\n.. code-block:: python\n\n   def {name}(x):\n       return x * {number}\n\n"
                f".. py:function:: {section}.{name}(value)\n\n   Return *value* for {name}.\n\n"
                f"- one item\n- another item with ``code``\n\n{PARAGRAPH}\n"
            )
    for variant, extensions in VARIANTS.items():
        conf = root / f"conf-{variant}"
        conf.mkdir()
        (conf / "bench_timer.py").write_text(TIMER_EXTENSION)
        own = "sitemapkit_lastmod = 'git'\n" + ("" if images else "sitemapkit_images = False\n")
        (conf / "conf.py").write_text(
            "import os, sys\nsys.path.insert(0, os.path.dirname(__file__))\n"
            f"project = 'bench'\nextensions = {[*extensions, 'bench_timer']!r}\nhtml_baseurl = {BASE_URL!r}\n"
            f"html_extra_path = [{str(src / 'extra')!r}]\nexclude_patterns = ['_build', 'extra']\n"
            + (own if variant == "sitemapkit" else "")
        )
    commit_history(src, documents)


def build(root: Path, variant: str, jobs: str, *, images: bool) -> tuple[float, float, float]:
    """Wall-clock seconds, CPU seconds (the build and its worker processes) and the
    seconds the build-finished handlers took."""
    out = root / "out"
    shutil.rmtree(out, ignore_errors=True)
    command = [
        sys.executable,
        "-m",
        "sphinx",
        "-q",
        "-b",
        "html",
        "-j",
        jobs,
        "-c",
        str(root / f"conf-{variant}"),
        "-d",
        str(out / "doctrees"),
        str(root / "src"),
        str(out / "html"),
    ]
    cpu_before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    result = subprocess.run(command, capture_output=True, text=True, env=child_environment())
    elapsed = time.perf_counter() - started
    cpu_after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (cpu_after.ru_utime - cpu_before.ru_utime) + (cpu_after.ru_stime - cpu_before.ru_stime)
    if result.returncode != 0 or "WARNING" in result.stderr:
        raise SystemExit(f"{variant} -j {jobs} build failed:\n{result.stderr[-3000:]}")
    if variant != "none" and not (out / "html" / "sitemap.xml").is_file():
        raise SystemExit(f"{variant} -j {jobs} wrote no sitemap.xml")
    if variant == "sitemapkit":
        text = (out / "html" / "sitemap.xml").read_text()
        if "<lastmod>" not in text or (images and "<image:image>" not in text):
            raise SystemExit(f"sitemapkit -j {jobs} wrote no git dates{' or images' if images else ''}")
    return elapsed, cpu, float((out / "handler-seconds").read_text())


def _median_ratio(times: list[float], baseline: list[float]) -> float:
    return statistics.median(t / base for t, base in zip(times, baseline))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pages", type=int, default=2000, help="documents in the generated project (2000)")
    parser.add_argument("--rounds", type=int, default=5, help="rounds of side-by-side builds (5)")
    parser.add_argument("--jobs", default="1,2", help="comma-separated -j values to measure (1,2)")
    parser.add_argument("--no-images", action="store_true", help="sitemapkit without image entries")
    parser.add_argument("--budget", type=float, default=1.03, help="largest acceptable median ratio (1.03)")
    args = parser.parse_args()

    variants = [v for v in VARIANTS if v != "sphinx-sitemap" or importlib.util.find_spec("sphinx_sitemap")]
    if "sphinx-sitemap" not in variants:
        print("sphinx-sitemap is not installed; measuring sitemapkit only (pip install sphinx-sitemap)")
    with tempfile.TemporaryDirectory(prefix="bench-sphinx-") as tmp:
        root = Path(tmp)
        encode_pages(root, args.pages, images=not args.no_images)
        compile_sitemapkit()
        print(
            f"{args.pages} pages, images {'off' if args.no_images else 'on'}, {args.rounds} rounds, "
            f"Python {sys.version.split()[0]}, {os.cpu_count()} CPUs"
        )
        over_budget = False
        for jobs in args.jobs.split(","):
            wall: dict[str, list[float]] = {v: [] for v in variants}
            cpu: dict[str, list[float]] = {v: [] for v in variants}
            handler: dict[str, list[float]] = {v: [] for v in variants}
            for round_number in range(args.rounds):
                # Rotate the order so no variant always runs first (cold caches) or last.
                shift = round_number % len(variants)
                for variant in variants[shift:] + variants[:shift]:
                    seconds, cpu_seconds, handler_seconds = build(root, variant, jobs, images=not args.no_images)
                    wall[variant].append(seconds)
                    cpu[variant].append(cpu_seconds)
                    handler[variant].append(handler_seconds)
                print(
                    f"  -j {jobs} round {round_number + 1}: "
                    + ", ".join(f"{v} {wall[v][-1]:.2f}s ({cpu[v][-1]:.2f}s CPU)" for v in variants),
                    flush=True,
                )
            print(
                f"-j {jobs}: medians of build time, and of per-round ratios to no extension with their range (wall; CPU)"
            )
            for variant in variants:
                line = (
                    f"  {variant:15} {statistics.median(wall[variant]):7.2f}s  {statistics.median(cpu[variant]):7.2f}s CPU"
                    f"  build-finished {statistics.median(handler[variant]) * 1000:7.1f} ms"
                )
                if variant != "none":
                    ratio = _median_ratio(wall[variant], wall["none"])
                    line += (
                        f"  ratio {ratio_summary(wall[variant], wall['none'])};"
                        f" CPU ratio {ratio_summary(cpu[variant], cpu['none'])}"
                    )
                    # The handler's own time is the figure that other load on the
                    # machine disturbs least.
                    share = statistics.median(handler[variant]) / statistics.median(cpu["none"])
                    line += f"; handler {share:.2%} of the plain build's CPU"
                    if variant == "sitemapkit":
                        over_budget |= ratio > args.budget
                        line += f"  {'OVER' if ratio > args.budget else 'within'} budget {args.budget}"
                print(line, flush=True)
    return 1 if over_budget else 0


if __name__ == "__main__":
    sys.exit(main())
