"""What reading a page's images costs at the least, beside what `build --images` may spend.

    .venvs/core/bin/python tests/benchmarks/bench_reading.py                 # 20,000 pages, 5 rounds
    .venvs/core/bin/python tests/benchmarks/bench_reading.py --pages 2000 --rounds 1

Issue 26 holds ``sitemapkit build --images`` to 1.3 times the find/cat floor
(``bench_build.py``: ``find``, ``cat`` of every page, ``sitemapkit generate`` of
the URL list). This asks whether any HTML reader could meet that, on
``bench_build.py``'s own pages (generated the same way: a 2 KiB head, a logo and
two images in a ``<main>``, about 2.9 KB a page).

Two measurements, side by side in one run, in rotating order each round:

1. Whole processes, as ``bench_build.py`` runs them: the find/cat floor, and
   ``sitemapkit build --lastmod mtime --no-images`` (every page check but the
   images). From these, the CPU time a page that the target leaves for reading
   its images: the floor's wall time times 1.3, times the cores (the build uses
   every one; the floor uses about one), less what the build spends without
   images.
2. In this process, a page at a time, over the same warm files, CPU time a page
   of: reading the file whole; sitemapkit's own reading of a page for ``build``
   (``inspect_built_page``, the head checks, with images and without: the
   difference is what its images cost); and the compiled HTML parsers a user
   could pick instead, lexbor (``selectolax``) and libxml2 (``lxml.html``), each
   where installed, given the page's bytes (read before timing, as the build
   has read them): parsing the page into a tree, and that with each
   ``<img src>`` taken from the tree (no content element told from the chrome,
   nothing resolved or written yet).

A reader that costs more than the budget of (1) on its own cannot meet the
target, whatever the rest of the build costs. Reported: each figure's median
over the rounds and its range, and each reader's cost over the budget. No
target: this is the measure the notes of issues 23 and 26 give.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from bench_build import BASE_URL, FIND_FLOOR, generate, run, warm
from benchenv import compile_sitemapkit

#: The ratio ``build --images`` is held to against the find/cat floor (issue 26).
TARGET_RATIO = 1.3


def site_pages(site: Path) -> list[tuple[str, str]]:
    """(path, URL) of each page of the site, ``index.html`` serving its folder's URL."""
    paths = sorted(site.glob("sec-*/page-*/index.html"))
    return [(str(path), BASE_URL + path.parent.relative_to(site).as_posix() + "/") for path in paths]


def per_page(reader: Callable[[str, str], object], pages: list[tuple[str, str]]) -> float:
    """CPU microseconds a page of ``reader`` over ``pages``."""
    started = time.process_time()
    for path, url in pages:
        reader(path, url)
    return (time.process_time() - started) / len(pages) * 1e6


