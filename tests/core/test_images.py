"""Image entries (issue 23): Google's <image:image><image:loc> in the encoder, the
option everywhere, the limits with images counted, and `generate`'s image columns."""

from __future__ import annotations

import io
import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import IMAGE_NS, assert_valid, sitemap_entries, usp_images
from sitemapkit import Options, Page
from sitemapkit.engine.urllist import write_url_list
from sitemapkit.protocol.encoder import EncodeResult, encode_pages
from sitemapkit.protocol.limits import MAX_IMAGES_PER_URL
from sitemapkit.protocol.model import Report

BASE = "https://example.org/docs/"


def run(pages, max_images: int = MAX_IMAGES_PER_URL, **options):
    result = EncodeResult()
    files = list(encode_pages(pages, Options(base_url=BASE, **options), result, max_images=max_images))
    return files, result


def images_of(data: bytes) -> dict[str, list[str]]:
    from lxml import etree

    root = etree.fromstring(data)
    ns = {"s": "http://www.sitemaps.org/schemas/sitemap/0.9", "i": IMAGE_NS}
    return {url.findtext("s:loc", namespaces=ns): url.xpath("i:image/i:loc/text()", namespaces=ns) for url in root}


def test_images_are_resolved_encoded_escaped_listed_once_and_the_namespace_declared() -> None:
    page = Page(
        "guide/",
        images=(
            "img/a b.png",  # relative to the page, a space encoded
            "/docs/guide/img/a%20b.png",  # the same image, host-relative: listed once
            "https://cdn.example.net/ü.jpg?x=1&y=2",  # another host, IRI, escaped &
            "data:image/png;base64,AAAA",
            "blob:https://example.org/1",
            "javascript:alert(1)",
            "https://exa mple.org:99999/x.png",  # not a URL: passed over, no error
            "../logo.svg",
        ),
    )
    files, result = run([page, Page("plain/")])
    (file,) = files
    assert_valid(file.data)
    assert file.data.count(b'xmlns:image="' + IMAGE_NS.encode() + b'"') == 1
    assert b"x=1&amp;y=2" in file.data
    assert images_of(file.data) == {
        BASE + "guide/": [
            BASE + "guide/img/a%20b.png",
            "https://cdn.example.net/%C3%BC.jpg?x=1&y=2",
            BASE + "logo.svg",
        ],
        BASE + "plain/": [],
    }
    assert usp_images(file.data)[BASE + "guide/"] == images_of(file.data)[BASE + "guide/"]
    assert result.images == file.images == 3
    assert result.image_hosts == {"example.org": 2, "cdn.example.net": 1}


def test_no_images_no_namespace_and_the_option_turns_them_off() -> None:
    files, _ = run([Page("a/")])
    assert b"xmlns:image" not in files[0].data
    files, result = run([Page("a/", images=("x.png",))], images=False)
    assert b"image" not in files[0].data and result.images == 0


def test_images_are_on_by_default_and_images_false_lists_none() -> None:
    for options, listed in (({}, 1), ({"images": False}, 0)):
        result = EncodeResult()
        files = list(encode_pages([Page("a/", images=("x.png",))], Options(base_url=BASE, **options), result))
        assert (b"<image:loc>" in files[0].data, result.images) == (bool(listed), listed)


def test_the_first_images_in_document_order_are_listed_and_the_page_reported() -> None:
    page = Page("a/", images=tuple(f"{i}.png" for i in range(5)) + ("0.png",))
    files, result = run([page, Page("b/", images=("1.png", "2.png", "1.png"))], max_images=2)
    assert images_of(files[0].data) == {
        BASE + "a/": [BASE + "a/0.png", BASE + "a/1.png"],
        BASE + "b/": [BASE + "b/1.png", BASE + "b/2.png"],  # a repeat is no third image
    }
    assert result.images_cut == [BASE + "a/"]


def test_image_hosts_restricts_hosts_by_glob() -> None:
    page = Page("a/", images=("x.png", "https://cdn.example.net/y.png", "https://evil.test/z.png"))
    files, result = run([page], image_hosts=["example.org", "*.example.net"])
    assert images_of(files[0].data)[BASE + "a/"] == [BASE + "a/x.png", "https://cdn.example.net/y.png"]


