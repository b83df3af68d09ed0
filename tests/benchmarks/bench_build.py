"""`sitemapkit build` on a large static folder, next to the speed of the disk.

    .venvs/core/bin/python tests/benchmarks/bench_build.py                      # 100,000 and 300,000 pages
    .venvs/core/bin/python tests/benchmarks/bench_build.py --pages 5000 --rounds 1

For each size in ``--pages``, a folder of that many pages is generated (about
2 KiB of head each, one canonical link naming the page itself, file times
spread over a year, a hundred pages a folder; in its body a logo in a header on
every page, the site's chrome, and two images in a ``<main>``: its own and one
of fifty shared diagrams), the page cache is warmed, and these run side by
side, in rotating order each round, each as a process of its own:

* **floor**: walk the folder, read each page whole (images are read from the
  body: issue 23), and write the same sitemap bytes with the core
  (``encode_pages`` of the same locs, file-time dates and images, known from the
  generator, ``publish.write_files``), on one core;
* **build**: ``sitemapkit build SITE --base-url https://example.org/ --lastmod
  mtime --images`` with every page check on, images on (opt-in);
* **build --no-images**: the same build with images off, which reads only the
  heads: the images' cost is the ratio of the two;
* **build in a work tree**: the same ``build`` with ``--lastmod auto`` (the
  default), the folder inside a git work tree that ignores it (Hugo's
  ``public/``, Jekyll's ``_site/``): git is asked once, and the pages take
  ``build``'s own path;
* **build_site**: ``build_site`` with the pages as :class:`Page` values made in
  memory (loc, source and output, as adapters give them), the step every adapter
  ends in; timed inside its process around the call, and compared with the
  floor's time inside its process. Its memory is what the call adds: the peak
  PSS of its process tree less the PSS of the process holding the pages before
  the call (the adapter's tool holds those, sitemapkit or not).

The floor's output must equal the build's, byte for byte (checked every round).
Reported: medians over rounds and their ratios; the peak proportional set size
(PSS, /proc/<pid>/smaps_rollup) of each process tree, sampled while it runs;
with two sizes, the growth of the build's peak PSS per page between them.
Targets (issue 17), for the build and for build_site alike: <= 2x the floor at
both sizes, peak PSS (build_site: what the call adds) <= 100 MiB at 100,000
pages, growth <= 300 bytes a page. Exit status 1 when a target is missed.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

BASE_URL = "https://example.org/"
PAGES_PER_FOLDER = 100
HEAD_FILLER = (
    '<meta name="viewport" content="width=device-width,initial-scale=1">\n'
    '<link rel="stylesheet" href="/assets/main.8608ea7d.min.css">\n'
    '<script>window.__config={"base":"..","features":["navigation.instant","search.highlight"]}</script>\n'
)


def generate(site: Path, pages: int, start: int = 0) -> None:
    """Pages ``start`` to ``pages``, a hundred a folder, each ``.../page-N/index.html``."""
    epoch = 1_700_000_000
    for n in range(start, pages):
        folder = site / f"sec-{n // PAGES_PER_FOLDER:05d}" / f"page-{n:07d}"
        folder.mkdir(parents=True, exist_ok=True)
        url = f"{BASE_URL}sec-{n // PAGES_PER_FOLDER:05d}/page-{n:07d}/"
        head = (
            f'<!doctype html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n<title>Page {n}</title>\n'
            f'<meta name="description" content="Page {n} of the benchmark site.">\n'
            f'<link rel="canonical" href="{url}">\n'
        )
        while len(head) < 2000:
            head += HEAD_FILLER
        path = folder / "index.html"
        body = (
            '<header><a href="/"><img src="/assets/logo.svg" alt="logo"></a><nav><a href="/">Home</a></nav></header>\n'
            "<main><h1>Page</h1>\n"
            + "<p>Text of the page.</p>\n" * 10
            + f'<figure><img src="img-{n}.png" alt="its own"><figcaption>A figure.</figcaption></figure>\n'
            + "<p>Text of the page.</p>\n" * 10
            + f'<img src="/shared/diagram-{n % 50}.png" alt="a shared diagram">\n</main>\n'
        )
        path.write_text(head + "</head>\n<body>\n" + body + "</body></html>\n")
        # Times spread over a year: a true date for every page.
        stamp = epoch + (n * 7919) % 31_536_000
        os.utime(path, (stamp, stamp))
    (site / "404.html").write_text("<html><head><title>Not found</title></head></html>\n")


def warm(site: Path) -> None:
    for folder, _dirs, files in os.walk(site):
        for name in files:
            with open(os.path.join(folder, name), "rb") as handle:
                handle.read()


# Run in a process of its own: the floor. One core, no checks beyond reading.
FLOOR = r"""
import datetime as dt, os, sys, time
started = time.perf_counter()
from sitemapkit.publish import publication as publish
from sitemapkit.protocol.encoder import encode_pages, EncodeResult
from sitemapkit.protocol.model import Options, Page, Report
site, out = sys.argv[1], sys.argv[2]
flags = os.O_RDONLY
pages = []
utc = dt.timezone.utc
def walk(folder, prefix):
    with os.scandir(folder) as entries:
        for entry in entries:
            if entry.is_dir():
                walk(entry.path, prefix + entry.name + "/")
            elif entry.name.endswith(".html") and not (not prefix and entry.name == "404.html"):
                fd = os.open(entry.path, flags)
                while os.read(fd, 1 << 20):
                    pass
                os.close(fd)
                loc = prefix if entry.name == "index.html" else prefix + entry.name
                n = int(loc[-8:-1]) if loc.startswith("sec-") else None
                images = () if n is None else (f"img-{n}.png", f"/shared/diagram-{n % 50}.png")
                stamp = dt.datetime.fromtimestamp(int(entry.stat().st_mtime), utc)
                pages.append(Page(loc, lastmod=stamp, images=images))
