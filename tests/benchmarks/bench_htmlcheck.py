"""Cost of the built-page checks (noindex, canonical, redirect) next to building the pages.

    .venvs/core/bin/python tests/benchmarks/bench_htmlcheck.py --pages 2000 --rounds 5

Two measurements, each over ``--pages`` pages:

1. Generated pages of 20-40 KiB with a head shaped like a Material for MkDocs
   page (meta and link tags, an inline style and a JSON config script, a
   canonical link, so the parser runs on every page: the worst case). Their
   write time stands in for a build: a floor, since a real build also renders
   every page.
2. A real Sphinx build of a generated project (``.venvs/sphinx``, ``-j 1``,
   ``html_baseurl`` set, so every page has a canonical link), then the checks
   over the pages it wrote. Skipped with a message when ``.venvs/sphinx`` is
   missing.
3. The same with a real MkDocs build, Material theme (``.venvs/mkdocs``,
   ``site_url`` set): the generator that builds a page fastest, so the
   hardest budget.

The synthetic measurement times the checks alone (without) and, alternating with
them, the checks plus the head's own dates and hreflang alternates that
build_site reads in the same pass (with), and prints both side by side; a third
of its pages declare dates and alternates, so the parser runs for them. The
budget is held by the "with" figure.

With ``--baseline FILE`` (another version of ``core/site/htmlcheck.py``, e.g.
``git show main:core/site/htmlcheck.py > /tmp/htmlcheck_main.py``), the
synthetic measurement also times that module's checks on the same pages, in
turns with this tree's, and prints the ratio of the two: a change's cost, side
by side in one run.

The figure of merit is the checks' median time over rounds divided by the build
time; the budget is 2% (``--budget 0.02``). Exit status 1 when over budget. The
checks run on warm files, as they do in a build that has just written them.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from sitemapkit.site import htmlcheck

ROOT = Path(__file__).resolve().parents[2]
BASE_URL = "https://bench.example.org/"

_PARAGRAPH = (
    "<p>Static site generators turn plain text into HTML. This paragraph stands in for the "
    "prose of a documentation page, with <em>emphasis</em>, <code>inline code</code> and "
    '<a href="../other/">a link</a>, so that each page weighs what a real one weighs.</p>\n'
)
_CODE = (
    '<div class="highlight"><pre><span></span><code><span class="k">def</span> '
    '<span class="nf">handler</span><span class="p">(</span><span class="n">event</span>'
    '<span class="p">):</span>\n    <span class="k">return</span> <span class="n">event</span>'
    '<span class="o">.</span><span class="n">value</span> <span class="o">*</span> '
    '<span class="mi">2</span>\n</code></pre></div>\n'
)


def _head(url: str, title: str, extra: str) -> str:
    """A head shaped like a Material for MkDocs page's (about 6 KiB)."""
    config = '{"base": "..", "features": ["navigation.instant", "search.highlight"], "search": "../assets/javascripts/workers/search.js", "translations": {"clipboard.copied": "Copied", "search.result.none": "No matching documents"}, "version": null}'
    return (
        '<head>\n<meta charset="utf-8">\n<meta name="viewport" content="width=device-width,initial-scale=1">\n'
        f'<meta name="description" content="{title}: documentation of the benchmark site.">\n'
        '<meta name="author" content="Bench Team">\n'
        f'<link rel="canonical" href="{url}">\n'
        '<link rel="prev" href="../prev/">\n<link rel="next" href="../next/">\n'
        '<link rel="icon" href="../assets/images/favicon.png">\n'
        '<meta name="generator" content="mkdocs-1.6.1, mkdocs-material-9.8.0">\n'
        f"<title>{title} - Bench</title>\n"
        '<link rel="stylesheet" href="../assets/stylesheets/main.8608ea7d.min.css">\n'
        '<link rel="stylesheet" href="../assets/stylesheets/palette.06af60db.min.css">\n'
        '<link rel="preconnect" href="https://fonts.gstatic.com" crossorigin>\n'
        '<link rel="stylesheet" href="https://fonts.googleapis.com/css?family=Roboto:300,300i,400,400i,700,700i%7CRoboto+Mono:400,400i,700,700i&display=fallback">\n'
        '<style>:root{--md-text-font:"Roboto";--md-code-font:"Roboto Mono"}'
        + ".md-typeset h1{margin:0}"
        * 40
        + "</style>\n"
        '<script>__md_scope=new URL("..",location),__md_hash=e=>[...e].reduce(((e,_)=>(e<<5)-e+_.charCodeAt(0)),0),'
        '__md_get=(e,_=localStorage,t=__md_scope)=>JSON.parse(_.getItem(t.pathname+"."+e)),'
        '__md_set=(e,_,t=localStorage,a=__md_scope)=>{try{t.setItem(a.pathname+"."+e,JSON.stringify(_))}catch(e){}}</script>\n'
        + "".join(
            f'<meta property="og:{k}" content="{title} {k}">\n'
            for k in ("title", "type", "url", "image", "description", "site_name")
        )
        + "".join(
            f'<meta name="twitter:{k}" content="{title} {k}">\n' for k in ("card", "title", "description", "image")
        )
        + f'<script id="__config" type="application/json">{config}</script>\n'
        + extra
        + "</head>\n"
    )