@pytest.mark.parametrize("max_bytes", [1_024, 1_100, 1_500, 2_000])
def test_byte_and_count_limits_hold_to_the_byte_with_images_counted(max_bytes: int) -> None:
    pages = [
        Page(f"p{i:04d}/", images=tuple(f"https://cdn.example.net/{i}/{k}.png" for k in range(i % 4)))
        for i in range(300)
    ]
    files, result = run(pages, max_bytes=max_bytes, max_urls=7)
    listed: dict[str, list[str]] = {}
    for file in files:
        assert len(file.data) <= max_bytes
        assert_valid(file.data)
        if file.kind == "urlset":
            assert file.count <= 7
            found = images_of(file.data)
            listed.update(found)
            # The namespace only where an entry of the file has images.
            assert (b"xmlns:image" in file.data) == any(found.values())
    assert len(listed) == 300
    assert result.images == sum(i % 4 for i in range(300))
    assert listed[BASE + "p0003/"] == [f"https://cdn.example.net/3/{k}.png" for k in range(3)]


def test_a_file_exactly_at_the_limit_with_an_image() -> None:
    page = Page("a/", images=("x.png",))
    (file,), _ = run([page])
    size = len(file.data)
    (at,), _ = run([page], max_bytes=max(1_024, size))
    assert len(at.data) == size
    if size > 1_024:
        files, result = run([page], max_bytes=size - 1)
        assert not files and result.excluded[0].reason == "too long"


def test_stable_shards_stay_stable_when_another_pages_images_change() -> None:
    def site(extra: tuple[str, ...]):
        pages = [Page(f"p{i:04d}/", images=(f"{i}.png",) + (extra if i == 150 else ())) for i in range(400)]
        files, _ = run(pages, max_bytes=4_000)
        return {f.name: f.data for f in files if f.kind == "urlset"}

    before, after = site(()), site(("more.png",))
    changed = set(before.items()) ^ set(after.items())
    # Only the shard holding p0150 has new bytes (old name and new name).
    assert len(changed) == 2
    assert sum(1 for name in before if name in after) == len(before) - 1


def test_the_text_format_has_no_images_and_the_summary_says_so() -> None:
    files, result = run([Page("a/", images=("x.png", "y.png"))], format="txt")
    assert files[0].data == BASE.encode() + b"a/\n"
    assert result.images_unwritten == 2
    report = Report(urls=1, files=["sitemap.txt"], images_unwritten=2)
    assert "the text format has no images" in report.summary()


def test_summary_gives_the_image_count() -> None:
    report = Report(urls=123, files=["sitemap.xml"], images=456)
    assert report.summary().startswith("sitemapkit: 123 URLs, 456 images in 1 file")
    assert Report(urls=3, files=["sitemap.xml"]).summary().startswith("sitemapkit: 3 URLs in 1 file")


@pytest.mark.parametrize("source_kind", ["file", "stream"])
def test_generate_takes_images_as_columns_after_lastmod(tmp_path: Path, source_kind: str) -> None:
    data = (
        "https://example.org/docs/a/\t2024-01-02\timg/1.png\thttps://cdn.example.net/2.png\n"
        "b/\t\t/docs/b.png\n"  # the lastmod column empty
        "c/\t2024-01-03\n"
        "d/\n"
    ).encode()
    out = tmp_path / source_kind
    out.mkdir()
    result = EncodeResult()
    if source_kind == "file":
        (tmp_path / "urls.tsv").write_bytes(data)
        with open(tmp_path / "urls.tsv", "rb") as source:
            write_url_list(source, Options(base_url=BASE, images=True), out, result)
    else:
        write_url_list(io.BytesIO(data), Options(base_url=BASE, images=True), out, result)
    entries = sitemap_entries(out)
    assert {loc: e.get("images", []) for loc, e in entries.items()} == {
        BASE + "a/": [BASE + "a/img/1.png", "https://cdn.example.net/2.png"],
        BASE + "b/": [BASE + "b.png"],
        BASE + "c/": [],
        BASE + "d/": [],
    }
    assert entries[BASE + "a/"]["lastmod"] == "2024-01-02" and entries[BASE + "b/"]["lastmod"] is None
    assert result.images == 3


@pytest.mark.parametrize("spelling", ["images", "image_hosts"])
def test_the_options_are_declared_once_for_every_tool(spelling: str) -> None:
    spec = {s.name: s for s in Options.specs()}[spelling]
    assert spec.default == (True if spelling == "images" else ())
    from sitemapkit.commands import cli

    parser = cli.build_parser() if hasattr(cli, "build_parser") else None
    if parser is not None:
        text = parser.format_help()
        assert text