walk(site, "")
pages.sort(key=lambda p: p.loc)
options = Options(base_url=sys.argv[3], lastmod="mtime", images=True)
with publish.Publication(out, options) as publication:
    result = EncodeResult()
    publish.finish(publication, publication.write(encode_pages(pages, options, result)), result, Report())
print(time.perf_counter() - started)
"""

# build_site with Pages made in memory, as an adapter hands them over.
BUILD_SITE = r"""
import os, sys, time
from sitemapkit import build_site, Options, Page
site = sys.argv[1]
pages = []
for folder, dirs, files in os.walk(site):
    dirs.sort()
    rel = os.path.relpath(folder, site)
    prefix = "" if rel == "." else rel.replace(os.sep, "/") + "/"
    for name in sorted(files):
        if name.endswith(".html") and not (not prefix and name == "404.html"):
            path = os.path.join(folder, name)
            pages.append(Page(prefix if name == "index.html" else prefix + name, source=path, output=path))
pages.sort(key=lambda p: p.loc)
options = Options(base_url=sys.argv[2], lastmod="mtime", images=True)
with open("/proc/self/smaps_rollup") as rollup:
    held = next(int(line.split()[1]) for line in rollup if line.startswith("Pss:"))
started = time.perf_counter()
build_site(pages, options, site)
print(held, time.perf_counter() - started)
"""


def _pss_kib(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/smaps_rollup") as handle:
            for line in handle:
                if line.startswith("Pss:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def _tree(pid: int) -> list[int]:
    found = [pid]
    try:
        for task in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{task}/children") as handle:
                for child in handle.read().split():
                    found += _tree(int(child))
    except OSError:
        pass
    return found


def run(command: list[str]) -> tuple[float, float, str, float]:
    """Wall seconds, peak PSS of the process tree in MiB, its standard output, and
    the CPU seconds of the tree (user and system)."""
    peak = 0
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    done = threading.Event()

    def sample() -> None:
        nonlocal peak
        while not done.is_set():
            peak = max(peak, sum(map(_pss_kib, _tree(process.pid))))
            done.wait(0.01)

    sampler = threading.Thread(target=sample)
    sampler.start()
    out, err = process.communicate()
    wall = time.perf_counter() - started
    done.set()
    sampler.join()
    if process.returncode != 0:
        sys.exit(f"{command[:3]} failed:\n{err}")
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    return wall, peak / 1024, out, cpu


def sitemap_files(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir()) if p.name.startswith("sitemap")}


def measure(tmp: Path, pages: int, rounds: int, python: str, sitemapkit: list[str]) -> dict:
    """One size; the pages of a smaller size measured before are kept and added to."""
    site, out = tmp / "site", tmp / "floor-out"
    before = sum(1 for _ in site.glob("sec-*/page-*")) if site.exists() else 0
    print(f"generating {pages - before:,} more pages, {pages:,} in all ...", flush=True)
    generate(site, pages, before)
    warm(site)
    times: dict[str, list[float]] = {
        "floor": [],
        "build": [],
        "floor (inside)": [],
        "build_site (inside)": [],
        "floor CPU": [],
        "build CPU": [],
        "build in a work tree": [],
        "build --no-images": [],
    }
    peaks: dict[str, list[float]] = {
        "floor": [],
        "build": [],
        "build_site": [],
        "build in a work tree": [],
        "build --no-images": [],
    }
    steps = ["floor", "build", "build_site", "build in a work tree", "build --no-images"]
    for number in range(rounds):
        for step in steps[number % len(steps) :] + steps[: number % len(steps)]:
            if step == "floor":
                shutil.rmtree(out, ignore_errors=True)
                out.mkdir()
                wall, peak, text, cpu = run([python, "-c", FLOOR, str(site), str(out), BASE_URL])
                times["floor"].append(wall)
                times["floor CPU"].append(cpu)
                times["floor (inside)"].append(float(text.split()[-1]))
            elif step == "build":
                wall, peak, _, cpu = run(
                    [*sitemapkit, "build", str(site), "--base-url", BASE_URL, "--lastmod", "mtime", "--images"]
                )
                times["build"].append(wall)
                times["build CPU"].append(cpu)
                built = sitemap_files(site)
            elif step == "build --no-images":
                wall, peak, _, _ = run(
                    [*sitemapkit, "build", str(site), "--base-url", BASE_URL, "--lastmod", "mtime", "--no-images"]
                )
                times["build --no-images"].append(wall)
            elif step == "build in a work tree":
                # The folder in a project's git work tree that ignores it (Hugo's
                # public/): lastmod 'auto' asks git once, then takes file times.
                wall, peak, _, _ = run([*sitemapkit, "build", str(site), "--base-url", BASE_URL, "--images"])
                times["build in a work tree"].append(wall)
                in_work_tree = sitemap_files(site)
            else:
                wall, peak, text, _ = run([python, "-c", BUILD_SITE, str(site), BASE_URL])
                held_kib, inside = text.split()[-2:]
                times["build_site (inside)"].append(float(inside))
                peak -= int(held_kib) / 1024  # what the call adds
            peaks[step].append(peak)
        if sitemap_files(out) != built or in_work_tree != built:
            sys.exit("the floor's sitemaps differ from the builds': the comparison is void")
        print(
            f"  round {number + 1}: "
            + ", ".join(f"{k} {v[-1]:.2f}s" for k, v in times.items())
            + "; peak PSS "
            + ", ".join(f"{k} {v[-1]:.1f} MiB" for k, v in peaks.items()),
            flush=True,
        )
    median = {k: statistics.median(v) for k, v in times.items()}
    spread = {k: (min(v), max(v)) for k, v in times.items()}
    return {
        "pages": pages,
        "median": median,
        "spread": spread,
        "build_ratio": median["build"] / median["floor"],
        "cpu_ratio": median["build CPU"] / median["floor CPU"],
        "build_site_ratio": median["build_site (inside)"] / median["floor (inside)"],
        "work_tree_ratio": median["build in a work tree"] / median["floor"],
        "images_ratio": median["build"] / median["build --no-images"],
        "peak": {k: max(v) for k, v in peaks.items()},
        "files": len(built),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pages", type=int, nargs="+", default=[100_000, 300_000])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--max-ratio", type=float, default=2.0)
    parser.add_argument("--max-pss-mib", type=float, default=100.0, help="at 100,000 pages (scaled for other sizes)")
    parser.add_argument("--max-growth", type=float, default=300.0, help="bytes of peak PSS per page between sizes")
    args = parser.parse_args()
    python = sys.executable
    sitemapkit = [python, "-m", "sitemapkit"]
    print(f"load average before: {os.getloadavg()}")
    with tempfile.TemporaryDirectory(prefix="sitemapkit-bench-build-") as tmp:
        # A project's work tree that ignores its build output, as Hugo's and Jekyll's do.
        (Path(tmp) / ".gitignore").write_text("site/\nfloor-out/\n")
        subprocess.run(["git", "init", "-q", tmp], check=True)
        subprocess.run(["git", "-C", tmp, "add", ".gitignore"], check=True)
        results = [measure(Path(tmp), n, args.rounds, python, sitemapkit) for n in sorted(args.pages)]
        print("removing the pages ...", flush=True)
    print(f"load average after: {os.getloadavg()}")
    ok = True
    print(
        "\n| pages | floor | build | build / floor (CPU) | build_site / floor (inside) "
        "| build in a work tree / floor | images on / off | peak PSS build | floor | build_site (added by the call) |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|")
    for r in results:
        m, s, p = r["median"], r["spread"], r["peak"]
        print(
            f"| {r['pages']:,} | {m['floor']:.2f} s ({s['floor'][0]:.2f}-{s['floor'][1]:.2f}) "
            f"| {m['build']:.2f} s ({s['build'][0]:.2f}-{s['build'][1]:.2f}) | **{r['build_ratio']:.2f}x** ({r['cpu_ratio']:.2f}x) "
            f"| {r['build_site_ratio']:.2f}x ({m['build_site (inside)']:.2f} s / {m['floor (inside)']:.2f} s) "
            f"| {r['work_tree_ratio']:.2f}x "
            f"| {r['images_ratio']:.2f}x ({m['build']:.2f} s / {m['build --no-images']:.2f} s) "
            f"| {p['build']:.1f} MiB | {p['floor']:.1f} MiB | {p['build_site']:.1f} MiB |"
        )
        ok &= max(r["build_ratio"], r["build_site_ratio"], r["work_tree_ratio"]) <= args.max_ratio
        if r["pages"] == 100_000:
            ok &= p["build"] <= args.max_pss_mib and p["build_site"] <= args.max_pss_mib
    if len(results) >= 2:
        first, last = results[0], results[-1]
        growth = (last["peak"]["build"] - first["peak"]["build"]) * 1024 * 1024 / (last["pages"] - first["pages"])
        growth_site = (
            (last["peak"]["build_site"] - first["peak"]["build_site"]) * 1024 * 1024 / (last["pages"] - first["pages"])
        )
        print(
            f"\npeak PSS growth per page, {first['pages']:,} -> {last['pages']:,}: build {growth:.0f} B, "
            f"build_site {growth_site:.0f} B"
        )
        ok &= growth <= args.max_growth and growth_site <= args.max_growth
    print("targets met" if ok else "TARGET MISSED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