def synthetic_page(number: int, rng: random.Random) -> tuple[str, bytes]:
    url = f"{BASE_URL}section{number // 100:02d}/page{number:04d}/"
    kind = rng.random()
    extra = ""
    if kind < 0.02:
        # A redirect stub, as mkdocs-redirects writes them.
        target = f"{BASE_URL}moved/{number}/"
        html = (
            f'<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Redirecting...</title>'
            f'<link rel="canonical" href="{target}"><meta http-equiv="refresh" content="0; url={target}">'
            f'</head><body>Redirecting to <a href="{target}">{target}</a>.</body></html>\n'
        )
        return url, html.encode("utf-8")
    if kind < 0.07:
        extra = '<meta name="robots" content="noindex, nofollow">\n'
    elif kind < 0.10:
        url = url.replace("page", "copy")  # the canonical link names the original
    elif kind < 0.40:
        # A third declare their own dates and language versions (Hugo, Material i18n).
        extra = (
            '<meta property="article:modified_time" content="2024-05-01T10:00:00+00:00">\n'
            f'<link rel="alternate" hreflang="en" href="{url}">\n'
            f'<link rel="alternate" hreflang="fr" href="{url.replace(BASE_URL, BASE_URL + "fr/")}">\n'
        )
    title = f"Page {number}"
    body_parts = ['<body dir="ltr">\n<nav class="md-nav">\n']
    body_parts += [f'<a class="md-nav__link" href="../page{n:04d}/">Page {n}</a>\n' for n in range(60)]
    body_parts.append(f'</nav>\n<article class="md-content__inner md-typeset">\n<h1>{title}</h1>\n')
    target_size = rng.randint(20_000, 40_000)
    size = sum(map(len, body_parts))
    while size < target_size:
        chunk = _PARAGRAPH if rng.random() < 0.7 else _CODE
        body_parts.append(chunk)
        size += len(chunk)
    body_parts.append("</article>\n</body>\n</html>\n")
    canonical_url = f"{BASE_URL}section{number // 100:02d}/page{number:04d}/"
    html = (
        '<!doctype html>\n<html lang="en" class="no-js">\n' + _head(canonical_url, title, extra) + "".join(body_parts)
    )
    return url, html.encode("utf-8")