def test_cli_build_has_images_and_no_images(tmp_path: Path) -> None:
    import subprocess
    import sys

    run_help = subprocess.run(
        [sys.executable, "-m", "sitemapkit", "build", "--help"], capture_output=True, text=True, check=True
    )
    assert re.search(r"--images, --no-images|--\[no-\]images|--no-images", run_help.stdout)
    assert "--image-hosts" in run_help.stdout


# ---- images read from built pages (the body, in the same pass as the head) -----------

from sitemapkit import build_site  # noqa: E402
from sitemapkit.site.htmlcheck import inspect_built_page  # noqa: E402
from sitemapkit.site.htmlscan import COMPILED_SCANS, BodyImages, HeadReader, largest_candidate  # noqa: E402

SHOWN = """<!doctype html><html><head><title>t</title>
<meta property="og:image" content="/docs/social/{name}.png">
<link rel="icon" href="/docs/favicon.png"></head>
<body><header><img src="/docs/logo.png" alt="logo"></header>
<!-- <img src="comment.png"> --><script>var s = "<img src=script.png>"</script>
<main><p><img src="img/a.png" srcset="img/a-1.png 100w, img/a-2.png 800w, img/a-3.png 400w" loading="lazy">
<a title='<img src="attribute.png">'>x</a>
<picture><source srcset="img/p.webp 1x, img/p2.webp 2x"><img src="img/p.png"></picture>
<svg><image xlink:href="img/s.svg"/></svg><template><img src="t.png"></template>
<img src="data:image/png;base64,AAAA"><img src="https://cdn.example.net/{name}.jpg"><img src="img/a-2.png">
</main><footer><img src="/docs/badge.svg"></footer></body></html>
"""


def test_a_page_shows_its_content_images_in_order_and_not_its_chrome(tmp_path: Path) -> None:
    page = tmp_path / "page.html"
    page.write_text(SHOWN.format(name="one"))
    facts = inspect_built_page(page, BASE + "guide/", images=True)
    assert facts.images == (
        BASE + "social/one.png",
        BASE + "guide/img/a-2.png",  # srcset: the widest
        BASE + "guide/img/p2.webp",  # <picture><source>: the densest
        BASE + "guide/img/p.png",
        BASE + "guide/img/s.svg",
        "https://cdn.example.net/one.jpg",
        BASE + "guide/img/a-2.png",  # the writer lists it once
    )
    # Nothing is read of the body unless images are wanted.
    assert inspect_built_page(page, BASE + "guide/", images=False).images == ()


def test_base_href_resolves_the_images(tmp_path: Path) -> None:
    page = tmp_path / "page.html"
    page.write_text('<html><head><base href="https://example.org/static/"></head><body><img src="x.png">')
    assert inspect_built_page(page, BASE + "guide/", images=True).images == ("https://example.org/static/x.png",)


def test_build_site_lists_content_images_leaves_chrome_and_unlisted_pages_out(tmp_path: Path) -> None:
    pages = []
    for name in ["a", "b", "c", "d", "e"]:
        (tmp_path / name).mkdir()
        (tmp_path / name / "index.html").write_text(SHOWN.format(name=name).replace("<main>", '<div class="x">'))
        pages.append(Page(f"{name}/", output=tmp_path / name / "index.html"))
    # A noindex page's images are not listed; a page whose adapter names images keeps them.
    (tmp_path / "hidden.html").write_text(
        '<html><head><meta name="robots" content="noindex"></head><body><img src="secret.png">'
    )
    pages.append(Page("hidden.html", output=tmp_path / "hidden.html"))
    (tmp_path / "robots.txt").write_text("User-agent: *\nDisallow: /docs/private/\n")
    (tmp_path / "f.html").write_text('<body><img src="private/x.png"><img src="public/y.png">')
    pages.append(Page("f.html", output=tmp_path / "f.html"))
    report = build_site(pages, Options(base_url=BASE, lastmod="none", images=True), tmp_path)
    entries = sitemap_entries(tmp_path)
    # Without a content element the whole body counts; the images on most pages
    # (logo, badge, the template's shared ones) are chrome.
    assert entries[BASE + "a/"]["images"] == [
        BASE + "social/a.png",
        *(BASE + "a/img/" + name for name in ["a-2.png", "p2.webp", "p.png", "s.svg"]),
        "https://cdn.example.net/a.jpg",
    ]
    assert BASE + "hidden.html" not in entries
    assert entries[BASE + "f.html"]["images"] == [BASE + "public/y.png"]  # robots.txt disallows the other
    assert report.images == sum(len(e.get("images", [])) for e in entries.values())
    assert f"{report.images} images in 1 file" in report.summary()
    assert report.image_hosts["cdn.example.net"] == 5


