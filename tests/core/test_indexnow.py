"""`sitemapkit changes` and `sitemapkit indexnow` against a real HTTP server on 127.0.0.1.

The server serves a "live" folder (what was deployed), answers for the IndexNow
endpoint as each test tells it, and records every request. Builds are real
`sitemapkit build` runs in real git repositories with set commit dates, so the
change list comes from true dates. Nothing leaves the machine.
"""

from __future__ import annotations

import datetime as dt
import gzip
import http.server
import json
import shutil
import socket
import sys
import threading
import time
from pathlib import Path

import pytest
from conftest import git, run_sitemapkit, sitemap_entries

from sitemapkit.audit import indexnow
from sitemapkit.audit.changes import change_list
from sitemapkit.protocol.errors import SitemapkitError

KEY = "a1b2c3d4-e5f6-0718"


class _Server(http.server.ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.root: Path | None = None
        self.requests: list[dict] = []
        # Answers of the IndexNow endpoint, in turn: (status, headers); the last one repeats.
        self.answers: list[tuple[int, dict[str, str]]] = [(200, {})]
        # Paths answered as given: path -> (status, headers, body).
        self.special: dict[str, tuple[int, dict[str, str], bytes]] = {}
        self.slow = 0.0

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}/"

    def posts(self) -> list[dict]:
        return [r for r in self.requests if r["method"] == "POST"]

    def gets(self) -> list[str]:
        return [r["path"] for r in self.requests if r["method"] == "GET"]


class _Handler(http.server.BaseHTTPRequestHandler):
    server: _Server

    def log_message(self, *args) -> None:
        pass

    def _answer(self, status: int, headers: dict[str, str], body: bytes) -> None:
        self.send_response(status)
        for name, value in headers.items():
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self) -> None:
        self.server.requests.append({"method": "GET", "path": self.path, "headers": dict(self.headers)})
        if self.path in self.server.special:
            self._answer(*self.server.special[self.path])
            return
        root = self.server.root
        path = root / self.path.lstrip("/") if root is not None else None
        if path is None or not path.is_file():
            self._answer(404, {}, b"not found")
        else:
            self._answer(200, {}, path.read_bytes())

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers["Content-Length"]))
        self.server.requests.append(
            {"method": "POST", "path": self.path, "headers": dict(self.headers), "body": json.loads(body)}
        )
        if self.server.slow:
            time.sleep(self.server.slow)
        answers = self.server.answers
        status, headers = answers.pop(0) if len(answers) > 1 else answers[0]
        self._answer(status, headers, b"")


@pytest.fixture
def server():
    srv = _Server()
    thread = threading.Thread(target=srv.serve_forever, daemon=True)
    thread.start()
    yield srv
    srv.shutdown()
    srv.server_close()


def page(title: str) -> str:
    return f"<!doctype html><html><head><title>{title}</title></head><body>{title}</body></html>\n"


def commit(repo: Path, message: str, when: dt.datetime) -> None:
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", message, when=when)


def build(repo: Path, base: str, *extra: str) -> None:
    done = run_sitemapkit(
        "build", str(repo / "public"), "--base-url", base, "--source", str(repo / "content"), "--max-urls", "50", *extra
    )
    assert done.returncode == 0, done.stderr


def deploy(repo: Path, live: Path) -> None:
    if live.exists():
        shutil.rmtree(live)
    shutil.copytree(repo / "public", live)


def write_page(repo: Path, name: str, text: str) -> None:
    (repo / "content" / f"{name}.md").write_text(f"# {text}\n")
    (repo / "public" / name).mkdir(parents=True, exist_ok=True)
    (repo / "public" / name / "index.html").write_text(page(text))


