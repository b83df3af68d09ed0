"""Benchmark of the core's streaming writer (issue 2), against the floor of zlib alone.

    .venvs/core/bin/python tests/benchmarks/bench_core.py [--urls N] [--rounds R] [--assert]
    .venvs/core/bin/python tests/benchmarks/bench_core.py --profile [--urls N]

``sitemapkit generate --gzip`` writes N URLs (default 1,000,000) as gzip shards plus an
index. The floor is the least any writer of those files must do: compress the very
same uncompressed bytes with zlib at level 6, one gzip member per shard, and write
them. Both run as child processes, alternating, R rounds each (median). Targets:
wall-time ratio at most 1.3, output size within 3% of the floor's at the same level,
peak RSS under 64 MiB at 1,000,000 URLs (streaming, never a tree in memory).

It is a benchmark, not a test: it exits 0 whatever the figures, unless ``--assert``.
``--profile`` runs ``generate`` in this process under cProfile (default 200,000 URLs)
and prints the hottest functions.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import zlib
from pathlib import Path

BASE_URL = "https://example.org/"
TARGET_RATIO = 1.3
TARGET_SIZE_TOLERANCE = 0.03
TARGET_PEAK_MIB = 64
# The memory target is stated for this many URLs; at other sizes it is only indicative.
TARGET_URLS = 1_000_000
CHUNK = 1 << 16

# The floor as its own program, so it pays the same interpreter start-up as
# `python -m sitemapkit` and its memory is measured the same way. Files named
# shard-* are compressed; the index is written as it is, as sitemapkit writes it.
FLOOR_PROGRAM = """\
import os, sys, zlib
source, target = sys.argv[1], sys.argv[2]
for name in sorted(os.listdir(source)):
    with open(os.path.join(source, name), "rb") as handle:
        data = handle.read()
    if name.startswith("shard-"):
        compressor = zlib.compressobj(6, zlib.DEFLATED, 31)
        data = compressor.compress(data) + compressor.flush()
        name += ".gz"
    with open(os.path.join(target, name), "wb") as handle:
        handle.write(data)