@pytest.mark.parametrize(
    ("body", "shown"),
    [
        ('<main><Img SRC="x.png"></main>', ["x.png"]),
        ('<main><svg><IMAGE href="s.svg"/></svg></main>', ["s.svg"]),
        ('<main><picture><SOURCE srcset="p.webp 1x, p2.webp 2x"></picture></main>', ["p2.webp"]),
        # No tag an image is taken from: the body is not tokenized, with the same
        # result (the head's image, judged as on a page that places it nowhere).
        ("<main><p>img, image and source: <b>no</b> <imgx> tag <sourced> here</p></main>", []),
        ("<div><p>a page without a content element</p></div>", []),
    ],
)
def test_a_body_is_read_for_every_spelling_of_an_image_tag_and_skipped_without_one(
    tmp_path: Path, body: str, shown: list[str]
) -> None:
    page = tmp_path / "page.html"
    page.write_text(f'<html><head><meta property="og:image" content="/docs/og.png"></head><body>{body}</body></html>')
    facts = inspect_built_page(page, BASE + "guide/", images=True)
    assert facts.images == (BASE + "og.png", *(BASE + "guide/" + name for name in shown))
    assert facts.uncertain_images == (BASE + "og.png",) and facts.outside_images == ()
    # What the whole body reads as, tokenized from the head's end.
    data = page.read_bytes()
    read = BodyImages(data, data.index(b"<body>"), 100)
    assert [reference.decode() for reference in read.content + read.elsewhere] == shown


def test_images_off_reads_no_body(tmp_path: Path) -> None:
    (tmp_path / "a.html").write_text(SHOWN.format(name="a"))
    report = build_site([Page("a.html", output=tmp_path / "a.html")], Options(base_url=BASE, images=False), tmp_path)
    assert "images" not in sitemap_entries(tmp_path)[BASE + "a.html"] and report.images == 0


def test_a_huge_srcset_is_capped_and_read_once() -> None:
    srcset = ", ".join(f"img/{i}.png {i}w" for i in range(100_000))  # well over 1 MB
    assert len(srcset) > 1_000_000
    assert largest_candidate(srcset) is not None  # of the first SRCSET_READ_LIMIT characters
    assert largest_candidate("a.png, b.png 2x, c.png 1.5x") == "b.png"
    assert largest_candidate("a.png 10w,b.png 20w") == "b.png"
    assert largest_candidate(" , ") is None


@pytest.mark.parametrize("count", [1_000, 10_000, 100_000])
def test_many_img_tags_cost_steps_linear_in_the_tags_read_and_are_capped(count: int) -> None:
    body = b"<html><head></head><body><main>" + b'<img src="i.png" alt="x">' * count + b"</main>"
    reader = HeadReader()
    reader.read(body, True)
    found = BodyImages(body, reader.end, 1_001)
    assert len(found.content) == min(count, 1_001)
    # Stops once the cap is reached: the work is bounded whatever the page holds.
    assert found.steps <= min(count, 1_002) + 3


def test_tags_outside_the_content_are_steps_linear_in_their_count() -> None:
    steps = []
    for count in (1_000, 10_000):
        body = b"<body>" + b"<div><span>x</span></div>" * count
        reader = HeadReader()
        reader.read(body, True)
        steps.append(BodyImages(body, reader.end, 1_001).steps)
    assert steps[1] <= 10 * steps[0] + 10


def make_image_site(site: Path) -> Path:
    """Pages with a logo on every one, content images, a CDN image, images that
    robots.txt disallows, and noindex pages whose images must not be listed."""
    for section in range(6):
        for number in range(20):
            head = '<meta name="robots" content="noindex">' if number == 3 else ""
            body = '<header><img src="/docs/logo.svg"></header>'
            if number % 2:
                body += f'<article><img src="fig-{number}.png"><img src="/docs/private/{number}.png">'
                body += f'<img srcset="https://cdn.example.net/{section}/{number}.jpg 2x"></article>'
            elif number % 4 == 0:
                body += f'<p><img src="plain-{number}.png">'  # no content element: the whole body counts
            path = site / f"s{section}" / f"p{number}" / "index.html"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(f"<!doctype html><html><head><title>t</title>{head}</head><body>{body}</body></html>")
    (site / "robots.txt").write_text("User-agent: *\nDisallow: /docs/private/\n")
    return site