@pytest.fixture
def deployed(tmp_path: Path, server: _Server) -> tuple[Path, Path]:
    """A Hugo-shaped site in git (content/ tracked, public/ ignored), built with
    the IndexNow key and deployed to the server's folder; then three pages edited
    in new commits, two added, one removed, and built again (not deployed)."""
    repo = tmp_path / "repo"
    (repo / "content").mkdir(parents=True)
    (repo / "public").mkdir()
    (repo / ".gitignore").write_text("public/\n")
    git(repo, "init", "-q", "-b", "main")
    day = dt.datetime(2024, 3, 1, 12, 0, tzinfo=dt.timezone.utc)
    # Enough pages for stable shards of a few URLs each (see encoder.ShardPlanner).
    for number in range(200):
        write_page(repo, f"page{number:03d}", f"Page {number}")
    commit(repo, "first", day)
    build(repo, server.url, "--indexnow-key", KEY)
    live = tmp_path / "live"
    deploy(repo, live)
    server.root = live
    for number, name in enumerate(["page003", "page111", "page170"]):
        (repo / "content" / f"{name}.md").write_text(f"# {name}, edited\n")
        commit(repo, f"edit {name}", day + dt.timedelta(days=10 + number))
    write_page(repo, "new-a", "New A")
    write_page(repo, "new-b", "New B")
    (repo / "content" / "page070.md").unlink()
    shutil.rmtree(repo / "public" / "page070")
    commit(repo, "add two, remove one", day + dt.timedelta(days=20))
    build(repo, server.url, "--indexnow-key", KEY)
    return repo, live


def test_three_edits_two_added_one_removed_give_exactly_six_urls(deployed, server: _Server, tmp_path: Path) -> None:
    repo, live = deployed
    base = server.url
    out = tmp_path / "changes.json"
    done = run_sitemapkit("changes", str(repo / "public"), "--since", base + "sitemap.xml", "--output", str(out))
    assert done.returncode == 0, done.stderr
    assert "6 URLs changed" in done.stdout and "2 added, 3 updated, 1 removed" in done.stdout
    data = json.loads(out.read_text())
    kinds = {change["url"]: change["kind"] for change in data["changes"]}
    assert kinds == {
        base + "page003/": "updated",
        base + "page111/": "updated",
        base + "page170/": "updated",
        base + "new-a/": "added",
        base + "new-b/": "added",
        base + "page070/": "removed",
    }
    new = sitemap_entries(repo / "public")
    assert all(
        change["lastmod"] == new[change["url"]]["lastmod"] for change in data["changes"] if change["kind"] != "removed"
    )
    assert data["site"] == base and data["published_before"] is True
    # Only robots.txt and sitemap files were asked for; the shards the two sets
    # share (named by their content) not at all.
    fetched = server.gets()
    assert all(path == "/robots.txt" or path.startswith("/sitemap") for path in fetched), fetched
    shared = {p.name for p in live.glob("sitemap-*.xml")} & {p.name for p in (repo / "public").glob("sitemap-*.xml")}
    assert shared, "no shard is the same on both sides: the test would show nothing"
    assert not {"/" + name for name in shared} & set(fetched)
    assert "unchanged, not parsed" in done.stdout

    # The deploy, then the submission: the key file first, then one POST.
    deploy(repo, live)
    assert (live / f"{KEY}.txt").read_text() == KEY
    server.requests.clear()
    done = run_sitemapkit("indexnow", "--changes", str(out), "--key", KEY, "--endpoint", base + "indexnow")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().endswith(f"6 URLs submitted in 1 request to {base}indexnow")
    assert server.requests[0]["path"] == f"/{KEY}.txt"
    (post,) = server.posts()
    assert post["headers"]["Content-Type"] == "application/json; charset=utf-8"
    assert post["body"] == {
        "host": base[len("http://") : -1],
        "key": KEY,
        "keyLocation": f"{base}{KEY}.txt",
        "urlList": sorted(kinds),
    }


def test_changes_in_one_step_with_the_key_from_the_environment(deployed, server: _Server) -> None:
    repo, live = deployed
    done = run_sitemapkit(
        "indexnow",
        str(repo / "public"),
        "--since",
        server.url + "robots.txt",
        "--endpoint",
        server.url + "indexnow",
        env={**__import__("os").environ, "INDEXNOW_KEY": KEY},
    )
    assert done.returncode == 0, done.stderr
    (post,) = server.posts()
    assert len(post["body"]["urlList"]) == 6


