"""`sitemapkit generate --gzip` against the floor of zlib alone (issue 26).

    .venvs/core/bin/python tests/benchmarks/bench_core.py [--urls N [N ...]] [--rounds R] [--assert]
    .venvs/core/bin/python tests/benchmarks/bench_core.py --profile [--urls N]

For each size in ``--urls`` (default 200,000 and 1,000,000), ``sitemapkit generate
--gzip`` writes that many URLs as gzip shards plus an index. The floor is what a
user would do instead, and the least any writer of those files must do: compress
the very same uncompressed bytes with stock zlib at level 6, one gzip member per
shard, on one thread, and write them.

``generate`` runs twice side by side with the floor: with zlib-ng (the ``fast``
extra, when installed) and with plain zlib (the same program with ``zlib_ng``
blocked from import, so no option of the product is needed). Each variant reports
the deflate it really used and its gzip level. All three run as child processes,
in rotating order, R rounds (default 3); a variant's ratio is the median of its
per-round ratios to the floor of the same round, with their range (min-max).
Before timing, sitemapkit is compiled to bytecode and the children run without
PYTHONDONTWRITEBYTECODE (benchenv.py): a pip-installed user never compiles it.

Targets (issue 26), per size and deflate: with zlib-ng <= 0.9x the floor at 200,000
URLs and <= 0.8x at 1,000,000; with plain zlib <= 1.0x at 1,000,000 (at other sizes
the ratio is information); output at most 1% larger than the floor's; the largest
process under 64 MiB (streaming, never a tree in memory, flat in N). Whether the
deflate stream equals zlib level 6's is information: the level may change as
long as the size holds.

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

from benchenv import child_environment, compile_sitemapkit

BASE_URL = "https://example.org/"
DEFAULT_URLS = [200_000, 1_000_000]
#: (deflate, URLs) -> the most generate's wall time may be, as a share of the floor's.
TARGET_RATIOS = {("zlib-ng", 200_000): 0.9, ("zlib-ng", 1_000_000): 0.8, ("zlib", 1_000_000): 1.0}
#: The most the output may exceed the floor's size (smaller is no fault).
TARGET_SIZE_RATIO = 1.01
TARGET_PEAK_MIB = 64
FLOOR_LEVEL = 6
CHUNK = 1 << 16

# The floor as its own program, so it pays the same interpreter start-up as
# generate and its memory is measured the same way. Files named
# shard-* are compressed; the index is written as it is, as sitemapkit writes it.
FLOOR_PROGRAM = """\
import os, sys, zlib
source, target = sys.argv[1], sys.argv[2]
for name in sorted(os.listdir(source)):
    with open(os.path.join(source, name), "rb") as handle:
        data = handle.read()
    if name.startswith("shard-"):
        compressor = zlib.compressobj(LEVEL, zlib.DEFLATED, 31)
        data = compressor.compress(data) + compressor.flush()
        name += ".gz"
    with open(os.path.join(target, name), "wb") as handle:
        handle.write(data)
""".replace("LEVEL", str(FLOOR_LEVEL))

# generate as a program; ``{block}`` is empty, or the line that keeps zlib_ng from
# being imported (protocol.deflate then falls back to zlib). The same
# call as the `sitemapkit` command and `python -m sitemapkit`, without runpy,
# for both variants alike.
GENERATE_PROGRAM = "import sys; {block}from sitemapkit.__main__ import run; run()"
# What a variant's generate really deflates with, and at which level.
DEFLATE_QUERY = (
    "import sys; {block}from sitemapkit.protocol import deflate; from sitemapkit.publish import publication; "
    "print(deflate.library.__name__.rpartition('.')[2], getattr(publication, 'GZIP_LEVEL', '?'))"
)
BLOCK_ZLIB_NG = "sys.modules['zlib_ng'] = None; "

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
        child = subprocess.Popen(argv, stdout=out, stderr=subprocess.STDOUT, env=child_environment())
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
    #: crc32 of each file's uncompressed bytes, in order: what every variant must write
    crcs: list[int]


def _copy_counting_urls(chunks, target=None) -> tuple[int, int, int]:
    """Write ``chunks`` to ``target`` (if any); the bytes, their crc32 and the ``</url>``
    tags in them."""
    urls = size = crc = 0
    tail = b""
    for data in chunks:
        if target is not None:
            target.write(data)
        size += len(data)
        crc = zlib.crc32(data, crc)
        # A tag may straddle two chunks: carry over fewer bytes than a whole tag,
        # so none is counted twice.
        window = tail + data
        urls += window.count(b"</url>")
        tail = window[-5:]
    return urls, size, crc


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


def _entry_and_shards(sitemapkit_out: Path) -> tuple[Path, list[str]]:
    """The entry point (the index, or the only sitemap when everything fits one file)
    and the gzip shards, sorted."""
    names = sorted(p.name for p in sitemapkit_out.iterdir() if p.name.endswith(".xml.gz"))
    return sitemapkit_out / "sitemap.xml", names


def prepare_floor_input(sitemapkit_out: Path, floor_in: Path) -> Prepared:
    """Decompress sitemapkit's shards into ``floor_in`` (not timed), copy its entry
    point, and count the URLs written."""
    entry, names = _entry_and_shards(sitemapkit_out)
    prepared = Prepared([], 0, 0, [])
    for number, name in enumerate(names, 1):
        floor_name = f"shard-{number:05d}.xml"
        with open(floor_in / floor_name, "wb") as target:
            counted, size, crc = _copy_counting_urls(_gunzip_chunks(sitemapkit_out / name), target)
        prepared.urls, prepared.uncompressed = prepared.urls + counted, prepared.uncompressed + size
        prepared.shards.append((name, floor_name))
        prepared.crcs.append(crc)
    with open(floor_in / "index.xml", "wb") as target:
        counted, size, crc = _copy_counting_urls(_file_chunks(entry), target)
    prepared.urls, prepared.uncompressed = prepared.urls + counted, prepared.uncompressed + size
    prepared.crcs.append(crc)
    return prepared


def uncompressed_crcs(sitemapkit_out: Path) -> list[int]:
    """crc32 of each file's uncompressed bytes, in the order of :attr:`Prepared.crcs`."""
    entry, names = _entry_and_shards(sitemapkit_out)
    crcs = [_copy_counting_urls(_gunzip_chunks(sitemapkit_out / name))[2] for name in names]
    return crcs + [_copy_counting_urls(_file_chunks(entry))[2]]