def by_loc(page: Page) -> str:
    return page.loc


def test_sitemapkit_build_in_processes_writes_what_build_site_writes(tmp_path: Path) -> None:
    import shutil

    from sitemapkit.engine.folderbuild import build_folder
    from sitemapkit.site.folder import find_pages

    site = make_image_site(tmp_path / "made")
    options = Options(base_url=BASE, lastmod="none", max_urls=20, report_file="report.txt", images=True)
    results = {}
    for name, build in {
        "build_site": lambda folder: build_site(sorted(find_pages(folder), key=by_loc), options, folder),
        "two processes": lambda folder: build_folder(folder, options, workers=2, chunk_pages=7),
        "one process": lambda folder: build_folder(folder, options, workers=1, chunk_pages=7),
    }.items():
        folder = tmp_path / name
        shutil.copytree(site, folder)
        report = build(folder)
        files = {p.name: p.read_bytes() for p in sorted(folder.iterdir()) if p.name.startswith("sitemap")}
        results[name] = (files, report.details(), report.images, report.image_hosts)
        entries = sitemap_entries(folder)
    expected = results.pop("build_site")
    for name, got in results.items():
        assert got == expected, name
    listed = [image for entry in entries.values() for image in entry.get("images", [])]
    assert listed and not any("logo" in image or "/private/" in image for image in listed)
    assert BASE + "s0/p1/fig-1.png" in listed and "https://cdn.example.net/0/1.jpg" in listed
    assert BASE + "s0/p4/plain-4.png" in listed
    assert not any("/p3/" in image for image in listed)  # a noindex page's
    assert expected[2] == len(listed) and expected[3] == {"cdn.example.net": 54, "example.org": len(listed) - 54}


# ---- sitemapkit check reads image entries --------------------------------------------


def test_check_passes_a_built_site_with_images(tmp_path: Path) -> None:
    from sitemapkit.audit.check import check_site

    (tmp_path / "img").mkdir()
    (tmp_path / "img" / "a b.png").write_bytes(b"png")
    (tmp_path / "a.html").write_text('<body><main><img src="img/a b.png"><img src="https://cdn.example.net/x.png">')
    build_site(
        [Page("a.html", output=tmp_path / "a.html")], Options(base_url=BASE, lastmod="none", images=True), tmp_path
    )
    result = check_site(tmp_path, BASE)
    assert result.problems == [] and result.images == 2
    assert "1 URLs, 2 images in 1 file" in result.summary()


def test_check_reports_each_bad_image(tmp_path: Path) -> None:
    from sitemapkit.audit.check import check_site

    (tmp_path / "a.html").write_text("x")
    (tmp_path / "there.png").write_bytes(b"png")
    images = [
        "https://example.org/docs/there.png",
        "https://example.org/docs/there.png",  # twice
        "/docs/relative.png",  # not absolute
        "ftp://example.org/docs/x.png",
        "https://example.org/docs/a b.png",  # not encoded
        "https://example.org/docs/missing.png",  # no file serves it
        "https://cdn.example.net/elsewhere.png",  # another host: not checked for a file
    ]
    body = "".join(f"<image:image><image:loc>{image}</image:loc></image:image>" for image in images)
    (tmp_path / "sitemap.xml").write_text(
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        f'<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:image="{IMAGE_NS}">\n'
        f"<url><loc>{BASE}a.html</loc>{body}<image:image></image:image></url>\n"
        "</urlset>\n"
    )
    messages = [p.message for p in check_site(tmp_path, BASE).problems]
    assert messages == [
        "image https://example.org/docs/there.png is listed twice for one page",
        "image '/docs/relative.png' is not an absolute http(s) URL",
        "image 'ftp://example.org/docs/x.png' is not an absolute http(s) URL",
        "image 'https://example.org/docs/a b.png' is not percent-encoded (spaces, non-ASCII or other characters RFC 3986 forbids)",
        "image https://example.org/docs/missing.png has no file in the site",
        "<image:image> without an <image:loc>",
    ]


def test_check_reports_more_than_the_limit(tmp_path: Path) -> None:
    from sitemapkit.audit.check import check_site

    (tmp_path / "a.html").write_text("x")
    body = "".join(
        f"<image:image><image:loc>https://cdn.example.net/{i}.png</image:loc></image:image>"
        for i in range(MAX_IMAGES_PER_URL + 1)
    )
    (tmp_path / "sitemap.xml").write_text(
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        f'<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:image="{IMAGE_NS}">\n'
        f"<url><loc>{BASE}a.html</loc>{body}</url>\n</urlset>\n"
    )
    assert [p.message for p in check_site(tmp_path, BASE).problems] == [
        "1,001 images; the limit is 1,000 for each <url>"
    ]