def test_unchanged_shards_are_not_parsed_on_either_side(tmp_path: Path) -> None:
    """A shard with the same name and bytes on both sides is skipped: here it is
    not even XML, and no error says so."""
    from sitemapkit import Options, Page, build_site

    old, new = tmp_path / "old", tmp_path / "new"
    for folder, pages in ((old, ["a", "b"]), (new, ["a", "b", "c"])):
        folder.mkdir()
        build_site([Page(p, lastmod="2024-01-01") for p in pages], Options(base_url="https://example.org/"), folder)
    # Turn both sides into an index naming a shared shard that is no XML at all.
    for folder in (old, new):
        urlset = (folder / "sitemap.xml").read_text()
        (folder / "sitemap-same.xml").write_bytes(b"this is not XML, and it is the same on both sides")
        (folder / "sitemap-own.xml").write_text(urlset)
        (folder / "sitemap.xml").write_text(
            '<?xml version="1.0" encoding="UTF-8"?>\n<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n'
            "<sitemap><loc>https://example.org/sitemap-same.xml</loc></sitemap>\n"
            "<sitemap><loc>https://example.org/sitemap-own.xml</loc></sitemap>\n</sitemapindex>\n"
        )
    result = change_list(new, str(old))
    assert [(c.url, c.kind) for c in result.changes] == [("https://example.org/c", "added")]
    assert result.unchanged_files == 1
    # Changed on one side: now it is read, and its bytes are no sitemap.
    (old / "sitemap-same.xml").write_bytes(b"this is not XML either, but other bytes")
    with pytest.raises(SitemapkitError, match="sitemap-same.xml .* is not a sitemap"):
        change_list(new, str(old))


def test_nothing_published_before(tmp_path: Path, server: _Server) -> None:
    from sitemapkit import Options, Page, build_site

    new = tmp_path / "new"
    new.mkdir()
    build_site([Page("a"), Page("b")], Options(base_url=server.url), new)
    empty = tmp_path / "empty"
    empty.mkdir()
    server.root = empty
    for since in (str(empty), server.url + "sitemap.xml", server.url + "robots.txt"):
        done = run_sitemapkit("changes", str(new), "--since", since)
        assert done.returncode == 0, done.stderr
        assert (
            done.stdout
            == f"sitemapkit changes: no sitemap was published before at {since}; nothing listed (--all lists every URL as added)\n"
        )
        done = run_sitemapkit("changes", str(new), "--since", since, "--all")
        assert done.stdout.splitlines()[:2] == [f"added\t{server.url}a", f"added\t{server.url}b"]


def test_25000_changed_urls_go_in_three_requests(tmp_path: Path, server: _Server) -> None:
    live = tmp_path / "live"
    live.mkdir()
    (live / f"{KEY}.txt").write_text(KEY + "\n")
    server.root = live
    urls = [f"{server.url}p/{n:05d}" for n in range(25_000)]
    changes = tmp_path / "changes.json"
    changes.write_text(json.dumps({"site": server.url, "changes": [{"url": u, "kind": "updated"} for u in urls]}))
    done = run_sitemapkit("indexnow", "--changes", str(changes), "--key", KEY, "--endpoint", server.url + "indexnow")
    assert done.returncode == 0, done.stderr
    assert "25,000 URLs submitted in 3 requests" in done.stdout
    assert [len(p["body"]["urlList"]) for p in server.posts()] == [10_000, 10_000, 5_000]
    assert [u for p in server.posts() for u in p["body"]["urlList"]] == urls


@pytest.fixture
def change_file(tmp_path: Path, server: _Server) -> Path:
    live = tmp_path / "live"
    live.mkdir()
    (live / f"{KEY}.txt").write_text(KEY)
    server.root = live
    changes = tmp_path / "changes.json"
    changes.write_text(
        json.dumps(
            {
                "site": server.url,
                "changes": [
                    {"url": server.url + "a", "kind": "added"},
                    {"url": server.url + "b", "kind": "removed"},
                    {"url": "https://elsewhere.example/c", "kind": "updated"},
                    {"url": server.url.replace("127.0.0.1", "localhost") + "d", "kind": "updated"},
                ],
            }
        )
    )
    return changes