def same_deflate_streams(sitemapkit_out: Path, floor_out: Path, shards: list[tuple[str, str]]) -> bool:
    """Whether every shard's deflate data equals the floor's (zlib level 6) for the same bytes.

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


@dataclasses.dataclass(frozen=True)
class Variant:
    """One way of running generate: the deflate it is meant to use, and the Python
    that goes before the import of sitemapkit to make it so."""

    deflate: str
    block: str
    #: the gzip level it writes at, once asked (deflate_in_use)
    level: str = "?"

    def command(self, args: list[str]) -> list[str]:
        return [sys.executable, "-c", GENERATE_PROGRAM.format(block=self.block), *args]


VARIANTS = (Variant("zlib-ng", ""), Variant("zlib", BLOCK_ZLIB_NG))


def deflate_in_use(variant: Variant) -> tuple[str, str]:
    """The deflate library and gzip level ``variant``'s generate really uses, asked
    of a child (importing sitemapkit here would raise this process's high-water
    mark, which Linux folds into every child's peak RSS)."""
    query = subprocess.run(
        [sys.executable, "-c", DEFLATE_QUERY.format(block=variant.block)],
        capture_output=True,
        text=True,
        check=True,
        env=child_environment(),
    )
    library, level = query.stdout.split()
    return library.replace("zlib_ng", "zlib-ng"), level


@dataclasses.dataclass
class Row:
    """One size and one variant, after every round."""

    urls: int
    deflate: str
    level: str
    runs: list[Run]
    floor_runs: list[Run]
    size_ratio: float
    same_stream: bool | None
    peak_mib: float
    urls_written: int
    same_xml: bool
    deterministic: bool

    @property
    def ratios(self) -> list[float]:
        """generate's wall time over the floor's, round by round."""
        return [ours.wall / floor.wall for ours, floor in zip(self.runs, self.floor_runs)]

    @property
    def ratio(self) -> float:
        return statistics.median(self.ratios)

    @property
    def target(self) -> float | None:
        return TARGET_RATIOS.get((self.deflate, self.urls))

    @property
    def meets_target(self) -> bool | None:
        """None where the issue sets no target for this deflate at this size."""
        return None if self.target is None else self.ratio <= self.target


def median_wall(runs: list[Run]) -> float:
    return statistics.median(r.wall for r in runs)


def measure(urls: int, variants: list[Variant], args: argparse.Namespace, work: Path) -> list[Row]:
    """Every variant and the floor at one size, in rotating order, ``args.rounds`` rounds."""
    work.mkdir()
    urls_tsv, logs = work / "urls.tsv", work / "logs"
    logs.mkdir()
    started = time.perf_counter()
    run_measured(
        [sys.executable, __file__, "--write-urls", str(urls_tsv), "--urls", str(urls), "--seed", str(args.seed)]
        + (["--relative"] if args.relative else []),
        logs / "urls.log",
    )
    print(
        f"\n{urls:,} URLs: list of {urls_tsv.stat().st_size / 1e6:.1f} MB "
        f"({time.perf_counter() - started:.1f}s, not timed)",
        flush=True,
    )
    outs = {v.deflate: work / f"sitemapkit-{v.deflate}" for v in variants}
    floor_in, floor_out = fresh(work / "floor_in"), work / "floor_out"
    commands = {
        v.deflate: v.command(
            ["generate", "--input", str(urls_tsv), "--base-url", BASE_URL, "--out", str(outs[v.deflate]), "--gzip"]
        )
        for v in variants
    }
    commands["floor"] = [sys.executable, "-c", FLOOR_PROGRAM, str(floor_in), str(floor_out)]

    # A first, untimed run of each variant writes the shards the floor compresses and
    # warms the page cache, so no side pays for a cold start the others do not.
    expected, warmups, prepared = {}, {}, None
    for variant in variants:
        out = fresh(outs[variant.deflate])
        warmups[variant.deflate] = run_measured(commands[variant.deflate], logs / f"warmup-{variant.deflate}.log")
        expected[variant.deflate] = tree_digest(out)
        if prepared is None:
            prepared = prepare_floor_input(out, floor_in)
        print(f"  warm-up, {variant.deflate}: {warmups[variant.deflate].output}", flush=True)
    assert prepared is not None
    layout = (
        f"{len(prepared.shards)} gzip shards + index"
        if prepared.shards
        else "one uncompressed sitemap (too few URLs to shard, so nothing is compressed)"
    )
    print(f"  written: {layout}, {prepared.uncompressed / 1e6:.1f} MB uncompressed", flush=True)
    # Both deflates must have compressed the same XML, or the floor is not theirs.
    same_xml = {v.deflate: sorted(uncompressed_crcs(outs[v.deflate])) == sorted(prepared.crcs) for v in variants}

    sides = ["floor"] + [v.deflate for v in variants]
    runs: dict[str, list[Run]] = {side: [] for side in sides}
    deterministic = {v.deflate: True for v in variants}
    for round_ in range(args.rounds):
        # Rotate, so drift in machine load hits every side alike.
        for side in sides[round_ % len(sides) :] + sides[: round_ % len(sides)]:
            fresh(floor_out if side == "floor" else outs[side])
            runs[side].append(run_measured(commands[side], logs / f"{side}-{round_ + 1}.log"))
            if side != "floor":
                deterministic[side] = deterministic[side] and tree_digest(outs[side]) == expected[side]
        print(
            f"  round {round_ + 1}/{args.rounds}: " + ", ".join(f"{side} {runs[side][-1].wall:.2f}s" for side in sides),
            flush=True,
        )

    floor_size = folder_size(floor_out)
    rows = []
    for variant in variants:
        out, library = outs[variant.deflate], variant.deflate
        rows.append(
            Row(
                urls=urls,
                deflate=library,
                level=variant.level,
                runs=runs[library],
                floor_runs=runs["floor"],
                size_ratio=folder_size(out) / floor_size,
                # zlib-ng makes another stream at the same level: only zlib's compares
                # (and only where something was compressed).
                same_stream=same_deflate_streams(out, floor_out, prepared.shards)
                if library == "zlib" and prepared.shards
                else None,
                peak_mib=mib(max(r.peak_kib for r in runs[library] + [warmups[library]])),
                urls_written=prepared.urls,
                same_xml=same_xml[library],
                deterministic=deterministic[library],
            )
        )
    # The list and the decompressed shards take hundreds of MB at 1,000,000 URLs.
    if not args.keep:
        shutil.rmtree(work, ignore_errors=True)
    return rows


def verdict(ok: bool | None) -> str:
    return "info" if ok is None else "pass" if ok else "FAIL"


def benchmark(args: argparse.Namespace, work: Path) -> int:
    folders = compile_sitemapkit()
    variants = []
    for variant in VARIANTS:
        library, level = deflate_in_use(variant)
        if library != variant.deflate:
            if variant.deflate == "zlib-ng" and library == "zlib":
                print("the `fast` extra (zlib-ng) is not installed: generate runs with plain zlib only")
                continue
            raise SystemExit(
                f"bench_core: the {variant.deflate} variant deflates with {library}: the comparison is void"
            )
        variants.append(dataclasses.replace(variant, level=level))
    load_before = os.getloadavg()
    rows = [row for urls in args.urls for row in measure(urls, variants, args, work / f"urls-{urls}")]
    baseline = mib(run_measured([sys.executable, "-c", "pass"], work / "baseline.log").peak_kib)
    load_after = os.getloadavg()

    print(
        f"\nsitemapkit core benchmark: generate --gzip, {', '.join(f'{n:,}' for n in args.urls)} URLs "
        f"({'relative' if args.relative else 'absolute'} in the list), {args.rounds} round(s) each"
    )
    print(
        f"machine: {os.cpu_count()} CPUs, load average {load_before[0]:.2f} before, {load_after[0]:.2f} after "
        "(a shared machine makes wall times noisy; sitemapkit works in one process per core)"
    )
    print(
        "deflate: "
        + ", ".join(f"{v.deflate} at level {v.level}" for v in variants)
        + f" in sitemapkit; stock zlib {zlib.ZLIB_RUNTIME_VERSION} at level {FLOOR_LEVEL}, one thread, in the floor"
    )
    print(f"bytecode: compiled before timing ({', '.join(folders)}); children may use it")
    print(f"peak RSS: the largest process of each run (an empty interpreter measures {baseline:.1f} MiB here)")

    checks = []
    for row in rows:
        cpu_ratio = statistics.median(r.cpu for r in row.runs) / statistics.median(r.cpu for r in row.floor_runs)
        stream = {True: "yes", False: "no", None: "n/a"}[row.same_stream]
        checks += [
            # Less sensitive to other work on the machine than wall time; not a target,
            # since sitemapkit may spend more CPU than the floor on a second core.
            (row, "CPU-time ratio", f"{cpu_ratio:.2f}", "-", None),
            (
                row,
                "output size / floor's",
                f"{row.size_ratio:.4f}",
                f"<= {TARGET_SIZE_RATIO}",
                row.size_ratio <= TARGET_SIZE_RATIO,
            ),
            (row, f"same stream as zlib {FLOOR_LEVEL} (level {row.level})", stream, "-", None),
            (
                row,
                "largest process",
                f"{row.peak_mib:.1f} MiB",
                f"< {TARGET_PEAK_MIB} MiB",
                row.peak_mib < TARGET_PEAK_MIB,
            ),
            (row, "URLs written", f"{row.urls_written:,}", f"{row.urls:,}", row.urls_written == row.urls),
            (row, "same XML as the floor's input", "yes" if row.same_xml else "no", "yes", row.same_xml),
            (row, "same bytes every round", "yes" if row.deterministic else "no", "yes", row.deterministic),
        ]
    print(f"\n  {'URLs':>10}  {'deflate':8}  {'check':34}{'value':>12}  {'target':>10}  result")
    for row, name, value, target, ok in checks:
        print(f"  {row.urls:>10,}  {row.deflate:8}  {name:34}{value:>12}  {target:>10}  {verdict(ok)}")

    print(
        f"\n  {'URLs':>10}  {'deflate':8}  {'floor s':>8}  {'sitemapkit s':>12}  {'median ratio':>12}  "
        f"{'range':>11}  {'target':>7}  result"
    )
    for row in rows:
        print(
            f"  {row.urls:>10,}  {row.deflate:8}  {median_wall(row.floor_runs):8.2f}  {median_wall(row.runs):12.2f}  "
            f"{row.ratio:11.2f}x  {min(row.ratios):5.2f}-{max(row.ratios):.2f}x  "
            f"{'-' if row.target is None else f'<= {row.target}':>7}  {verdict(row.meets_target)}"
        )
    if args.keep:
        print(f"\nfiles kept in {work}")
    failed = any(ok is False for *_, ok in checks) or any(row.meets_target is False for row in rows)
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

    for urls in args.urls:
        urls_tsv = work / f"urls-{urls}.tsv"
        write_url_list(urls_tsv, urls, args.seed, args.relative)
        out = work / f"out-{urls}"
        argv = ["generate", "--input", str(urls_tsv), "--base-url", BASE_URL, "--out", str(out), "--gzip"]
        profiler = cProfile.Profile()
        started = time.perf_counter()
        profiler.enable()
        status = main(argv)
        profiler.disable()
        print(f"profiled generate of {urls:,} URLs: {time.perf_counter() - started:.2f}s under cProfile, exit {status}")
        stats = pstats.Stats(profiler).strip_dirs()
        for order in ("tottime", "cumulative"):
            print(f"\n=== top 25 by {order}")
            stats.sort_stats(order).print_stats(25)
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument(
        "--urls",
        type=int,
        nargs="+",
        help="sizes, each measured in turn (default 200,000 and 1,000,000; 200,000 with --profile)",
    )
    parser.add_argument(
        "--rounds", type=int, default=3, help="timed runs of each side at each size (medians and ranges are reported)"
    )
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
        args.urls = [200_000] if args.profile else DEFAULT_URLS
    if min(args.urls) < 1 or args.rounds < 1:
        parser.error("--urls and --rounds must be at least 1")

    if args.write_urls:
        write_url_list(Path(args.write_urls), args.urls[0], args.seed, args.relative)
        return 0
    work = Path(tempfile.mkdtemp(prefix="sitemapkit-bench-"))
    try:
        return (profile if args.profile else benchmark)(args, work)
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