"""

# --- the URL list -------------------------------------------------------------

_WORDS = (
    "install",
    "config",
    "getting",
    "started",
    "api",
    "reference",
    "guide",
    "release",
    "notes",
    "plugin",
    "theme",
    "search",
    "deploy",
    "migrate",
    "overview",
    "tutorial",
    "faq",
    "advanced",
    "custom",
    "routing",
    "cache",
    "build",
    "metrics",
    "security",
    "auth",
    "tokens",
    "webhooks",
    "errors",
    "limits",
    "upgrade",
    "backup",
    "logging",
    "storage",
    "network",
    "billing",
    "teams",
)
_NON_ASCII_WORDS = (
    "ümlaut",
    "café",
    "naïve",
    "straße",
    "résumé",
    "crème-brûlée",
    "señor",
    "日本語",
    "ドキュメント",
    "設定ガイド",
    "привет",
    "ελληνικά",
)
NON_ASCII_SHARE = 0.02
QUERY_SHARE = 0.01


def write_url_list(path: Path, count: int, seed: int, relative: bool) -> None:
    """A sorted ``URL<TAB>lastmod`` list shaped like a large docs site with a blog.

    The index ``i`` goes into every URL so all are distinct and none is dropped as
    a duplicate: the benchmark then always writes exactly ``count`` URLs.
    """
    import random

    rng = random.Random(seed)
    prefix = "" if relative else BASE_URL
    lines = []
    for i in range(count):
        words = rng.sample(_WORDS, 3)
        if rng.random() < NON_ASCII_SHARE:
            words[rng.randrange(3)] = rng.choice(_NON_ASCII_WORDS)
        kind = rng.random()
        if kind < 0.55:
            path_ = f"docs/{words[0]}-{i % 97}/{words[1]}-{words[2]}-{i}/"
        elif kind < 0.80:
            path_ = f"blog/{2012 + i % 13}/{1 + i % 12:02d}/{words[0]}-{words[1]}-{words[2]}-{i}/"
        elif kind < 0.95:
            path_ = f"api/v{1 + i % 3}/{words[0]}/{words[1].capitalize()}{words[2].capitalize()}{i}.html"
        else:
            path_ = f"products/{words[0]}-{words[1]}-{i}.html"
        if rng.random() < QUERY_SHARE:
            path_ += f"?page={1 + i % 9}&sort={words[0]}"
        year, month, day = 2015 + rng.randrange(11), 1 + rng.randrange(12), 1 + rng.randrange(28)
        shape = rng.random()
        if shape < 0.55:
            lastmod = f"{year}-{month:02d}-{day:02d}"
        elif shape < 0.90:
            zone = rng.choice(("Z", "+00:00", "+02:00", "-05:00"))
            lastmod = f"{year}-{month:02d}-{day:02d}T{rng.randrange(24):02d}:{rng.randrange(60):02d}:{rng.randrange(60):02d}{zone}"
        else:
            lastmod = ""
        lines.append(f"{prefix}{path_}\t{lastmod}\n" if lastmod else f"{prefix}{path_}\n")
    # `generate` expects input sorted by URL; the tab sorts below every URL character,
    # so sorting whole lines sorts by URL.
    lines.sort()
    with open(path, "w", encoding="utf-8") as handle:
        handle.writelines(lines)


# --- measuring a child ---------------------------------------------------------


@dataclasses.dataclass
class Run:
    wall: float
    cpu: float
    peak_kib: int
    output: str


def run_measured(argv: list[str], log: Path) -> Run:
    """Run ``argv`` to completion; its wall time, CPU time and peak RSS.

    os.wait4 gives the child's own rusage (RUSAGE_CHILDREN would only give a
    running maximum over all children). Linux folds the parent's high-water RSS
    into the child's ru_maxrss at exec, so this process must stay small: the URL
    list is built in a child and shard files are handled in chunks.
    """
    with open(log, "wb") as out:
        started = time.perf_counter()
        child = subprocess.Popen(argv, stdout=out, stderr=subprocess.STDOUT)
        _, status, usage = os.wait4(child.pid, 0)
        wall = time.perf_counter() - started
    child.returncode = os.waitstatus_to_exitcode(status)
    text = log.read_text(encoding="utf-8", errors="replace")
    if child.returncode != 0:
        raise SystemExit(f"bench_core: {' '.join(argv)} failed ({child.returncode}):\n{text}")
    return Run(wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss, text.strip())


# --- preparing and checking the floor's input ----------------------------------


@dataclasses.dataclass
class Prepared:
    #: (sitemapkit's shard name, the floor's name for the same bytes)
    shards: list[tuple[str, str]]
    urls: int
    uncompressed: int


def _copy_counting_urls(chunks, target) -> tuple[int, int]:
    """Write ``chunks`` to ``target``; the bytes written and the ``</url>`` tags in them."""
    urls = size = 0
    tail = b""
    for data in chunks:
        target.write(data)
        size += len(data)
        # A tag may straddle two chunks: carry over fewer bytes than a whole tag,
        # so none is counted twice.
        window = tail + data
        urls += window.count(b"</url>")
        tail = window[-5:]
    return urls, size


def _gunzip_chunks(path: Path):
    """The decompressed bytes of ``path``, in chunks; fails unless it is exactly
    one gzip member, as the requirement asks of every shard."""
    decompressor = zlib.decompressobj(31)
    with open(path, "rb") as source:
        while not decompressor.eof and (chunk := source.read(CHUNK)):
            # Bounded output per step: XML inflates tenfold, and this process's
            # high-water mark would show up in every child's peak RSS.
            while chunk and not decompressor.eof:
                yield decompressor.decompress(chunk, CHUNK)
                chunk = decompressor.unconsumed_tail
        yield decompressor.flush()
        if not decompressor.eof or decompressor.unused_data or source.read(1):
            raise SystemExit(f"bench_core: {path.name} is not exactly one complete gzip member")


def _file_chunks(path: Path):
    with open(path, "rb") as source:
        while chunk := source.read(CHUNK):
            yield chunk


def prepare_floor_input(sitemapkit_out: Path, floor_in: Path) -> Prepared:
    """Decompress sitemapkit's shards into ``floor_in`` (not timed), copy its entry
    point (the index, or the only sitemap when everything fits one file), and count
    the URLs written."""
    shards, urls, uncompressed = [], 0, 0
    names = sorted(p.name for p in sitemapkit_out.iterdir() if p.name.endswith(".xml.gz"))
    for number, name in enumerate(names, 1):
        floor_name = f"shard-{number:05d}.xml"
        with open(floor_in / floor_name, "wb") as target:
            counted, size = _copy_counting_urls(_gunzip_chunks(sitemapkit_out / name), target)
        urls, uncompressed = urls + counted, uncompressed + size
        shards.append((name, floor_name))
    with open(floor_in / "index.xml", "wb") as target:
        counted, size = _copy_counting_urls(_file_chunks(sitemapkit_out / "sitemap.xml"), target)
    return Prepared(shards, urls + counted, uncompressed + size)


def same_deflate_streams(sitemapkit_out: Path, floor_out: Path, shards: list[tuple[str, str]]) -> bool:
    """Whether every shard's deflate data equals zlib level 6's for the same bytes.

    Equal streams prove the same level and settings; only the gzip headers may
    differ (sitemapkit writes OS=255, zlib writes the platform's code).
    """
    for ours, floors in shards:
        ours_gz, floor_gz = (sitemapkit_out / ours).read_bytes(), (floor_out / (floors + ".gz")).read_bytes()
        # The header is 10 bytes (neither writes optional fields); the trailer (CRC32,
        # length) depends on the data alone, so it may stay in the comparison.
        if ours_gz[10:] != floor_gz[10:]:
            return False
    return True


def tree_digest(folder: Path) -> dict[str, int]:
    """Name -> crc32 of each file, to check that every round wrote the same bytes."""
    digest = {}
    for path in sorted(folder.iterdir()):
        crc = 0
        with open(path, "rb") as handle:
            while chunk := handle.read(CHUNK):
                crc = zlib.crc32(chunk, crc)
        digest[path.name] = crc
    return digest


def folder_size(folder: Path) -> int:
    return sum(p.stat().st_size for p in folder.iterdir())


# --- the benchmark ---------------------------------------------------------------


def fresh(folder: Path) -> Path:
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir()
    return folder


def mib(kib: int) -> float:
    return kib / 1024


def benchmark(args: argparse.Namespace, work: Path) -> int:
    urls_tsv, logs = work / "urls.tsv", work / "logs"
    logs.mkdir()
    # Asked of a child: importing sitemapkit here would raise this process's memory
    # high-water mark, which Linux folds into every child's peak RSS.
    deflate = (
        subprocess.run(
            [
                sys.executable,
                "-c",
                "from sitemapkit.publish import publication; print(publication._deflate.__name__.rpartition('.')[2])",
            ],
            capture_output=True,
            text=True,
            check=True,
        )
        .stdout.strip()
        .replace("zlib_ng", "zlib-ng")
    )
    load_before = os.getloadavg()

    started = time.perf_counter()
    run_measured(
        [sys.executable, __file__, "--write-urls", str(urls_tsv), "--urls", str(args.urls), "--seed", str(args.seed)]
        + (["--relative"] if args.relative else []),
        logs / "urls.log",
    )
    print(
        f"URL list: {args.urls:,} URLs, {urls_tsv.stat().st_size / 1e6:.1f} MB "
        f"({time.perf_counter() - started:.1f}s, not timed)",
        flush=True,
    )

    ours_out, floor_in, floor_out = work / "sitemapkit", work / "floor_in", work / "floor_out"
    generate = [
        sys.executable,
        "-m",
        "sitemapkit",
        "generate",
        "--input",
        str(urls_tsv),
        "--base-url",
        BASE_URL,
        "--out",
        str(ours_out),
        "--gzip",
    ]
    floor = [sys.executable, "-c", FLOOR_PROGRAM, str(floor_in), str(floor_out)]

    # A first, untimed run writes the shards the floor compresses and warms the page
    # cache and bytecode, so neither side pays for a cold start the other does not.
    fresh(ours_out)
    warmup = run_measured(generate, logs / "warmup.log")
    prepared = prepare_floor_input(ours_out, fresh(floor_in))
    expected = tree_digest(ours_out)
    print(f"warm-up: {warmup.output}", flush=True)

    ours_runs: list[Run] = []
    floor_runs: list[Run] = []
    deterministic = True
    for round_ in range(1, args.rounds + 1):
        # Alternate, so drift in machine load hits both sides alike.
        fresh(ours_out)
        ours_runs.append(run_measured(generate, logs / f"sitemapkit-{round_}.log"))
        deterministic = deterministic and tree_digest(ours_out) == expected
        fresh(floor_out)
        floor_runs.append(run_measured(floor, logs / f"floor-{round_}.log"))
        print(
            f"round {round_}/{args.rounds}: sitemapkit {ours_runs[-1].wall:.2f}s, floor {floor_runs[-1].wall:.2f}s",
            flush=True,
        )

    ours_wall = statistics.median(r.wall for r in ours_runs)
    floor_wall = statistics.median(r.wall for r in floor_runs)
    ratio = ours_wall / floor_wall
    # Less sensitive to other work on the machine than wall time; not a target, since
    # sitemapkit may spend more CPU than the floor as long as it uses a second core.
    cpu_ratio = statistics.median(r.cpu for r in ours_runs) / statistics.median(r.cpu for r in floor_runs)
    ours_size, floor_size = folder_size(ours_out), folder_size(floor_out)
    size_ratio = ours_size / floor_size
    # zlib-ng (the optional `fast` extra) makes a different stream at the same level;
    # only with zlib itself can the streams be compared byte for byte.
    same_level = same_deflate_streams(ours_out, floor_out, prepared.shards) if deflate == "zlib" else None
    peak = mib(max(r.peak_kib for r in ours_runs + [warmup]))
    # What an empty interpreter reports here: the least a child can show, since it
    # includes this process's own high-water mark (see run_measured).
    baseline = mib(run_measured([sys.executable, "-c", "pass"], logs / "baseline.log").peak_kib)
    load_after = os.getloadavg()

    checks = [
        ("wall-time ratio", f"{ratio:.2f}", f"<= {TARGET_RATIO}", ratio <= TARGET_RATIO),
        ("CPU-time ratio", f"{cpu_ratio:.2f}", "-", None),
        (
            "output size ratio",
            f"{size_ratio:.4f}",
            f"1 +/- {TARGET_SIZE_TOLERANCE:.0%}",
            abs(size_ratio - 1) <= TARGET_SIZE_TOLERANCE,
        ),
        (
            "same deflate stream as level 6",
            {True: "yes", False: "no", None: "n/a"}[same_level],
            "yes" if deflate == "zlib" else "-",
            same_level,
        ),
        ("peak RSS, sitemapkit", f"{peak:.1f} MiB", f"< {TARGET_PEAK_MIB} MiB", peak < TARGET_PEAK_MIB),
        ("URLs written", f"{prepared.urls:,}", f"{args.urls:,}", prepared.urls == args.urls),
        ("same bytes every round", "yes" if deterministic else "no", "yes", deterministic),
    ]

    print()
    layout = (
        f"{len(prepared.shards)} gzip shards + index"
        if prepared.shards
        else "one uncompressed sitemap (too few URLs to shard)"
    )
    print(
        f"sitemapkit core benchmark: {args.urls:,} URLs ({'relative' if args.relative else 'absolute'} "
        f"in the list), {layout}, "
        f"{prepared.uncompressed / 1e6:.1f} MB uncompressed, {args.rounds} round(s)"
    )
    print(
        f"machine: {os.cpu_count()} CPUs, load average {load_before[0]:.2f} before, {load_after[0]:.2f} after "
        "(a shared machine makes wall times noisy; sitemapkit works in one process per core)"
    )
    print(f"deflate: {deflate} in sitemapkit, zlib {zlib.ZLIB_RUNTIME_VERSION} in the floor, both at level 6")
    print()
    print(f"  {'':22}{'wall s':>8}  {'CPU s':>6}  {'peak RSS':>10}  {'output':>10}  rounds (wall s)")
    for label, runs, size in (
        ("sitemapkit generate", ours_runs, ours_size),
        ("floor: zlib level 6", floor_runs, floor_size),
    ):
        print(
            f"  {label:22}{statistics.median(r.wall for r in runs):8.2f}  "
            f"{statistics.median(r.cpu for r in runs):6.2f}  "
            f"{mib(max(r.peak_kib for r in runs)):6.1f} MiB  {size / 1e6:7.2f} MB  "
            + " ".join(f"{r.wall:.2f}" for r in runs)
        )
    print(f"  (an empty interpreter measures {baseline:.1f} MiB here)")
    print()
    print(f"  {'check':32}{'value':>14}  {'target':>12}  result")
    for name, value, target, ok in checks:
        print(f"  {name:32}{value:>14}  {target:>12}  {'info' if ok is None else 'pass' if ok else 'FAIL'}")
    if args.urls != TARGET_URLS:
        print(f"  (the memory target is stated for {TARGET_URLS:,} URLs)")
    if args.keep:
        print(f"\nfiles kept in {work}")
    failed = [name for name, _, _, ok in checks if ok is False]
    return 1 if args.assert_ and failed else 0


def profile(args: argparse.Namespace, work: Path) -> int:
    """``generate`` in this process under cProfile: where the formatting time goes.

    cProfile sees the main thread only, so gzip compression (on the writer thread)
    shows up as the main thread waiting on a lock, if it waits at all. The profiler
    also inflates the cost of small, often-called functions.
    """
    import cProfile
    import pstats

    from sitemapkit.commands.cli import main

    urls_tsv = work / "urls.tsv"
    write_url_list(urls_tsv, args.urls, args.seed, args.relative)
    argv = ["generate", "--input", str(urls_tsv), "--base-url", BASE_URL, "--out", str(work / "out"), "--gzip"]
    profiler = cProfile.Profile()
    started = time.perf_counter()
    profiler.enable()
    status = main(argv)
    profiler.disable()
    print(
        f"profiled generate of {args.urls:,} URLs: {time.perf_counter() - started:.2f}s under cProfile, exit {status}"
    )
    stats = pstats.Stats(profiler).strip_dirs()
    for order in ("tottime", "cumulative"):
        print(f"\n=== top 25 by {order}")
        stats.sort_stats(order).print_stats(25)
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--urls", type=int, help="URLs to write (default 1,000,000; 200,000 with --profile)")
    parser.add_argument("--rounds", type=int, default=3, help="timed runs of each side (median is reported)")
    parser.add_argument("--seed", type=int, default=2, help="seed of the URL list")
    parser.add_argument(
        "--relative", action="store_true", help="write the list's URLs relative to the base URL (the core's fast path)"
    )
    parser.add_argument("--assert", dest="assert_", action="store_true", help="exit 1 when a target is missed")
    parser.add_argument("--profile", action="store_true", help="profile generate in-process instead")
    parser.add_argument("--keep", action="store_true", help="keep the working folder and print its path")
    # Internal: the parent builds the URL list in a child to keep its own RSS small.
    parser.add_argument("--write-urls", metavar="PATH", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.urls is None:
        args.urls = 200_000 if args.profile else TARGET_URLS
    if args.urls < 1 or args.rounds < 1:
        parser.error("--urls and --rounds must be at least 1")

    if args.write_urls:
        write_url_list(Path(args.write_urls), args.urls, args.seed, args.relative)
        return 0
    work = Path(tempfile.mkdtemp(prefix="sitemapkit-bench-"))
    try:
        return (profile if args.profile else benchmark)(args, work)
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