def submit_cli(change_file: Path, server: _Server, *extra: str):
    return run_sitemapkit(
        "indexnow", "--changes", str(change_file), "--key", KEY, "--endpoint", server.url + "indexnow", *extra
    )


def one_line(text: str) -> str:
    assert "Traceback" not in text
    lines = [line for line in text.splitlines() if not line.startswith("sitemapkit: warning:")]
    assert len(lines) == 1, text
    return lines[0]


def test_urls_of_another_host_are_refused_never_sent(change_file: Path, server: _Server) -> None:
    done = submit_cli(change_file, server)
    assert done.returncode == 0, done.stderr
    (post,) = server.posts()
    assert post["body"]["urlList"] == [server.url + "a", server.url + "b"]
    assert "2 URLs of the change list are not on 127.0.0.1" in done.stderr


def test_urls_outside_the_key_location_folder_are_refused(change_file: Path, server: _Server) -> None:
    (server.root / "docs").mkdir()
    (server.root / "docs" / f"{KEY}.txt").write_text(KEY)
    done = submit_cli(change_file, server, "--key-location", f"{server.url}docs/{KEY}.txt")
    assert done.returncode == 0, done.stderr
    assert "no URL to submit" in done.stdout and not server.posts()


@pytest.mark.parametrize(
    "status, words",
    [(400, "bad request"), (403, "key not valid"), (422, "URLs not on the host")],
)
def test_each_refusal_is_one_line_and_a_failure(change_file: Path, server: _Server, status: int, words: str) -> None:
    server.answers = [(status, {})]
    done = submit_cli(change_file, server)
    assert done.returncode != 0
    line = one_line(done.stderr)
    assert words in line and f"HTTP {status}" in line and "0 of 2 URLs accepted, 2 not" in line
    assert len(server.posts()) == 1


def test_busy_endpoint_retried_then_one_line(change_file: Path, server: _Server) -> None:
    server.answers = [(503, {"Retry-After": "0"})]
    done = submit_cli(change_file, server)
    assert done.returncode != 0
    line = one_line(done.stderr)
    assert f"HTTP 503 (a server error) {indexnow.MAX_ATTEMPTS} times" in line and "0 of 2 URLs accepted, 2 not" in line
    assert len(server.posts()) == indexnow.MAX_ATTEMPTS


def test_429_honours_retry_after(change_file: Path, server: _Server) -> None:
    server.answers = [(429, {"Retry-After": "7"}), (503, {}), (200, {})]
    plan = indexnow.plan([server.url + "a"], server.url, KEY)
    waits: list[float] = []
    assert indexnow.submit(plan, server.url + "indexnow", sleep=waits.append) == 3
    assert waits == [7.0, indexnow.FIRST_BACKOFF * 2]
    # Asked to wait longer than a deploy should: no more tries, one line with the counts.
    server.requests.clear()
    server.answers = [(200, {}), (429, {"Retry-After": "3600"})]
    plan = indexnow.plan([server.url + f"{n}" for n in range(5)], server.url, KEY)
    with pytest.raises(indexnow.SubmitError, match="asks to wait 3600 s; try again later; 2 of 5 URLs accepted, 3 not"):
        indexnow.submit(plan, server.url + "indexnow", per_request=2, sleep=waits.append)
    assert len(server.posts()) == 2


@pytest.mark.parametrize("served", [None, "another-key-12345", KEY + "-longer"])
def test_key_file_missing_or_wrong_stops_before_anything_is_sent(
    change_file: Path, server: _Server, served: str | None
) -> None:
    key_file = server.root / f"{KEY}.txt"
    if served is None:
        key_file.unlink()
    else:
        key_file.write_text(served)
    done = submit_cli(change_file, server)
    assert done.returncode != 0
    line = one_line(done.stderr)
    assert f"the IndexNow key file must be at {server.url}{KEY}.txt, holding exactly the key" in line
    assert not server.posts()


