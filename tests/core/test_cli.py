"""The command line, run as a user runs it: a subprocess, its output and exit code."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import run_sitemapkit as sitemapkit
from conftest import sitemap_entries


def make_site(root: Path) -> Path:
    site = root / "site"
    for rel in ["index.html", "404.html", "guide/index.html", "guide/ü b.html", "a&b.html", ".git/x.html", "style.css"]:
        path = site / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("<html><head><title>t</title></head><body>x</body></html>")
    os.utime(site / "index.html", (1_700_000_000, 1_700_000_000))
    os.utime(site / "guide" / "index.html", (1_700_086_400, 1_700_086_400))
    return site


@pytest.mark.parametrize("command", [[], ["build"], ["generate"], ["check"]])
def test_help(command: list[str]) -> None:
    result = sitemapkit(*command, "--help")
    assert result.returncode == 0 and "usage: sitemapkit" in result.stdout


def test_build_a_static_folder(tmp_path: Path) -> None:
    site = make_site(tmp_path)
    result = sitemapkit("build", str(site), "--base-url", "https://example.org/")
    assert result.returncode == 0, result.stderr
    assert result.stdout.count("\n") == 1 and result.stdout.startswith("sitemapkit: 4 URLs in 2 files")
    entries = sitemap_entries(site)
    assert set(entries) == {
        "https://example.org/",
        "https://example.org/guide/",
        "https://example.org/guide/%C3%BC%20b.html",
        "https://example.org/a&b.html",
    }
    assert entries["https://example.org/"]["lastmod"] == "2023-11-14T22:13:20+00:00"
    assert "Sitemap: https://example.org/sitemap.xml" in (site / "robots.txt").read_text()
    check = sitemapkit("check", str(site), "--base-url", "https://example.org/")
    assert check.returncode == 0, check.stdout
    assert check.stdout.strip() == "sitemapkit check: 4 URLs in 1 file; no problems"


def test_generate_from_a_list(tmp_path: Path) -> None:
    urls = "".join(f"https://example.org/p{i:03d}\t2024-01-{1 + i % 28:02d}\n" for i in range(120))
    result = sitemapkit(
        "generate",
        "--input",
        "-",
        "--base-url",
        "https://example.org/",
        "--out",
        str(tmp_path / "o"),
        "--gzip",
        "--max-urls",
        "50",
        stdin=urls,
    )
    assert result.returncode == 0, result.stderr
    assert "120 URLs in" in result.stdout
    assert len(sitemap_entries(tmp_path / "o")) == 120
    assert all(p.name.endswith(".xml.gz") for p in (tmp_path / "o").glob("sitemap-*"))


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["build", "{site}", "--base-url", "example.org"], "--base-url: 'example.org' is not an absolute http(s) URL"),
        (
            ["build", "{site}", "--base-url", "https://x.org/", "--max-bytes", "60000000"],
            "--max-bytes: 60000000 must be",
        ),
        (
            ["build", "{site}", "--base-url", "https://x.org/", "--filename", "../s.xml"],
            "--filename: '../s.xml' must be a plain file name",
        ),
        (["build", "{missing}", "--base-url", "https://x.org/"], "is not a folder"),
        (
            ["generate", "--input", "{missing}", "--base-url", "https://x.org/", "--out", "{out}"],
            "No such file or directory",
        ),
        (["check", "{site}", "--base-url", "nope"], "--base-url:"),
        (["check", "{missing}", "--base-url", "https://x.org/"], "sitemapkit: error: '{missing}' is not a folder\n"),
        (["check", "{missing}/", "--base-url", "https://x.org/"], "sitemapkit: error: '{missing}/' is not a folder\n"),
        (
            ["build", "{site}", "--base-url", "https://[::1/"],
            "sitemapkit: error: --base-url: 'https://[::1/' has an invalid host or port\n",
        ),
        (
            ["check", "{site}", "--base-url", "https://[::1/"],
            "sitemapkit: error: --base-url: 'https://[::1/' has an invalid host or port\n",
        ),
        (
            ["generate", "--input", "-", "--base-url", "https://[::1/", "--out", "{out}"],
            "sitemapkit: error: --base-url: 'https://[::1/' has an invalid host or port\n",
        ),
        (
            ["build", "{site}", "--base-url", "https://x.org:99999/"],
            "sitemapkit: error: --base-url: 'https://x.org:99999/' has an invalid host or port\n",
        ),
    ],
)
def test_bad_input_is_one_line_never_a_traceback(tmp_path: Path, args: list[str], message: str) -> None:
    site = make_site(tmp_path)
    values = {"site": str(site), "missing": str(tmp_path / "missing"), "out": str(tmp_path / "out")}
    result = sitemapkit(*[a.format(**values) for a in args], stdin="")
    assert result.returncode == 2
    assert "Traceback" not in result.stderr
    assert result.stderr.count("\n") == 1 and message.format(**values) in result.stderr, result.stderr


@pytest.mark.parametrize("command", ["build", "generate", "check"])
def test_every_command_refuses_a_c1_control_in_the_base_url_in_one_line(tmp_path: Path, command: str) -> None:
    """The base URL's one check, as each command says it: NEL (U+0085) is a
    control character there as in every loc, refused before anything is written."""
    site = make_site(tmp_path)
    base = "https://example.org/a\x85b/"
    where = ["--input", "-", "--out", str(tmp_path / "out")] if command == "generate" else [str(site)]
    result = sitemapkit(command, *where, "--base-url", base, stdin="https://example.org/a\x85b/x\n")
    assert result.returncode == 2
    assert result.stderr == f"sitemapkit: error: --base-url: {base!r} contains spaces or control characters\n"
    assert not (site / "sitemap.xml").exists() and not (tmp_path / "out").exists()


def test_bad_lastmod_in_list_is_one_line(tmp_path: Path) -> None:
    result = sitemapkit(
        "generate",
        "--input",
        "-",
        "--base-url",
        "https://x.org/",
        "--out",
        str(tmp_path),
        stdin="https://x.org/a\tyesterday\n",
    )
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert "lastmod 'yesterday' is not a W3C Datetime" in result.stderr


def test_check_reports_problems_with_file_and_line(tmp_path: Path) -> None:
    site = make_site(tmp_path)
    (site / "sitemap.xml").write_text(
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n'
        "<url><loc>https://example.org/</loc></url>\n"
        "<url><loc>https://example.org/guide/ü b.html</loc></url>\n"
        "<url><loc>https://other.org/x</loc></url>\n"
        "<url><loc>https://example.org/missing.html</loc><lastmod>2024-13</lastmod></url>\n"
        "<url><lastmod>2024-01-01</lastmod><loc>https://example.org/a&amp;b.html</loc><changefreq>sometimes</changefreq></url>\n"
        "</urlset>\n"
    )
    (site / "robots.txt").write_text("User-agent: *\nSitemap: https://example.org/nothere.xml\n")
    result = sitemapkit(
        "check", str(site), "--base-url", "https://example.org/", "--report-file", str(tmp_path / "r.txt")
    )
    assert result.returncode == 1
    out = result.stdout
    assert "robots.txt:2: Sitemap: https://example.org/nothere.xml does not point at a sitemap" in out
    assert "sitemap.xml:4: loc 'https://example.org/guide/ü b.html' is not percent-encoded" in out
    assert "sitemap.xml:5: loc https://other.org/x is outside https://example.org/" in out
    assert "sitemap.xml:6: https://example.org/missing.html has no file in the site" in out
    assert "sitemap.xml:6: lastmod '2024-13' is not a W3C Datetime" in out
    assert "sitemap.xml:7: changefreq 'sometimes'" in out
    assert "sitemap.xml:7: <url> children out of order" in out
    assert (tmp_path / "r.txt").read_text().count("\n") == out.count("\n")


def test_check_unescaped_ampersand_and_limits(tmp_path: Path) -> None:
    site = make_site(tmp_path)
    (site / "sitemap.xml").write_text(
        '<?xml version="1.0"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n'
        "<url><loc>https://example.org/a&b.html</loc></url>\n</urlset>\n"
    )
    result = sitemapkit("check", str(site), "--base-url", "https://example.org/")
    assert result.returncode == 1 and "sitemap.xml:3: not well-formed XML" in result.stdout


def test_check_finds_shards_and_over_count(tmp_path: Path) -> None:
    site = make_site(tmp_path)
    assert sitemapkit("build", str(site), "--base-url", "https://example.org/", "--max-urls", "1").returncode == 0
    ok = sitemapkit("check", str(site), "--base-url", "https://example.org/")
    assert ok.returncode == 0 and "4 URLs in" in ok.stdout, ok.stdout


def _pages_with_times(site: Path, times: list[float]) -> None:
    for index, when in enumerate(times):
        page = site / f"section-{index % 7}" / f"page-{index}.html"
        page.parent.mkdir(parents=True, exist_ok=True)
        page.write_text("<html><head><title>t</title></head><body>x</body></html>")
        os.utime(page, (when, when))


@pytest.mark.parametrize("in_repository", [False, True], ids=["outside-git", "ignored-in-a-repository"])
def test_build_on_a_generators_output_gives_no_build_times_and_one_warning(tmp_path: Path, in_repository) -> None:
    # A generator wrote 300 pages over 7 seconds: their file times are the build's.
    site = tmp_path / "project" / "public"
    site.mkdir(parents=True)
    if in_repository:
        from conftest import git

        (site.parent / ".gitignore").write_text("public/\n")
        git(site.parent, "init", "-q")
        git(site.parent, "add", "-A")
        git(site.parent, "commit", "-q", "-m", "site")
    _pages_with_times(site, [1_700_000_000 + 7 * i / 299 for i in range(300)])
    result = sitemapkit(
        "build",
        str(site),
        "--base-url",
        "https://example.org/",
        env={**os.environ, "GIT_CEILING_DIRECTORIES": str(tmp_path)},
    )
    assert result.returncode == 0, result.stderr
    assert {entry["lastmod"] for entry in sitemap_entries(site).values()} == {None}
    (warning,) = result.stderr.splitlines()
    assert "300 pages" in warning and "site build" in warning and "git history" in warning


def test_build_on_a_hand_written_folder_keeps_its_file_times(tmp_path: Path) -> None:
    site = tmp_path / "handmade"
    days = [1_600_000_000 + 86_400 * d + 37 * d * d for d in range(12)]
    _pages_with_times(site, days)
    result = sitemapkit(
        "build",
        str(site),
        "--base-url",
        "https://example.org/",
        env={**os.environ, "GIT_CEILING_DIRECTORIES": str(tmp_path)},
    )
    assert result.returncode == 0 and result.stderr == "", result.stderr
    entries = sitemap_entries(site)
    assert entries["https://example.org/section-3/page-3.html"]["lastmod"] == "2020-09-16T12:32:13+00:00"
    assert all(entry["lastmod"] for entry in entries.values())


def test_x_default_that_is_no_language_is_one_line_naming_the_flag(tmp_path: Path) -> None:
    site = make_site(tmp_path)
    result = sitemapkit("build", str(site), "--base-url", "https://example.org/", "--x-default", "12")
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert result.stderr.count("\n") == 1 and "--x-default: '12' is not a language tag" in result.stderr, result.stderr


def test_bad_lastmod_names_the_line_and_the_url(tmp_path: Path) -> None:
    (tmp_path / "urls.tsv").write_text(
        "https://x.org/a\t2024-05-01\n# comment\nhttps://x.org/b\t2024-13-01\nhttps://x.org/c\n"
    )
    result = sitemapkit(
        "generate",
        "--input",
        str(tmp_path / "urls.tsv"),
        "--base-url",
        "https://x.org/",
        "--out",
        str(tmp_path / "out"),
    )
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert result.stderr.count("\n") == 1, result.stderr
    assert "urls.tsv line 3: https://x.org/b: lastmod '2024-13-01'" in result.stderr


def test_build_skips_what_is_no_regular_file(tmp_path: Path) -> None:
    site = make_site(tmp_path)
    # Opening a FIFO waits for a writer that never comes; a dangling symlink is
    # served as nothing. Neither is a page.
    os.mkfifo(site / "pipe.html")
    (site / "gone.html").symlink_to(site / "deleted.html")
    (site / "alias.html").symlink_to(site / "a&b.html")
    result = sitemapkit("build", str(site), "--base-url", "https://example.org/", timeout=120)
    assert result.returncode == 0 and result.stderr == "", result.stderr
    assert set(sitemap_entries(site)) == {
        "https://example.org/",
        "https://example.org/guide/",
        "https://example.org/guide/%C3%BC%20b.html",
        "https://example.org/a&b.html",
        "https://example.org/alias.html",
    }


@pytest.mark.parametrize("content", [b"User-agent: *\r\nDisallow: /\0\r\n", b"User-agent: *\nDisallow: /\xe9t\xe9\n"])
def test_build_leaves_a_binary_robots_txt_alone_with_one_line(tmp_path: Path, content: bytes) -> None:
    site = make_site(tmp_path)
    (site / "robots.txt").write_bytes(content)
    result = sitemapkit("build", str(site), "--base-url", "https://example.org/")
    reason = (
        f"a NUL byte at offset {content.index(0)}"
        if 0 in content
        else f"byte 0xe9 at offset {content.index(0xE9)} is not UTF-8"
    )
    assert (result.returncode, result.stderr) == (
        2,
        f"sitemapkit: error: {site / 'robots.txt'} is not a UTF-8 text file ({reason}); it was left as it is\n",
    )
    assert (site / "robots.txt").read_bytes() == content
    assert not (site / "sitemap.xml").exists()


def test_check_inflates_a_gzip_bomb_only_up_to_the_limit(tmp_path: Path) -> None:
    import resource
    import zlib

    site = make_site(tmp_path)
    # 1 GiB of zeros in about 1 MB: sixteen members of 64 MiB each.
    compressor = zlib.compressobj(9, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
    member = compressor.compress(bytes(64 << 20)) + compressor.flush()
    (site / "sitemap.xml.gz").write_bytes(member * 16)

    def limit_memory() -> None:
        # Far less than inflating the whole file takes: reading it whole fails.
        resource.setrlimit(resource.RLIMIT_AS, (768 << 20, 768 << 20))

    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "sitemapkit",
            "check",
            str(site),
            "--base-url",
            "https://example.org/",
            "--filename",
            "sitemap.xml.gz",
        ],
        capture_output=True,
        text=True,
        timeout=120,
        preexec_fn=limit_memory,
    )
    assert (result.returncode, result.stderr) == (1, "")
    assert result.stdout == (
        "sitemap.xml.gz:0: more than 52,428,800 bytes uncompressed; the limit is 52,428,800 (not read further)\n"
        "sitemapkit check: 0 URLs in 1 file; 1 problem\n"
    )


def test_lastmod_git_outside_git_is_an_error_that_says_so(tmp_path: Path) -> None:
    site = make_site(tmp_path)
    result = sitemapkit("build", str(site), "--base-url", "https://example.org/", "--lastmod", "git")
    assert result.returncode == 2
    assert result.stdout == ""
    assert (
        result.stderr
        == f"sitemapkit: error: --lastmod: 'git' asks for git dates, but {site} is not in a git work tree\n"
    )
    assert not (site / "sitemap.xml").exists()


def test_flat_file_times_warning_offers_only_what_the_command_line_can_do(tmp_path: Path) -> None:
    site = make_site(tmp_path)
    # More pages than a new project's handful, so their one time is a batch's.
    for number in range(2):
        (site / f"extra-{number}.html").write_text("<html><head><title>t</title></head><body>x</body></html>")
    for page in site.rglob("*.html"):
        os.utime(page, (1_700_000_000, 1_700_000_000))  # as after a fresh checkout
    result = sitemapkit("build", str(site), "--base-url", "https://example.org/")
    assert result.returncode == 0, result.stderr
    # A plain folder's pages can give a date only in their heads: no front matter,
    # no metadata is read, so none is suggested.
    assert result.stderr == (
        "sitemapkit: warning: lastmod omitted: 6 pages (a&b.html, extra-0.html, extra-1.html and 3 more) have "
        "the file times of one checkout, archive or site build, so they "
        "do not tell when a page changed. Build from a full git clone (lastmod 'auto' or 'git'), name the sources "
        "with --source DIR to date pages by their git history, declare each page's date in its head "
        "(<meta property> article:modified_time or og:updated_time, or JSON-LD dateModified), "
        "or set lastmod to 'none'.\n"
    )


def test_the_command_ends_without_teardown_and_loses_no_output(tmp_path: Path) -> None:
    """The process ends by os._exit, skipping the interpreter's teardown: what it
    printed to a pipe (block-buffered) still arrives, its exit status is the
    command's, and a reader gone (``| head``, ``2>&1 | head``), before the output
    is flushed or while it is written, is silent: the command does its work all
    the same (the report file is written) and its status is that work's, as the
    `sitemapkit` script and `python -m` alike."""
    urls = tmp_path / "urls.tsv"
    urls.write_text("".join(f"https://example.org/page-{n}/\n" for n in range(3000)), encoding="utf-8")
    base = ["--base-url", "https://example.org/"]
    generate = ["generate", "--input", str(urls), "--out", str(tmp_path / "out"), *base]
    assert sitemapkit(*generate).returncode == 0
    # Standard output buffered, as it is for a user (not so under PYTHONUNBUFFERED).
    buffered = {name: value for name, value in os.environ.items() if name != "PYTHONUNBUFFERED"}
    for command in ([sys.executable, "-m", "sitemapkit"], [str(Path(sys.executable).with_name("sitemapkit"))]):
        # Longer than a pipe's buffer: a finding for each URL (no page serves
        # it in the folder), as JSON, and the status that says it failed.
        check = [*command, "check", str(tmp_path / "out"), *base, "--format", "json"]
        done = subprocess.run(check, capture_output=True, text=True, env=buffered)
        assert len(done.stdout) > 65_536 and json.loads(done.stdout)["failed"], done.stderr
        assert done.returncode == 1
        missing = [*command, "check", str(tmp_path / "missing"), *base]
        failed = subprocess.run(missing, capture_output=True, text=True, env=buffered)
        assert failed.returncode == 2 and failed.stderr.startswith("sitemapkit: error:"), failed.stderr
        # The summary line, short enough to wait in the buffer for the flush.
        read, write = os.pipe()
        os.close(read)
        try:
            reader_gone = subprocess.run([*command, *generate], stdout=write, stderr=subprocess.DEVNULL, env=buffered)
        finally:
            os.close(write)
        assert reader_gone.returncode == 0
        assert (tmp_path / "out" / "sitemap.xml").exists()
        # A reader that takes one line and goes, while the output is written;
        # the report file is still written.
        report = tmp_path / "report.txt"
        for environment in (buffered, {**buffered, "PYTHONUNBUFFERED": "1"}):
            report.unlink(missing_ok=True)
            reading = [*check, "--report-file", str(report)]
            with subprocess.Popen(reading, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=environment) as head:
                assert head.stdout.readline().startswith(b"{")
                head.stdout.close()
                stderr = head.stderr.read()
            assert (head.returncode, stderr) == (1, b"")
            assert report.read_text(encoding="utf-8").count("\n") > 1000
        # Both streams into one pipe whose reader goes (2>&1 | head), and --help.
        for args in (check, [*command, "--help"]):
            with subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=buffered) as head:
                head.stdout.read(10)
                head.stdout.close()
            assert head.wait() == (1 if args is check else 0)
        # Standard output closed when the command starts: nothing to say, no traceback.
        closed = subprocess.run(["bash", "-c", 'exec "$@" >&-', "bash", *check], stderr=subprocess.PIPE, env=buffered)
        assert closed.returncode == 1 and closed.stderr == b""