def test_only_the_innermost_content_elements_hold_the_content() -> None:
    # Material's shape: <main> holds the navigation (with the logo) and .md-content.
    page = (
        b"<body><main class='md-main'><nav><img src='logo.png'></nav>"
        b"<div class='md-content'><article><img src='a.png'></article></div>"
        b"<div class='md-sidebar'><img src='side.png'></div></main>"
        b"<main><img src='other-main.png'></main>"
    )
    found = BodyImages(page, 0, 100)
    assert found.content == [b"a.png", b"other-main.png"] and found.has_content


STATIC = Path(__file__).resolve().parents[2] / "fixtures" / "images" / "static"
SITE = "https://example.org/"


@pytest.mark.parametrize("flag", [None, "--images", "--no-images"])
def test_sitemapkit_build_on_a_static_folder(tmp_path: Path, flag: str | None) -> None:
    import shutil

    from conftest import run_sitemapkit

    site = tmp_path / "site"
    shutil.copytree(STATIC, site)
    done = run_sitemapkit("build", str(site), "--base-url", SITE, "--lastmod", "none", *([flag] if flag else []))
    assert done.returncode == 0, done.stderr
    images = {loc: entry.get("images", []) for loc, entry in sitemap_entries(site).items()}
    if flag == "--no-images":  # images are on unless turned off
        assert not any(images.values()) and "images" not in done.stdout
        return
    assert images == {
        SITE: [SITE + "img/photo-large.webp", SITE + "img/photo.png"],  # <picture>: its source's widest
        SITE + "about.html": [],
        SITE + "contact.html": [],
        # SVG <image xlink:href>; data:, blob: and javascript: are not listed; the
        # logo is on every page: chrome. An <img> shows its first src, whatever the
        # attributes before it hold; one whose "src" follows a "=" has none.
        SITE + "gallery.html": [SITE + "img/drawing.png", SITE + "img/photo.png"],
    }
    assert "4 URLs, 4 images in" in done.stdout
    check = run_sitemapkit("check", str(site), "--base-url", SITE)
    assert check.returncode == 0 and "4 images" in check.stdout, check.stdout


def test_the_text_format_says_once_that_it_has_no_images(tmp_path: Path) -> None:
    import shutil

    from conftest import run_sitemapkit

    site = tmp_path / "site"
    shutil.copytree(STATIC, site)
    done = run_sitemapkit("build", str(site), "--base-url", SITE, "--lastmod", "none", "--format", "txt", "--images")
    assert done.returncode == 0, done.stderr
    assert done.stdout.count("the text format has no images") == 1


def test_the_quick_reading_finds_what_the_full_tokenizer_finds() -> None:
    # No quoted attribute value holds a ">": tags end at their first ">", read in
    # one quick run; one such value anywhere sends the page through the tokenizer.
    page = SHOWN.format(name="x").replace("""<a title='<img src="attribute.png">'>x</a>""", "").encode()
    quick = BodyImages(page, 0, 100)
    assert quick.content and quick.elsewhere
    quoted = b"<p title='>'></p>"
    middle = page.index(b"<picture>")
    for variant in (page + quoted, page.replace(b"<body>", b"<body>" + quoted), page[:middle] + quoted + page[middle:]):
        full = BodyImages(variant, 0, 100)
        assert (full.content, full.elsewhere) == (quick.content, quick.elsewhere)