def test_key_location_on_another_host_is_refused(change_file: Path, server: _Server) -> None:
    done = submit_cli(change_file, server, "--key-location", f"https://elsewhere.example/{KEY}.txt")
    assert done.returncode != 0
    assert "must be an http(s) URL on the site's host" in one_line(done.stderr)
    assert not server.requests


@pytest.mark.parametrize("key", ["short", "x" * 129, "has space here", "bad_underscore"])
def test_a_bad_key_is_one_line(change_file: Path, server: _Server, key: str) -> None:
    done = run_sitemapkit("indexnow", "--changes", str(change_file), "--key", key)
    assert done.returncode == 2
    assert one_line(done.stderr).startswith("sitemapkit: error: --key: ")
    done = run_sitemapkit("build", str(change_file.parent), "--base-url", server.url, "--indexnow-key", key)
    assert one_line(done.stderr).startswith("sitemapkit: error: --indexnow-key: ")
    assert not server.requests


def test_unreachable_endpoint_is_one_line(change_file: Path, server: _Server) -> None:
    with socket.socket() as closed:
        closed.bind(("127.0.0.1", 0))
        port = closed.getsockname()[1]
    done = run_sitemapkit(
        "indexnow", "--changes", str(change_file), "--key", KEY, "--endpoint", f"http://127.0.0.1:{port}/indexnow"
    )
    assert done.returncode != 0
    line = one_line(done.stderr)
    assert "connection refused" in line and "0 of 2 URLs accepted" in line
    # An endpoint that answers too late.
    server.slow = 3.0
    done = submit_cli(change_file, server, "--timeout", "0.5")
    assert "did not answer within 0.5 seconds" in one_line(done.stderr)


def test_dry_run_sends_nothing(change_file: Path, server: _Server) -> None:
    done = submit_cli(change_file, server, "--dry-run")
    assert done.returncode == 0, done.stderr
    request_line, summary = done.stdout.splitlines()
    assert json.loads(request_line.split(" ", 2)[2])["urlList"] == [server.url + "a", server.url + "b"]
    assert "dry run: 2 URLs in 1 request" in summary and "nothing sent" in summary
    assert not server.requests


def test_dry_run_names_the_shared_endpoint_by_default(change_file: Path, server: _Server) -> None:
    done = run_sitemapkit("indexnow", "--changes", str(change_file), "--key", KEY, "--dry-run")
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("POST https://api.indexnow.org/indexnow {")
    assert not server.requests


def test_retry_after_as_a_date(server: _Server) -> None:
    server.answers = [(429, {"Retry-After": "Wed, 21 Oct 2015 07:28:00 GMT"}), (202, {})]
    waits: list[float] = []
    plan = indexnow.plan([server.url + "a"], server.url, KEY)
    assert indexnow.submit(plan, server.url + "indexnow", sleep=waits.append) == 2
    assert waits == [0.0]


def test_the_key_file_may_not_take_the_name_of_another_output() -> None:
    from sitemapkit import ConfigError, Options
    from sitemapkit.publish.publication import check_names

    for options in (
        Options(base_url="https://example.org/", format="txt", filename="sitemap-key.txt", indexnow_key="sitemap-key"),
        Options(base_url="https://example.org/", report_file="report-file.txt", indexnow_key="report-file"),
    ):
        with pytest.raises(ConfigError, match="the IndexNow key file"):
            check_names(options)


def _new_site(tmp_path: Path, server: _Server) -> Path:
    from sitemapkit import Options, Page, build_site

    new = tmp_path / "new"
    new.mkdir()
    build_site([Page("a")], Options(base_url=server.url), new)
    return new


