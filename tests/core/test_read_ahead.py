"""build_site reading its pages' heads and walking its output folder in worker
processes (build._ReadAhead) must write, byte for byte, and report what it writes
and reports doing both itself, for every kind of page an adapter hands over."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from conftest import assert_valid, killed_in_workers, read_ahead_in_workers
from sitemapkit import Options, Page, build_site
from sitemapkit.engine import workers

BASE = "https://example.org/docs/"
ROOT_USER = hasattr(os, "geteuid") and os.geteuid() == 0


def _write(path: Path, head: str, stamp: int) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"<!doctype html><html><head><title>t</title>{head}</head><body>x</body></html>")
    os.utime(path, (stamp, stamp))


def adapter_pages(root: Path) -> tuple[Path, list[Page]]:
    """A built folder and the pages an adapter hands over for it: every kind
    build_site tells apart, spread over many chunks."""
    site, docs = root / "site", root / "docs"
    pages = []
    for number in range(240):
        name = f"s{number // 20}/p{number}"
        stamp = 1_700_000_000 + number * 3_613
        url = f"{BASE}{name}/"
        kind = number % 12
        head = f'<link rel="canonical" href="{url}">'
        if kind == 1:
            head = '<meta name="robots" content="noindex">'
        elif kind == 2:
            head = f'<link rel="canonical" href="{BASE}s0/p0/">'
        elif kind == 3:
            head = '<meta http-equiv="refresh" content="0; url=../p0/">'
        elif kind == 4:
            head = f'<link rel="canonical" href="{BASE}nowhere/">'  # broken: stays listed
        elif kind == 5:
            head += '<meta property="article:modified_time" content="2024-03-01T10:00:00+02:00">'
        elif kind == 6:
            other = f"{BASE}s{number // 20}/p{number + 1}/"
            head += (
                f'<link rel="alternate" hreflang="en" href="{url}"><link rel="alternate" hreflang="fr" href="{other}">'
            )
        elif kind == 7:
            other = f"{BASE}s{number // 20}/p{number - 1}/"
            head += (
                f'<link rel="alternate" hreflang="en" href="{other}"><link rel="alternate" hreflang="fr" href="{url}">'
            )
        output = site / name / "index.html"
        _write(output, head, stamp)
        source = docs / f"{name}.md"
        source.parent.mkdir(parents=True, exist_ok=True)
        source.write_text("x")
        os.utime(source, (stamp - 60, stamp - 60))
        fields: dict = {"source": source, "output": output}
        if kind == 8:
            fields["output"] = os.path.relpath(output)  # another spelling of the same file
        elif kind == 9:
            fields["output"] = site / name / "gone.html"  # not written
        elif kind == 10:
            fields["listed"] = False
        elif kind == 11 and number % 24 == 11:
            fields["exclude_reason"] = "search page"
        pages.append(Page(f"{name}/", **fields))
    # A listing page dated by its members, a page out of scope, one twice.
    pages.append(Page("tags/", members=tuple(p.loc for p in pages[:30]), output=site / "tags" / "index.html"))
    _write(site / "tags" / "index.html", "", 1_700_000_000)
    pages.append(Page("https://elsewhere.example/x/", output=site / "s0" / "p0" / "index.html"))
    pages.append(Page("s0/p0/", source=docs / "s0" / "p0.md", output=site / "s0" / "p0" / "index.html"))
    # Files no page stands for: another plugin's redirect stub, a theme's page.
    _write(site / "old" / "index.html", '<meta http-equiv="refresh" content="0; url=../s0/p0/">', 1_600_000_000)
    _write(site / "theme.html", "", 1_600_000_000)
    _write(site / "404.html", "", 1_600_000_000)
    if not ROOT_USER:
        locked = site / "s3" / "locked" / "index.html"
        _write(locked, "", 1_700_000_000)
        locked.chmod(0)
        pages.append(Page("s3/locked/", output=locked))
    return site, sorted(pages, key=lambda page: page.loc)


def written(site: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(site.iterdir()) if p.is_file()}


@pytest.mark.parametrize("options", [{}, {"lastmod": "none"}, {"exclude": ["s1/*"]}, {"format": "txt"}])
def test_worker_processes_write_and_report_what_one_process_does(tmp_path: Path, monkeypatch, options: dict) -> None:
    monkeypatch.chdir(tmp_path)  # the relative outputs are relative to here
    site, pages = adapter_pages(tmp_path)
    opts = Options(base_url=BASE, max_urls=40, report_file="report.txt", **{"lastmod": "mtime", **options})

    def build() -> tuple:
        report = build_site(pages, opts, site)
        result = (written(site), report.excluded, report.notices, report.advice, report.urls)
        for file in list(site.iterdir()):
            if file.is_file() and file.name.startswith(("sitemap", "report")):
                file.unlink()
        return result

    results = {"here": build()}  # a few hundred pages: read here
    with read_ahead_in_workers(monkeypatch):
        results["workers"] = build()
    assert results["workers"] == results["here"]
    files, excluded, notices = results["here"][:3]
    reasons = {(item.reason, item.loc) for item in excluded}
    assert ("noindex", f"{BASE}s0/p1/") in reasons
    assert ("redirect", f"{BASE}old/") in reasons  # a file no page stands for, with its head's reason
    assert ("not a page", f"{BASE}theme.html") in reasons
    assert not any(loc.endswith("/p8/") for _, loc in reasons)  # its output, spelled relatively, was handed
    if not ROOT_USER and not options.get("exclude"):
        assert ("unreadable", f"{BASE}s3/locked/") in {(item.reason, item.loc) for item in excluded}
    assert any(notice.code == "canonical" for notice in notices)
    if options.get("format") != "txt":
        body = b"".join(files.values())
        assert (b"<xhtml:link" in body) and ((b"<lastmod>" in body) == (options.get("lastmod") != "none"))
        for name, data in files.items():
            if name.endswith(".xml"):
                assert_valid(data)


def test_no_worker_is_forked_while_other_threads_run() -> None:
    """A lock another thread holds at a fork stays held in the child for ever
    (mkdocs serve's live-reload server runs threads): such a process does the
    work itself."""
    import threading

    assert workers.can_fork()
    stop = threading.Event()
    other = threading.Thread(target=stop.wait)
    other.start()
    try:
        assert not workers.can_fork()
        pool = workers.start_pool(dict, (), 2)
        assert isinstance(pool, workers.InProcess)
        assert pool.submit(sum, [1, 2]).result() == 3
    finally:
        stop.set()
        other.join()


def _echo_reversed(state: dict, data: bytes) -> bytes:
    return data[::-1]


def _fail(state: dict, message: str) -> None:
    raise ValueError(message)


def test_workers_take_and_give_more_than_a_pipe_holds_in_order() -> None:
    """Tasks and results of a megabyte each (a pipe holds 64 KiB), several held
    by each worker at once: this process never waits on a pipe a worker is
    waiting on too, and results come back in the order tasks went out; a task's
    exception is raised here, and the workers go on."""
    import signal

    def stuck(*_: object) -> None:
        raise TimeoutError("this process and a worker wait on each other")

    assert workers.can_fork()
    blocks = [os.urandom(1 << 20) for _ in range(9)]
    previous = signal.signal(signal.SIGALRM, stuck)
    signal.alarm(60)
    try:
        _take_and_give(blocks)
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def _take_and_give(blocks: list[bytes]) -> None:
    with workers.Workers(dict, (), count=2) as pool:
        assert isinstance(pool._pool, workers.ForkPool)
        results = list(pool.in_order((_echo_reversed, (block,)) for block in blocks))
        assert results == [block[::-1] for block in blocks]
        with pytest.raises(ValueError, match="no such page"):
            pool.result(pool.submit(_fail, "no such page"))
        assert pool.result(pool.submit(_echo_reversed, b"abc")) == b"cba"
        assert isinstance(pool._pool, workers.ForkPool)  # no worker was lost


# build_site as an adapter's tool calls it, in a process of its own.
_BUILD_SITE = """
import sys
from pathlib import Path
from sitemapkit import Options, Page, build_site
site = Path(sys.argv[1])
pages = [Page(f"p{n}/", output=site / f"p{n}" / "index.html") for n in range(int(sys.argv[2]))]
build_site(sorted(pages, key=lambda page: page.loc), Options(base_url="https://example.org/"), site)
"""


@pytest.mark.skipif(not Path("/proc/self/task").exists(), reason="finds workers in /proc (Linux)")
@pytest.mark.parametrize("command", ["sitemapkit build", "build_site"])
def test_workers_end_when_their_run_is_killed(tmp_path: Path, command: str) -> None:
    """SIGKILL runs no clean-up: the workers of `sitemapkit build` and of
    build_site must notice the end of their run themselves, not live on."""
    import signal
    import subprocess
    import sys
    import time

    pages = 3 * workers.POOL_FROM_CHUNKS * workers.CHUNK_PAGES  # enough for workers
    site = tmp_path / "site"
    for number in range(pages):
        (site / f"p{number}").mkdir(parents=True)
        (site / f"p{number}" / "index.html").write_text(f"<html><head><title>{number}</title></head></html>")
    argv = {
        "sitemapkit build": [sys.executable, "-m", "sitemapkit", "build", str(site), "--base-url", BASE],
        "build_site": [sys.executable, "-c", _BUILD_SITE, str(site), str(pages)],
    }[command]

    def children(pid: int) -> set[int]:
        found: set[int] = set()
        for task in Path(f"/proc/{pid}/task").iterdir():
            try:
                found.update(int(child) for child in (task / "children").read_text().split())
            except OSError:
                pass
        return found

    def alive(pids: set[int]) -> set[int]:
        living = set()
        for pid in pids:
            try:
                if Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z":
                    living.add(pid)
            except OSError:
                pass
        return living

    for _ in range(20):  # the workers run for a moment: kill the run then
        run = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        seen: set[int] = set()
        while run.poll() is None and not seen:
            seen = children(run.pid)
        if not seen:
            continue
        run.send_signal(signal.SIGKILL)
        run.wait()
        for _ in range(100):
            if not alive(seen):
                break
            time.sleep(0.02)
        assert alive(seen) == set()
        return
    pytest.fail("no run was caught with its workers")


def test_a_worker_killed_leaves_the_reading_to_the_build(tmp_path: Path, monkeypatch) -> None:
    """A worker killed under build_site (out of memory, by a user) loses nothing:
    the build reads the heads itself and writes what it writes without workers."""
    from sitemapkit.engine import pages as build

    monkeypatch.chdir(tmp_path)
    site, pages = adapter_pages(tmp_path)
    opts = Options(base_url=BASE, max_urls=40, lastmod="mtime")
    build_site(pages, opts, site)
    expected = written(site)
    killed_in_workers(monkeypatch, build, "head_verdict")
    with read_ahead_in_workers(monkeypatch):
        report = build_site(pages, opts, site)
    assert written(site) == expected and report.urls > 100


def test_a_pages_content_gives_its_images_in_one_process_and_with_workers(tmp_path: Path, monkeypatch) -> None:
    # An adapter that hands each page's own content (MkDocs' page.content): its
    # images are read from the content, not from the themed page's body, the head
    # still checked and its og:image still listed, whoever reads the heads.
    site = tmp_path / "site"
    pages = []
    for number in range(12):
        name = f"p{number}"
        head = f'<link rel="canonical" href="{BASE}{name}/"><meta property="og:image" content="/social/{name}.png">'
        if number == 3:
            head = '<meta name="robots" content="noindex">'
        output = site / name / "index.html"
        output.parent.mkdir(parents=True)
        output.write_text(
            f"<!doctype html><html><head>{head}</head><body><main><img src='/theme/banner.png'>"
            f"<img src='body-{number}.png'></main></body></html>"
        )
        content = None if number == 5 else f'<p>Text</p><figure><img src="content-{number}.png"></figure>'
        if number == 7:
            content = "<p>No image</p>"
        pages.append(Page(f"{name}/", output=output, content_html=content))
    options = Options(base_url=BASE, images=True, lastmod="none")

    def build() -> bytes:
        build_site(pages, options, site)
        return (site / "sitemap.xml").read_bytes()

    here = build()
    with read_ahead_in_workers(monkeypatch):
        assert build() == here
    assert_valid(here)
    assert b"body-1.png" not in here and here.count(b"banner.png") == 1  # p5's, whose body was read
    assert f"<loc>{BASE}p1/</loc><image:image><image:loc>https://example.org/social/p1.png</image:loc>".encode() in here
    assert f"<image:loc>{BASE}p1/content-1.png</image:loc>".encode() in here
    assert f"<image:loc>{BASE}p5/body-5.png</image:loc>".encode() in here  # no content given: the body read
    assert b"content-7" not in here and b"body-7.png" not in here
    assert f"{BASE}p3/".encode() not in here  # noindex: the head is read all the same