def load_baseline(path: Path):
    """Another version of htmlcheck.py, loaded beside this tree's (its relative
    imports resolve in the installed sitemapkit.site)."""
    spec = importlib.util.spec_from_file_location("sitemapkit.site.htmlcheck_baseline", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


def check_all(pages: list[tuple[Path, str]], module=htmlcheck) -> tuple[float, dict[str | None, int]]:
    reasons: dict[str | None, int] = {}
    check_built_page = module.check_built_page
    started = time.perf_counter()
    for path, url in pages:
        reason, _target = check_built_page(path, url)
        reasons[reason] = reasons.get(reason, 0) + 1
    return time.perf_counter() - started, reasons


def inspect_all(pages: list[tuple[Path, str]], module=htmlcheck) -> float:
    """The checks plus the head's dates and hreflang alternates, as build_site reads them."""
    inspect_built_page = module.inspect_built_page
    started = time.perf_counter()
    for path, url in pages:
        inspect_built_page(path, url, dates=True, alternates=True)
    return time.perf_counter() - started


def images_all(pages: list[tuple[Path, str]]) -> float:
    """What build_site reads with images on (``images=True``): the checks, the head's
    dates and alternates, and the images of the body, in one read of each page."""
    started = time.perf_counter()
    for path, url in pages:
        htmlcheck.inspect_built_page(path, url, dates=True, alternates=True, images=True)
    return time.perf_counter() - started


def images_side_by_side(name: str, pages: list[tuple[Path, str]], rounds: int, build_seconds: float) -> None:
    """Images off (head only) and on (the whole page), alternating, and their ratio."""
    off, on = [], []
    for _ in range(rounds):
        off.append(inspect_all(pages))
        on.append(images_all(pages))
    off_seconds, on_seconds = statistics.median(off), statistics.median(on)
    print(
        f"{name}: images off {off_seconds * 1e3 / len(pages):.3f} ms a page ({off_seconds / build_seconds:.2%} of the build); "
        f"images on {on_seconds * 1e3 / len(pages):.3f} ms a page ({on_seconds / build_seconds:.2%}); "
        f"ratio {on_seconds / off_seconds:.2f}x"
    )


def measure_synthetic(folder: Path, count: int, rounds: int, baseline=None) -> tuple[float, float, dict]:
    rng = random.Random(20261129)
    generated = [synthetic_page(n, rng) for n in range(count)]
    write_times = []
    pages: list[tuple[Path, str]] = []
    for round_number in range(rounds):
        out = folder / f"synthetic-{round_number}"
        started = time.perf_counter()
        pages = []
        for number, (url, data) in enumerate(generated):
            path = out / f"section{number // 100:02d}" / f"page{number:04d}" / "index.html"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)
            pages.append((path, url))
        write_times.append(time.perf_counter() - started)
    check_times = []
    inspect_times = []
    baseline_check_times = []
    baseline_inspect_times = []
    reasons: dict = {}
    for _ in range(rounds):
        # Side by side, alternating: the checks alone (without), then with the
        # head's dates and alternates read too (with); the baseline's in turn.
        seconds, reasons = check_all(pages)
        check_times.append(seconds)
        inspect_times.append(inspect_all(pages))
        if baseline is not None:
            seconds, baseline_reasons = check_all(pages, baseline)
            baseline_check_times.append(seconds)
            baseline_inspect_times.append(inspect_all(pages, baseline))
            if baseline_reasons != reasons:
                print(f"synthetic: the baseline finds {baseline_reasons}, this tree {reasons}")
    size = sum(len(data) for _url, data in generated) / count / 1024
    print(f"synthetic: {count} pages of {size:.1f} KiB on average; reasons {reasons}")
    without, with_facts = statistics.median(check_times), statistics.median(inspect_times)
    build = statistics.median(write_times)
    print(
        f"synthetic: checks only {without * 1e3 / count:.3f} ms a page ({without / build:.2%} of writing); "
        f"with dates and alternates {with_facts * 1e3 / count:.3f} ms a page ({with_facts / build:.2%}); "
        f"ratio {with_facts / without:.2f}x"
    )
    if baseline is not None:
        old_without = statistics.median(baseline_check_times)
        old_with = statistics.median(baseline_inspect_times)
        print(
            f"synthetic: baseline {baseline.__file__}: checks only {old_without * 1e3 / count:.3f} ms a page, "
            f"with dates and alternates {old_with * 1e3 / count:.3f} ms a page; "
            f"this tree against it: {without / old_without:.2f}x checks only, {with_facts / old_with:.2f}x with"
        )
    images_side_by_side("synthetic", pages, rounds, build)
    check_times = inspect_times  # the budget holds for what build_site reads
    return statistics.median(write_times), statistics.median(check_times), reasons


_RST_PARAGRAPH = (
    "Sphinx turns reStructuredText into HTML. This paragraph stands in for the prose of a "
    "real page: a few sentences with *emphasis*, ``inline code`` and a link to "
    "`the protocol <https://www.sitemaps.org/protocol.html>`_, so that each page costs "
    "about what a small page of real documentation costs to read and write.\n\n"
)