def test_a_live_gzip_bomb_is_one_line(tmp_path: Path, server: _Server) -> None:
    new = _new_site(tmp_path, server)
    bomb = gzip.compress(b" " * (60 * 1024 * 1024), 9)
    server.special["/sitemap.xml.gz"] = (200, {}, bomb)
    server.special["/sitemap.xml"] = (200, {"Content-Encoding": "gzip"}, bomb)
    for name in ("sitemap.xml.gz", "sitemap.xml"):
        done = run_sitemapkit("changes", str(new), "--since", server.url + name)
        assert done.returncode != 0
        assert "more than 52,428,800 bytes uncompressed" in one_line(done.stderr)


@pytest.mark.parametrize(
    "body", [b"<html><body>Welcome</body></html>", b"not xml at all", b"<urlset><url><loc>x</url>"]
)
def test_a_live_sitemap_that_is_not_xml_is_one_line(tmp_path: Path, server: _Server, body: bytes) -> None:
    new = _new_site(tmp_path, server)
    server.special["/sitemap.xml"] = (200, {}, body)
    done = run_sitemapkit("changes", str(new), "--since", server.url + "sitemap.xml")
    assert done.returncode != 0
    assert "is not a sitemap" in one_line(done.stderr)


def test_redirects_stay_on_the_host_and_are_few(tmp_path: Path, server: _Server) -> None:
    new = _new_site(tmp_path, server)
    live = tmp_path / "live"
    shutil.copytree(new, live)
    server.root = live
    server.special["/old-sitemap.xml"] = (301, {"Location": "/sitemap.xml"}, b"")
    done = run_sitemapkit("changes", str(new), "--since", server.url + "old-sitemap.xml")
    assert done.returncode == 0, done.stderr
    assert "0 URLs changed" in done.stdout
    server.special["/away.xml"] = (302, {"Location": "https://elsewhere.example/sitemap.xml"}, b"")
    done = run_sitemapkit("changes", str(new), "--since", server.url + "away.xml")
    assert "on another host; not followed" in one_line(done.stderr)
    server.special["/page.xml"] = (302, {"Location": "/index.html"}, b"")
    done = run_sitemapkit("changes", str(new), "--since", server.url + "page.xml")
    assert "which is no robots.txt or sitemap; not followed" in one_line(done.stderr)
    for n in range(7):
        server.special[f"/loop{n}.xml"] = (302, {"Location": f"/loop{n + 1}.xml"}, b"")
    done = run_sitemapkit("changes", str(new), "--since", server.url + "loop0.xml")
    assert "redirects more than 5 times" in one_line(done.stderr)
    assert "/loop6.xml" not in server.gets() and "/index.html" not in server.gets()


def test_since_names_no_page(tmp_path: Path, server: _Server) -> None:
    new = _new_site(tmp_path, server)
    done = run_sitemapkit("changes", str(new), "--since", server.url + "about/")
    assert "give the URL of the live site's robots.txt, sitemap or index" in one_line(done.stderr)
    assert not server.requests


def test_the_key_option_writes_the_key_file_and_contacts_nothing(tmp_path: Path) -> None:
    from sitemapkit import Options, Page, build_site
    from sitemapkit.publish import publication

    connected: list = []

    def audit(event: str, args: tuple) -> None:
        if event in ("socket.connect", "socket.getaddrinfo", "socket.gethostbyname"):
            connected.append(args)

    sys.addaudithook(audit)
    out = tmp_path / "out"
    out.mkdir()
    options = Options(base_url="https://example.org/", indexnow_key=KEY)
    report = build_site([Page("a")], options, out)
    assert (out / f"{KEY}.txt").read_bytes() == KEY.encode()
    assert f"{KEY}.txt" in report.files
    assert not connected
    # Published with the set: a run stopped at the switch leaves the key file as it was.
    (out / f"{KEY}.txt").unlink()

    def stop(operation: str, name: str) -> None:
        if operation == "rename" and name == "sitemap.xml":
            raise KeyboardInterrupt

    publication.fault_hook = stop
    try:
        with pytest.raises(KeyboardInterrupt):
            build_site([Page("a"), Page("b")], options, out)
    finally:
        publication.fault_hook = None
    assert not (out / f"{KEY}.txt").exists()
    assert sorted(p.name for p in out.iterdir()) == ["robots.txt", "sitemap.xml"]