# Pieces of bodies for the reading below: every construct the quick reading must
# pass over or stop at, and pieces that leave one open (a tag, a quote, a comment).
_BODY_PIECES = [
    '<img src="a{n}.png">',
    "<IMG SRC=b{n}.png>",
    '<source srcset="c{n}.webp 2x">',
    "<image href=d{n}.svg>",
    "<main>",
    "</main>",
    "<article class=x>",
    "</article>",
    '<div class="body">',
    "<div>",
    "</div>",
    "<section id=content>",
    "</section>",
    "<Div Role=main>",
    "<!--",
    "-->",
    "<!-->",
    "<!x>",
    "<?p>",
    "</ >",
    '<a title="',
    '"',
    "'",
    "<a href=x ",
    ">",
    "<",
    "text",
    " < ",
    "<script>",
    "</script>",
    "<template>",
    "</template>",
    "<textarea>",
    "</textarea>",
    "<picture>",
    "<p>",
    "</p>",
    "\n",
    "<img",
    "<div",
    "=",
    "-",
    "<br/>",
    "</br>",
    "<img/src=e{n}.png>",
    "<noscript>",
    "</noscript>",
    "<div class=x>",
    "<div id=main-nav>",
    "<section>",
    '<section class="body">',
    "<DIV CLASS=MD-CONTENT>",
    "<div\nrole=main>",
    "<div class=body",
    '<a title=">">',
    "<p title='a>b'>",
    'x="y>" ',
    "<img alt='>' src=q{n}.png>",
    # A "<" before a tag's ">", and content words outside the attributes that mark it.
    '<div title="a<b" class="body">',
    "<section data-main=1>",
    "<div class=md-content__inner>",
    # What a head holds (a reading from a page's start passes over it in one run),
    # and raw text holding what would be a stop outside it.
    "<!doctype html>",
    "<html lang=en>",
    "<head>",
    "</head>",
    "<meta charset=utf-8>",
    "<link rel=icon href=f{n}.png>",
    "<title>",
    "</title>",
    "<style>",
    "</style >",
    "<SCRIPT>",
    "</Script >",
    "<script>a<img src=j{n}.png>",
    "<script><!--",
    "<xmp>",
    "</xmp>",
    # Raw-text elements rare in a body, which stop the quick reading's search and
    # are passed by skip_text (only <script> and <style> are passed inside it).
    "<iframe>a<img src=t{n}.png>",
    "</iframe>",
    "<noembed>",
    "</noembed >",
    "<NoFrames>",
    "</noframes>",
    "<plaintext>",
    "</main >",
    "<main/>",
    "</template >",
    # An <img> without a srcset has its first src read on its own: every way the
    # tokenizer may read a tag's attributes before it and its value.
    '<img alt="src=x{n}" src="g{n}.png">',
    "<img src alt=x src=h{n}.png>",
    '<img =src="k{n}.png">',
    '<img data-src="l{n}.png" src="m{n}.png" srcset="n{n}.png 2x">',
    "<img src = 'o{n}.png'>",
    '<img src="">',
    "<img src>",
    "<img ",
    " src=p{n}.png",
    ' SRC="s{n}.png"',
    " srcset='r{n}.png 3w'",
    " alt=src",
    # Comments, bogus comments and the script escapes, each way they end (the
    # compiled reader reads them byte by byte).
    "<!--",
    "-->",
    "--!>",
    "<!-->",
    "<!--->",
    "<!-- <img src=u{n}.png> -->",
    "<!x>",
    "<?php x>",
    "</1 >",
    "</",
    "<script><!--<script>",
    # Double escaped: the first "</script>" returns to the escape, the second ends it.
    "<script><!--<script></script><img src=w{n}.png></script>",
    "</sCrIpt",
    "<textarea>a</textarea",
    "<title>a</TITLE",
    "<article>",
    "</article>",
    "<Main>",
    "</DIV>",
    "</div>",
    "</section>",
    "<div class='md-content'",
    "<img src='v{n}.png",
    # The values the compiled stops return with an image stop: each attribute an
    # image's reference comes from, repeated, empty, without a value, in any case.
    "<image xlink:href=x{n}.svg>",
    "<IMAGE XLINK:HREF='y{n}.svg' HREF=''>",
    "<image href='' xlink:href=z{n}.svg>",
    "<image src=aa{n}.png>",
    '<img srcset="" src="ab{n}.png">',
    "<img srcset src=ac{n}.png>",
    "<img src=ad{n}.png src=ae{n}.png>",
    '<img srcset="af{n}.png 1x, ag{n}.png 2x" srcset="ah{n}.png 9x">',
    "<source src=ai{n}.png>",
    "<SOURCE SRCSET=aj{n}.png>",
    ' href="ak{n}.svg"',
    " xlink:href=al{n}.svg",
]

# The readings held to the tokenizer's: the compiled stops (where they were
# built) and the quick reading's patterns.
FAST_READINGS = [pytest.param(True, id="compiled"), pytest.param(False, id="patterns")]


def test_the_compiled_stops_are_built_where_a_compiler_is() -> None:
    # The tests run where a C compiler is (a fresh machine has gcc): a build that
    # skipped the extension must not pass for one that has it.
    assert COMPILED_SCANS


