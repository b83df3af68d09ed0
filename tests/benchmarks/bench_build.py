"""`sitemapkit build` on a large static folder, against what a user would do instead.

    .venvs/core/bin/python tests/benchmarks/bench_build.py                      # 100,000 and 300,000 pages
    .venvs/core/bin/python tests/benchmarks/bench_build.py --pages 5000 --rounds 1

For each size in ``--pages``, a folder of that many pages is generated (about
2 KiB of head each, one canonical link naming the page itself, file times
spread over a year, a hundred pages a folder; in its body a logo in a header on
every page, the site's chrome, and two images in a ``<main>``: its own and one
of fifty shared diagrams), the page cache is warmed, and these run side by
side, in rotating order each round, each as a process of its own:

* **find/head** (issue 26): the floor a user would script without sitemapkit's
  checks, one bash pipeline timed as one child: ``find SITE -name '*.html'``
  listing each page with its file time (``-printf``), ``head -c 2048`` of every
  page (through ``xargs``, to /dev/null), the paths turned into URLs by ``sed``
  (``index.html`` serves its folder's URL), ``LC_ALL=C sort``, then ``sitemapkit
  generate`` of that list (plain, as build writes). It must list as many URLs
  as build; whether it writes build's very bytes is information;
* **find/cat**: the same reading every page whole (``cat``), the floor for
  ``build --images``, which reads the images from the body;
* **build --no-images**: ``sitemapkit build SITE --base-url
  https://example.org/ --lastmod mtime --no-images``, every page check on;
* **build --images**: the same build with images on (the default);
* **encode floor**: walk the folder, read each page whole, and write the same
  sitemap bytes as ``build --images`` with the core (``encode_pages`` of the
  same locs, file-time dates and images, known from the generator,
  published with ``publish.Publication``), on one core: build less its checks;
* **build in a work tree**: ``build --images`` with ``--lastmod auto`` (the
  default), the folder inside a git work tree that ignores it (Hugo's
  ``public/``, Jekyll's ``_site/``): git is asked once, and the pages take
  ``build``'s own path;
* **build_site**: ``build_site`` with the pages as :class:`Page` values made in
  memory (loc, source and output, as adapters give them), the step every adapter
  ends in; timed inside its process around the call, and compared with the
  encode floor's time inside its process. Its memory is what the call adds: the
  peak PSS of its process tree less the PSS of the process holding the pages
  before the call (the adapter's tool holds those, sitemapkit or not).

The encode floor's output must equal build's, byte for byte (checked every
round). Before timing, sitemapkit is compiled to bytecode and every child runs
without PYTHONDONTWRITEBYTECODE (benchenv.py), as for a pip-installed user.

Reported: the median wall time of each step and its range over the rounds; the
peak proportional set size (PSS, /proc/<pid>/smaps_rollup) of each process
tree, sampled while it runs; each ratio as the median of its per-round ratios,
with their range. Targets (issue 26): ``build --no-images`` <= 1.3x find/head
and ``build --images`` <= 1.3x find/cat at every size; with two sizes, each
ratio at the larger at most 1.05 times the ratio at the smaller; the process
tree of ``build --no-images`` <= 100 MiB at 100,000 pages and growing <= 250
bytes a page between the smallest size and the largest. The other ratios are information. Exit status 1 when a
target is missed.
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

from benchenv import child_environment, compile_sitemapkit

BASE_URL = "https://example.org/"
PAGES_PER_FOLDER = 100
#: The size the memory target is stated for.
TARGET_PSS_PAGES = 100_000
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
    # The pages just written reach the disk first: their writing back would
    # otherwise run beside the first rounds' timings.
    os.sync()
    for folder, _dirs, files in os.walk(site):
        for name in files:
            with open(os.path.join(folder, name), "rb") as handle:
                handle.read()


# Run in a process of its own: the encode floor. One core, no checks beyond reading.
ENCODE_FLOOR = r"""
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