def generate_sphinx_project(src: Path, count: int) -> None:
    sections = [f"section{n:02d}" for n in range((count + 99) // 100)]
    src.mkdir(parents=True)
    (src / "conf.py").write_text(f"project = 'bench'\nhtml_baseurl = {BASE_URL!r}\n")
    (src / "index.rst").write_text(
        "Benchmark\n=========\n\n.. toctree::\n   :maxdepth: 1\n\n" + "".join(f"   {s}/index\n" for s in sections)
    )
    written = 0
    for section in sections:
        names = [f"page{n:03d}" for n in range(min(100, count - written))]
        written += len(names)
        (src / section).mkdir()
        (src / section / "index.rst").write_text(
            f"{section}\n{'=' * len(section)}\n\n.. toctree::\n\n" + "".join(f"   {n}\n" for n in names)
        )
        for number, name in enumerate(names):
            title = f"{section} {name}"
            noindex = "   :robots: noindex\n" if number % 20 == 0 else ""
            meta = f".. meta::\n   :description: {title}\n{noindex}\n"
            (src / section / f"{name}.rst").write_text(
                f"{meta}{title}\n{'=' * len(title)}\n\n"
                + _RST_PARAGRAPH * 12
                + f"Usage\n-----\n\n.. code-block:: python\n\n   def {name}(x):\n       return x * {number}\n\n"
                + f"See :doc:`{names[(number + 1) % len(names)]}` next.\n\n"
                + _RST_PARAGRAPH * 12
            )


def measure_sphinx(folder: Path, python: Path, count: int, rounds: int) -> tuple[float, float, dict] | None:
    if not python.exists():
        print(f"sphinx: skipped, {python} is missing (python3 tests/tasks.py test --only sphinx creates it)")
        return None
    src, out = folder / "sphinx-src", folder / "sphinx-out"
    generate_sphinx_project(src, count)
    command = [
        str(python),
        "-m",
        "sphinx",
        "-q",
        "-b",
        "html",
        "-j",
        "1",
        "-d",
        str(folder / "doctrees"),
        str(src),
        str(out),
    ]
    started = time.perf_counter()
    result = subprocess.run(command, capture_output=True, text=True)
    build_seconds = time.perf_counter() - started
    if result.returncode != 0:
        raise SystemExit(f"sphinx build failed:\n{result.stderr[-3000:]}")
    pages = [
        (path, BASE_URL + path.relative_to(out).as_posix())
        for path in sorted(out.rglob("*.html"))
        if path.relative_to(out).parts[0] not in ("_static", "_sources")
    ]
    check_times = []
    reasons: dict = {}
    for _ in range(rounds):
        seconds, reasons = check_all(pages)
        check_times.append(seconds)
    size = sum(path.stat().st_size for path, _url in pages) / len(pages) / 1024
    print(f"sphinx: {len(pages)} built pages of {size:.1f} KiB on average; reasons {reasons}")
    images_side_by_side("sphinx", pages, rounds, build_seconds)
    return build_seconds, statistics.median(check_times), reasons


_MD_PARAGRAPH = (
    "Static site generators turn plain text into HTML. This paragraph stands in for the prose "
    "of a documentation page, with *emphasis*, `inline code` and [a link](../index.md), so "
    "that each page weighs what a real one weighs.\n\n"
)


def generate_mkdocs_project(root: Path, count: int) -> None:
    docs = root / "docs"
    docs.mkdir(parents=True)
    (root / "mkdocs.yml").write_text(f"site_name: Bench\nsite_url: {BASE_URL}\ntheme:\n  name: material\n")
    (docs / "index.md").write_text("# Bench\n\nThe home page.\n")
    for number in range(count):
        folder = docs / f"section{number // 100:02d}"
        folder.mkdir(exist_ok=True)
        (folder / f"page{number:04d}.md").write_text(
            f"# Page {number}\n\n" + (_MD_PARAGRAPH * 6 + "```python\ndef f(x):\n    return x * 2\n```\n\n") * 3
        )


def measure_mkdocs(folder: Path, mkdocs: Path, count: int, rounds: int) -> tuple[float, float, dict] | None:
    if not mkdocs.exists():
        print(f"mkdocs: skipped, {mkdocs} is missing (python3 tests/tasks.py test --only mkdocs creates it)")
        return None
    root = folder / "mkdocs"
    generate_mkdocs_project(root, count)
    started = time.perf_counter()
    result = subprocess.run([str(mkdocs), "build", "-q"], cwd=root, capture_output=True, text=True)
    build_seconds = time.perf_counter() - started
    if result.returncode != 0:
        raise SystemExit(f"mkdocs build failed:\n{result.stderr[-3000:]}")
    out = root / "site"
    pages = []
    for path in sorted(out.rglob("index.html")):
        folder = path.relative_to(out).parent.as_posix()
        if folder.split("/")[0] not in ("assets", "search"):
            pages.append((path, BASE_URL if folder == "." else f"{BASE_URL}{folder}/"))
    check_times = []
    reasons: dict = {}
    for _ in range(rounds):
        seconds, reasons = check_all(pages)
        check_times.append(seconds)
    size = sum(path.stat().st_size for path, _url in pages) / len(pages) / 1024
    print(f"mkdocs: {len(pages)} built pages of {size:.1f} KiB on average; reasons {reasons}")
    images_side_by_side("mkdocs", pages, rounds, build_seconds)
    return build_seconds, statistics.median(check_times), reasons


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pages", type=int, default=2000, help="pages per measurement (2000)")
    parser.add_argument("--rounds", type=int, default=5, help="rounds of checks; the median counts (5)")
    parser.add_argument("--budget", type=float, default=0.02, help="largest acceptable share of the build (0.02)")
    parser.add_argument("--sphinx-python", type=Path, default=ROOT / ".venvs" / "sphinx" / "bin" / "python")
    parser.add_argument("--mkdocs", type=Path, default=ROOT / ".venvs" / "mkdocs" / "bin" / "mkdocs")
    parser.add_argument("--no-sphinx", action="store_true", help="skip the real Sphinx build")
    parser.add_argument("--no-mkdocs", action="store_true", help="skip the real MkDocs (Material) build")
    parser.add_argument(
        "--baseline", type=Path, help="another htmlcheck.py to time side by side on the synthetic pages"
    )
    args = parser.parse_args()

    print(f"Python {sys.version.split()[0]}, {os.cpu_count()} CPUs")
    over_budget = False
    with tempfile.TemporaryDirectory(prefix="bench-htmlcheck-") as tmp:
        folder = Path(tmp)
        baseline = load_baseline(args.baseline) if args.baseline else None
        write_seconds, check_seconds, _reasons = measure_synthetic(folder, args.pages, args.rounds, baseline)
        per_page = check_seconds / args.pages * 1e6
        print(
            f"  writing the pages {write_seconds:.3f}s; checking them {check_seconds:.3f}s "
            f"({per_page:.0f} us a page): {check_seconds / write_seconds:.1%} of the write time "
            "(writing alone is a floor for a build, not a build)"
        )
        if not args.no_sphinx:
            measured = measure_sphinx(folder, args.sphinx_python, args.pages, args.rounds)
            if measured is not None:
                build_seconds, sphinx_check_seconds, _reasons = measured
                share = sphinx_check_seconds / build_seconds
                over_budget = share > args.budget
                print(
                    f"  sphinx-build -j 1 {build_seconds:.2f}s; checking its pages {sphinx_check_seconds:.3f}s: "
                    f"{share:.2%} of the build, {'OVER' if over_budget else 'within'} budget {args.budget:.0%}"
                )
        if not args.no_mkdocs:
            measured = measure_mkdocs(folder, args.mkdocs, args.pages, args.rounds)
            if measured is not None:
                build_seconds, mkdocs_check_seconds, _reasons = measured
                share = mkdocs_check_seconds / build_seconds
                over_budget |= share > args.budget
                print(
                    f"  mkdocs build (Material) {build_seconds:.2f}s; checking its pages {mkdocs_check_seconds:.3f}s: "
                    f"{share:.2%} of the build, {'OVER' if share > args.budget else 'within'} budget {args.budget:.0%}"
                )
    return 1 if over_budget else 0


if __name__ == "__main__":
    sys.exit(main())