@pytest.mark.parametrize("compiled", FAST_READINGS)
@settings(max_examples=1000, deadline=None)
@given(pieces=st.lists(st.sampled_from(_BODY_PIECES), max_size=40))
def test_the_quick_reading_of_any_body_is_the_full_tokenizers(compiled: bool, pieces: list[str]) -> None:
    # Read quickly (by the compiled stops, or between quoted ">"s by the
    # patterns), or all by the tokenizer: the readings must find the same
    # images, inside and outside the content.
    body = b"<body>" + "".join(piece.format(n=number) for number, piece in enumerate(pieces)).encode()
    quick = BodyImages(body, 0, 100, compiled=compiled)
    full = BodyImages(body, 0, 100, quick=False)
    assert (quick.content, quick.elsewhere, quick.has_content) == (full.content, full.elsewhere, full.has_content)


@pytest.mark.parametrize("compiled", FAST_READINGS)
@pytest.mark.parametrize(
    ("body", "content", "elsewhere"),
    [
        # A content <div> closed by its own end tag, a nested <div> of its kind first.
        ("<div class=md-content><div><img src=a.png></div></div><img src=b.png>", ["a.png"], ["b.png"]),
        ("<SECTION id=content><section></section><img src=a.png></SECTION><img src=b.png>", ["a.png"], ["b.png"]),
        # </main> closes <main>, not an inner <div>; </div> inside <main> closes nothing.
        ("<main><div></div></div><img src=a.png></main><img src=b.png>", ["a.png"], ["b.png"]),
        # Templates hide their images, nested; end tags still count inside them.
        ("<main><template><template></template><img src=t.png></template><img src=a.png></main>", ["a.png"], []),
        # Raw text and comments hold no images; <plaintext> ends the reading.
        ("<main><textarea><img src=t.png></textarea><!--<img src=c.png>--><img src=a.png>", ["a.png"], []),
        ("<img src=a.png><plaintext><img src=b.png>", [], ["a.png"]),
    ],
)
def test_content_elements_open_and_close_as_the_tokenizer_reads_them(
    compiled: bool, body: str, content: list[str], elsewhere: list[str]
) -> None:
    data = b"<body>" + body.encode()
    for found in (BodyImages(data, 0, 100, compiled=compiled), BodyImages(data, 0, 100, quick=False)):
        assert ([r.decode() for r in found.content], [r.decode() for r in found.elsewhere]) == (content, elsewhere)


# Bytes of markup in any order: a reading of bytes must neither fail nor read
# past them, whatever they hold.
_MARKUP_BYTES = [b"<", b">", b"/", b"!", b"-", b"?", b"=", b"'", b'"', b" ", b"\n", b"a", b"img", b"src=x", b"script"]
_MARKUP_BYTES += [b"div", b"main", b"template", b"textarea", b"body", b"class=", b"\x00", b"\xff"]


@pytest.mark.parametrize("compiled", FAST_READINGS)
@settings(max_examples=500, deadline=None)
@given(
    parts=st.lists(st.sampled_from(_MARKUP_BYTES) | st.binary(max_size=8), max_size=60),
    start=st.integers(-2, 8),
)
def test_any_bytes_are_read_as_the_tokenizer_reads_them(compiled: bool, parts: list[bytes], start: int) -> None:
    data = b"".join(parts)
    quick = BodyImages(data, start, 100, compiled=compiled)
    full = BodyImages(data, start, 100, quick=False)
    assert (quick.content, quick.elsewhere, quick.has_content) == (full.content, full.elsewhere, full.has_content)


@pytest.mark.parametrize(
    ("tag", "expected"),
    [
        (b"<img src=\"a.png\" alt='b c' width=3>", {b"src": b"a.png", b"alt": b"b c", b"width": b"3"}),
        # The first of a repeated name counts; names in any case are one name.
        (b'<img SRC="first.png" src="second.png">', {b"src": b"first.png"}),
        # No value and an empty value are both empty; a value left open runs on.
        (b'<img hidden src="" alt=>', {b"hidden": b"", b"src": b"", b"alt": b""}),
        (b'<img src = "a b.png"/>', {b"src": b"a b.png"}),
        (b"<img src='x\"y'>", {b"src": b'x"y'}),
        (b'<img src="open', {b"src": b"open"}),
        # A name may start with "=" (a parse error the tokenizer reads on from).
        (b'<img =src="x">', {b"=src": b"x"}),
    ],
)
def test_a_tags_attributes_are_read_as_the_tokenizer_reads_them(tag: bytes, expected: dict) -> None:
    from sitemapkit.site.htmlscan import attributes_of

    assert attributes_of(tag) == expected