def readers(pages: list[tuple[str, str]]) -> dict[str, Callable[[str, str], object]]:
    """Name -> a function reading one page (its path and URL), for those installed.

    The parsers are given the page's bytes, read before timing: ``build
    --no-images`` has read them already (its first read holds a page of this
    size whole), so what a parser adds is its parsing."""
    from sitemapkit.site.htmlcheck import inspect_built_page

    def read_whole(path: str) -> bytes:
        with open(path, "rb") as handle:
            return handle.read()

    data = {path: read_whole(path) for path, _url in pages}
    found: dict[str, Callable[[str, str], object]] = {
        "read the file whole": lambda path, url: read_whole(path),
        "sitemapkit, images off": lambda path, url: inspect_built_page(path, url, dates=True),
        "sitemapkit, images on": lambda path, url: inspect_built_page(path, url, dates=True, images=True),
    }
    try:
        from selectolax.lexbor import LexborHTMLParser

        def lexbor_images(path: str, url: str) -> list:
            return [node.attributes.get("src") for node in LexborHTMLParser(data[path]).css("img")]

        found["lexbor (selectolax), parse only"] = lambda path, url: LexborHTMLParser(data[path])
        found["lexbor, parse and each <img src>"] = lexbor_images
    except ImportError:
        print("selectolax not installed: lexbor not measured (pip install selectolax)")
    try:
        import lxml.html

        found["libxml2 (lxml.html), parse only"] = lambda path, url: lxml.html.document_fromstring(data[path])
        found["libxml2, parse and each <img src>"] = lambda path, url: lxml.html.document_fromstring(data[path]).xpath(
            "//img/@src"
        )
    except ImportError:
        print("lxml not installed: libxml2 not measured")
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pages", type=int, default=20_000)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    if args.pages < 1 or args.rounds < 1:
        parser.error("--pages and --rounds must be at least 1")
    python = sys.executable
    compile_sitemapkit(python)
    cores = len(os.sched_getaffinity(0))
    print(f"load average before: {os.getloadavg()}; {cores} cores")
    with tempfile.TemporaryDirectory(prefix="sitemapkit-bench-reading-") as tmp:
        site = Path(tmp) / "site"
        print(f"generating {args.pages:,} pages ...", flush=True)
        generate(site, args.pages)
        warm(site)
        pages = site_pages(site)
        out, listed = Path(tmp) / "floor-out", Path(tmp) / "floor.tsv"
        sitemapkit = [python, "-m", "sitemapkit"]
        floor = ["bash", "-c", FIND_FLOOR, "find-floor", str(site), BASE_URL, str(out), str(listed), "cat"]
        processes = {
            "find/cat": [*floor, *sitemapkit],
            "build --no-images": [
                *sitemapkit,
                "build",
                str(site),
                "--base-url",
                BASE_URL,
                "--lastmod",
                "mtime",
                "--no-images",
            ],
        }
        reading = readers(pages)
        for path, url in pages[:200]:  # warm-up: patterns compiled, code loaded
            for reader in reading.values():
                reader(path, url)
        walls: dict[str, list[float]] = {name: [] for name in processes}
        cpus: dict[str, list[float]] = {name: [] for name in processes}
        costs: dict[str, list[float]] = {name: [] for name in reading}
        budgets: list[float] = []
        for number in range(args.rounds):
            order = list(processes) + list(reading)
            shift = number % len(order)
            for name in order[shift:] + order[:shift]:
                if name in processes:
                    wall, _pss, _out, cpu = run(processes[name], name)
                    walls[name].append(wall)
                    cpus[name].append(cpu)
                else:
                    costs[name].append(per_page(reading[name], pages))
            allowed = walls["find/cat"][-1] * TARGET_RATIO * cores
            budgets.append((allowed - cpus["build --no-images"][-1]) / args.pages * 1e6)
        print(f"load average after: {os.getloadavg()}\n")

    def spread(values: list[float]) -> str:
        return f"{statistics.median(values):9.1f}   {min(values):.1f}-{max(values):.1f}"

    print(f"{args.pages:,} pages, {args.rounds} rounds (medians, ranges)")
    print("    whole processes                            wall s   CPU s")
    for name in processes:
        print(f"    {name:40} {statistics.median(walls[name]):7.2f} {statistics.median(cpus[name]):7.2f}")
    print("\n    CPU microseconds a page                    median   range")
    budget = statistics.median(budgets)
    print(f"    {'left for the images by ' + str(TARGET_RATIO) + 'x find/cat':40} {spread(budgets)}")
    for name, values in costs.items():
        print(f"    {name:40} {spread(values)}")
    images = [on - off for on, off in zip(costs["sitemapkit, images on"], costs["sitemapkit, images off"])]
    print(f"    {'sitemapkit, what the images cost':40} {spread(images)}")
    print()
    for name in [name for name in costs if name.startswith(("lexbor", "libxml2"))] + [
        "sitemapkit, what the images cost"
    ]:
        cost = statistics.median(images if name.endswith("images cost") else costs[name])
        print(f"    {name}: {cost / budget:.2f}x the images' budget")
    return 0


if __name__ == "__main__":
    sys.exit(main())