# The find floors: bash, then the command that runs sitemapkit (its words last).
# $1 the site, $2 the base URL, $3 the output folder, $4 the URL list to write,
# $5 how much of each page to read: head (2 KiB) or cat (all of it).
FIND_FLOOR = r"""
set -euo pipefail
site=$1 base=$2 out=$3 list=$4
case $5 in head) read_pages=(head -q -c 2048) ;; cat) read_pages=(cat) ;; esac
shift 5
export TZ=UTC
cd "$site"
# Every page but the site's 404 page, with its file time (UTC; whole seconds below).
find . -name '*.html' ! -path ./404.html -printf '%P\t%TY-%Tm-%TdT%TH:%TM:%TS\n' > "$list.found"
cut -f1 "$list.found" | xargs -d '\n' "${read_pages[@]}" > /dev/null
# index.html serves its folder's URL; the tab sorts below every URL character.
sed -E -e 's#(^|/)index\.html\t#\1\t#' -e 's#\.[0-9]+$#+00:00#' -e "s#^#$base#" "$list.found" | LC_ALL=C sort > "$list"
"$@" generate --input "$list" --base-url "$base" --out "$out"
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


def run(command: list[str], name: str) -> tuple[float, float, str, float]:
    """Wall seconds, peak PSS of the process tree in MiB, its standard output, and
    the CPU seconds of the tree (user and system)."""
    peak = 0
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    process = subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=child_environment()
    )
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
        sys.exit(f"{name} failed ({process.returncode}):\n{err}")
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    return wall, peak / 1024, out, cpu


def sitemap_files(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir()) if p.name.startswith("sitemap")}


def url_count(files: dict[str, bytes]) -> int:
    """The URLs a sitemap set lists (an index lists ``<sitemap>`` entries, no ``<url>``)."""
    return sum(data.count(b"<url>") for name, data in files.items() if name.endswith(".xml"))


def fresh(folder: Path) -> Path:
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir()
    return folder


# In the order of the first round; each round starts one step later.
STEPS = (
    "find/head",
    "build --no-images",
    "find/cat",
    "build --images",
    "encode floor",
    "build in a work tree",
    "build_site",
)
# The steps timed inside their process too, around the work alone.
INSIDE = ("encode floor", "build_site")


def measure(tmp: Path, pages: int, rounds: int, python: str) -> dict:
    """One size; the pages of a smaller size measured before are kept and added to."""
    site = tmp / "site"
    before = sum(1 for _ in site.glob("sec-*/page-*")) if site.exists() else 0
    print(f"generating {pages - before:,} more pages, {pages:,} in all ...", flush=True)
    generate(site, pages, before)
    warm(site)
    sitemapkit = [python, "-m", "sitemapkit"]
    build = [*sitemapkit, "build", str(site), "--base-url", BASE_URL]
    # Where each step writes its sitemap (the builds write into the site).
    outs = {"encode floor": tmp / "floor-out", "find/head": tmp / "find-head-out", "find/cat": tmp / "find-cat-out"}

    def find_floor(reader: str) -> list[str]:
        out, listed = outs[f"find/{reader}"], tmp / f"find-{reader}.tsv"
        return ["bash", "-c", FIND_FLOOR, "find-floor", str(site), BASE_URL, str(out), str(listed), reader, *sitemapkit]

    commands = {
        "find/head": find_floor("head"),
        "find/cat": find_floor("cat"),
        "build --no-images": [*build, "--lastmod", "mtime", "--no-images"],
        "build --images": [*build, "--lastmod", "mtime", "--images"],
        "encode floor": [python, "-c", ENCODE_FLOOR, str(site), str(outs["encode floor"]), BASE_URL],
        # The folder in a project's git work tree that ignores it (Hugo's public/):
        # lastmod 'auto' asks git once, then takes file times.
        "build in a work tree": [*build, "--images"],
        "build_site": [python, "-c", BUILD_SITE, str(site), BASE_URL],
    }
    walls: dict[str, list[float]] = {step: [] for step in STEPS}
    cpus: dict[str, list[float]] = {step: [] for step in STEPS}
    peaks: dict[str, list[float]] = {step: [] for step in STEPS}
    inside: dict[str, list[float]] = {step: [] for step in INSIDE}
    urls: dict[str, int] = {}
    # Whether each find floor wrote build --no-images' very bytes, every round.
    same_bytes = {"find/head": True, "find/cat": True}
    for number in range(rounds):
        written: dict[str, dict[str, bytes]] = {}
        for step in STEPS[number % len(STEPS) :] + STEPS[: number % len(STEPS)]:
            if step in outs:
                fresh(outs[step])
            wall, peak, text, cpu = run(commands[step], step)
            if step == "encode floor":
                inside[step].append(float(text.split()[-1]))
            elif step == "build_site":
                held_kib, seconds = text.split()[-2:]
                inside[step].append(float(seconds))
                peak -= int(held_kib) / 1024  # what the call adds
            walls[step].append(wall)
            cpus[step].append(cpu)
            peaks[step].append(peak)
            if step != "build_site":
                written[step] = sitemap_files(outs.get(step, site))
                urls[step] = url_count(written[step])
        same = {written[step] == written["build --images"] for step in ("encode floor", "build in a work tree")}
        if same != {True}:
            sys.exit("the encode floor's sitemaps differ from the builds': the comparison is void")
        for step in same_bytes:
            same_bytes[step] = same_bytes[step] and written[step] == written["build --no-images"]
        print(
            f"  round {number + 1}: "
            + ", ".join(f"{step} {walls[step][-1]:.2f}s ({peaks[step][-1]:.0f} MiB)" for step in STEPS),
            flush=True,
        )
    return {
        "pages": pages,
        "walls": walls,
        "cpus": cpus,
        "peaks": peaks,
        "inside": inside,
        "urls": urls,
        "same_bytes": same_bytes,
    }


def per_round(numerators: list[float], denominators: list[float]) -> list[float]:
    return [a / b for a, b in zip(numerators, denominators)]


def spread(values: list[float], unit: str = "") -> str:
    return f"{min(values):.2f}-{max(values):.2f}{unit}"


def verdict(ok: bool | None) -> str:
    return "info" if ok is None else "pass" if ok else "FAIL"


def checks_of(results: list[dict], args: argparse.Namespace) -> list[tuple]:
    """(pages, check, value, range, target, ok) rows; ok None for information."""
    rows: list[tuple] = []
    # name -> (numerator step, denominator step) of each ratio, per size.
    targeted = {
        "build --no-images / find/head": ("build --no-images", "find/head"),
        "build --images / find/cat": ("build --images", "find/cat"),
    }
    informative = {
        "build --images / encode floor": ("build --images", "encode floor"),
        "build in a work tree / encode floor": ("build in a work tree", "encode floor"),
        "images on / off (build)": ("build --images", "build --no-images"),
    }
    medians: dict[tuple[int, str], float] = {}
    for r in results:
        pages, walls = r["pages"], r["walls"]
        for name, (a, b) in {**targeted, **informative}.items():
            ratios = per_round(walls[a], walls[b])
            median = medians[pages, name] = statistics.median(ratios)
            target = name in targeted
            rows.append(
                (
                    pages,
                    name,
                    f"{median:.2f}x",
                    spread(ratios, "x"),
                    f"<= {args.max_ratio}" if target else "-",
                    median <= args.max_ratio if target else None,
                )
            )
        inside = per_round(r["inside"]["build_site"], r["inside"]["encode floor"])
        rows.append(
            (
                pages,
                "build_site / encode floor (inside)",
                f"{statistics.median(inside):.2f}x",
                spread(inside, "x"),
                "-",
                None,
            )
        )
        cpu = per_round(r["cpus"]["build --no-images"], r["cpus"]["find/head"])
        rows.append(
            (pages, "CPU: build --no-images / find/head", f"{statistics.median(cpu):.2f}x", spread(cpu, "x"), "-", None)
        )
        for step in ("build --no-images", "build --images", "build_site"):
            peak = max(r["peaks"][step])
            target = step == "build --no-images" and pages == TARGET_PSS_PAGES
            label = "peak PSS, build_site (added by the call)" if step == "build_site" else f"peak PSS, {step}"
            rows.append(
                (
                    pages,
                    label,
                    f"{peak:.1f} MiB",
                    "",
                    f"<= {args.max_pss_mib:g} MiB" if target else "-",
                    peak <= args.max_pss_mib if target else None,
                )
            )
        listed = r["urls"]["build --no-images"]
        for step in ("find/head", "find/cat", "build --images"):
            rows.append(
                (pages, f"URLs listed: {step}", f"{r['urls'][step]:,}", "", f"= {listed:,}", r["urls"][step] == listed)
            )
        for step, same in r["same_bytes"].items():
            rows.append((pages, f"{step} wrote build --no-images' bytes", "yes" if same else "no", "", "-", None))
    if len(results) >= 2:
        first, last = results[0], results[-1]
        sizes = f"{first['pages']:,} -> {last['pages']:,}"
        for name in targeted:
            scale = medians[last["pages"], name] / medians[first["pages"], name]
            rows.append(
                (
                    sizes,
                    f"{name}, larger / smaller",
                    f"{scale:.3f}",
                    "",
                    f"<= {args.max_scale}",
                    scale <= args.max_scale,
                )
            )
        for step in ("build --no-images", "build --images", "build_site"):
            added = max(last["peaks"][step]) - max(first["peaks"][step])
            growth = added * 1024 * 1024 / (last["pages"] - first["pages"])
            target = step == "build --no-images"
            rows.append(
                (
                    sizes,
                    f"peak PSS growth a page, {step}",
                    f"{growth:.0f} B",
                    "",
                    f"<= {args.max_growth:g} B" if target else "-",
                    growth <= args.max_growth if target else None,
                )
            )
    return rows


def report(results: list[dict], args: argparse.Namespace) -> bool:
    """Print the medians and the checks; whether every target was met."""
    print(f"\n  {'pages':>9}  {'step':34}{'median s':>9}  {'range s':>11}  {'CPU s':>6}  {'peak PSS':>10}")
    for r in results:
        for step in STEPS:
            walls = r["walls"][step]
            print(
                f"  {r['pages']:>9,}  {step:34}{statistics.median(walls):9.2f}  {spread(walls):>11}  "
                f"{statistics.median(r['cpus'][step]):6.2f}  {max(r['peaks'][step]):6.1f} MiB"
            )
        for step, seconds in r["inside"].items():
            print(
                f"  {r['pages']:>9,}  {step + ' (inside)':34}{statistics.median(seconds):9.2f}  {spread(seconds):>11}"
            )
    checks = checks_of(results, args)
    print(f"\n  {'pages':>20}  {'check':44}{'median':>10}  {'range':>11}  {'target':>11}  result")
    for pages, name, value, values, target, ok in checks:
        shown = f"{pages:,}" if isinstance(pages, int) else pages
        print(f"  {shown:>20}  {name:44}{value:>10}  {values:>11}  {target:>11}  {verdict(ok)}")
    if TARGET_PSS_PAGES not in [r["pages"] for r in results]:
        print(f"  (the peak PSS target is stated for {TARGET_PSS_PAGES:,} pages)")
    return all(ok is not False for *_, ok in checks)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pages", type=int, nargs="+", default=[100_000, 300_000])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--max-ratio", type=float, default=1.3, help="each build against its find floor")
    parser.add_argument(
        "--max-scale", type=float, default=1.05, help="a ratio at the largest size over the same at the smallest"
    )
    parser.add_argument("--max-pss-mib", type=float, default=100.0, help=f"at {TARGET_PSS_PAGES:,} pages")
    parser.add_argument("--max-growth", type=float, default=250.0, help="bytes of peak PSS per page between sizes")
    args = parser.parse_args()
    if min(args.pages) < 1 or args.rounds < 1:
        parser.error("--pages and --rounds must be at least 1")
    python = sys.executable
    folders = compile_sitemapkit(python)
    print(f"bytecode: compiled before timing ({', '.join(folders)}); children may use it")
    print(f"load average before: {os.getloadavg()}")
    with tempfile.TemporaryDirectory(prefix="sitemapkit-bench-build-") as tmp:
        # A project's work tree that ignores its build output, as Hugo's and Jekyll's do.
        (Path(tmp) / ".gitignore").write_text("site/\n*-out/\n*.tsv*\n")
        subprocess.run(["git", "init", "-q", tmp], check=True)
        subprocess.run(["git", "-C", tmp, "add", ".gitignore"], check=True)
        results = [measure(Path(tmp), n, args.rounds, python) for n in sorted(set(args.pages))]
        print("removing the pages ...", flush=True)
    print(f"load average after: {os.getloadavg()}")
    ok = report(results, args)
    print("targets met" if ok else "TARGET MISSED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
