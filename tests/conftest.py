"""Helpers every test folder shares: schema validation and an independent parser.

This file is loaded in every test environment, so it imports no site generator.
"""

from __future__ import annotations

import contextlib

import gzip
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from sitemapkit.protocol.languages import LANGUAGE_TAG

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "fixtures"
# The sitemaps.org schemas live beside the repository (../shared/schemas), never in
# it. SITEMAPKIT_TEST_SCHEMAS names another folder (tests/core/test_schemas.py
# names a missing one, to show how missing schemas are reported).
SCHEMAS = Path(os.environ.get("SITEMAPKIT_TEST_SCHEMAS") or ROOT.parent / "shared" / "schemas")
SITEMAP_NS = "http://www.sitemaps.org/schemas/sitemap/0.9"
XHTML_NS = "http://www.w3.org/1999/xhtml"
IMAGE_NS = "http://www.google.com/schemas/sitemap-image/1.1"

_schema_cache: dict[str, object] = {}


SCHEMAS_MISSING = (
    f"schema checks skipped: no sitemaps.org schemas in {SCHEMAS} (../shared/schemas beside the "
    "repository: sitemap.xsd and siteindex.xsd from https://www.sitemaps.org/schemas/sitemap/0.9/; "
    "see README, 'Schemas'); every other check still runs"
)


# Schema checks assert_valid could not make in the test now running. A test that
# passes without making all of them is reported as skipped, naming how many and
# why (see pytest_runtest_makereport): never passed silently.
schema_checks_skipped = 0


def _schema(name: str):
    """The schema, or None when the schemas folder is missing: then the schema part
    of a check is left out and counted, every other assertion still runs, and the
    test is reported as skipped unless one of those fails."""
    from lxml import etree

    if not (SCHEMAS / name).exists():
        return None
    if name not in _schema_cache:
        _schema_cache[name] = etree.XMLSchema(etree.parse(str(SCHEMAS / name)))
    return _schema_cache[name]


def read_bytes(path: Path) -> bytes:
    data = Path(path).read_bytes()
    return gzip.decompress(data) if str(path).endswith(".gz") else data


# sitemap.xsd admits extension elements with processContents="strict", so hreflang
# alternates (xhtml:link) need a declaration. The sitemaps.org folder has none for
# the xhtml namespace; this one states Google's documented form (rel="alternate",
# hreflang, absolute href) and is combined with the untouched sitemaps.org schema.
_XHTML_LINK_XSD = """<?xml version="1.0" encoding="UTF-8"?>
<xsd:schema xmlns:xsd="http://www.w3.org/2001/XMLSchema" targetNamespace="http://www.w3.org/1999/xhtml"
            elementFormDefault="qualified">
  <xsd:element name="link">
    <xsd:complexType>
      <xsd:attribute name="rel" type="xsd:string" use="required" fixed="alternate"/>
      <xsd:attribute name="hreflang" use="required">
        <xsd:simpleType><xsd:restriction base="xsd:string">
          <xsd:pattern value="(LANGUAGE_TAG)|x-default"/>
        </xsd:restriction></xsd:simpleType>
      </xsd:attribute>
      <xsd:attribute name="href" use="required">
        <xsd:simpleType><xsd:restriction base="xsd:anyURI"><xsd:pattern value="https?://.+"/></xsd:restriction></xsd:simpleType>
      </xsd:attribute>
    </xsd:complexType>
  </xsd:element>
</xsd:schema>
""".replace("LANGUAGE_TAG", LANGUAGE_TAG)  # the core's one rule, in XSD's own syntax


def _alternates_schema():
    import tempfile

    from lxml import etree

    if "alternates" not in _schema_cache:
        if _schema("sitemap.xsd") is None:
            return None
        folder = Path(tempfile.mkdtemp(prefix="sitemapkit-xsd-"))
        (folder / "xhtml-link.xsd").write_text(_XHTML_LINK_XSD)
        (folder / "combined.xsd").write_text(
            '<xsd:schema xmlns:xsd="http://www.w3.org/2001/XMLSchema">'
            f'<xsd:import namespace="{SITEMAP_NS}" schemaLocation="{(SCHEMAS / "sitemap.xsd").as_uri()}"/>'
            f'<xsd:import namespace="{XHTML_NS}" schemaLocation="{(folder / "xhtml-link.xsd").as_uri()}"/>'
            # Google's image extension, untouched (strict: sitemap.xsd's extension point).
            f'<xsd:import namespace="{IMAGE_NS}" schemaLocation="{(SCHEMAS / "sitemap-image.xsd").as_uri()}"/>'
            "</xsd:schema>"
        )
        _schema_cache["alternates"] = etree.XMLSchema(etree.parse(str(folder / "combined.xsd")))
    return _schema_cache["alternates"]


def assert_valid(path_or_bytes) -> None:
    """Well-formed and valid against sitemap.xsd or siteindex.xsd (by root element);
    a urlset with hreflang alternates or images against sitemap.xsd plus the
    xhtml:link declaration above and sitemap-image.xsd."""
    from lxml import etree

    data = path_or_bytes if isinstance(path_or_bytes, bytes) else read_bytes(path_or_bytes)
    root = etree.fromstring(data)
    local = etree.QName(root).localname
    if local == "urlset" and (
        root.find(f".//{{{XHTML_NS}}}link") is not None or root.find(f".//{{{IMAGE_NS}}}image") is not None
    ):
        schema = _alternates_schema()
    else:
        schema = _schema("sitemap.xsd" if local == "urlset" else "siteindex.xsd")
    if schema is None:
        global schema_checks_skipped
        schema_checks_skipped += 1  # well-formed, at least; reported as skipped
        return
    if not schema.validate(root):
        raise AssertionError(f"not valid against the sitemaps.org schema: {schema.error_log}")


def usp_pages(path_or_bytes) -> list[str]:
    """The URLs an independent parser (ultimate-sitemap-parser) reads from one file."""
    from usp.tree import sitemap_from_str

    data = path_or_bytes if isinstance(path_or_bytes, bytes) else read_bytes(path_or_bytes)
    sitemap = sitemap_from_str(data.decode("utf-8"))
    return [page.url for page in sitemap.all_pages()]


def usp_images(path_or_bytes) -> dict[str, list[str]]:
    """The image URLs ultimate-sitemap-parser reads for each page of one file."""
    from usp.tree import sitemap_from_str

    data = path_or_bytes if isinstance(path_or_bytes, bytes) else read_bytes(path_or_bytes)
    sitemap = sitemap_from_str(data.decode("utf-8"))
    return {page.url: [image.loc for image in page.images or ()] for page in sitemap.all_pages()}


def sitemap_entries(out_dir: Path, entry: str = "sitemap.xml") -> dict[str, dict]:
    """Every <url> reachable from the entry point (following an index): loc -> fields.

    Each file is schema-checked on the way; each urlset is also read with usp and
    must give the same URLs.
    """
    from lxml import etree

    out_dir = Path(out_dir)
    found: dict[str, dict] = {}
    # Past one index's limits, the extra indexes are entry points of their own.
    stem = entry.rsplit(".", 1)[0]
    todo = [out_dir / entry, *sorted(out_dir.glob(f"{stem}-index-*.xml"))]
    seen = set()
    while todo:
        path = todo.pop()
        if path in seen:
            continue  # an index reached twice (robots.txt and the entry point)
        seen.add(path)
        data = read_bytes(path)
        assert_valid(data)
        root = etree.fromstring(data)
        if etree.QName(root).localname == "sitemapindex":
            for loc in root.iterfind(f"{{{SITEMAP_NS}}}sitemap/{{{SITEMAP_NS}}}loc"):
                todo.append(out_dir / loc.text.rsplit("/", 1)[1])
            continue
        locs = []
        for url in root.iterfind(f"{{{SITEMAP_NS}}}url"):
            loc = url.findtext(f"{{{SITEMAP_NS}}}loc")
            assert loc not in found, f"{loc} listed twice"
            locs.append(loc)
            found[loc] = {
                "lastmod": url.findtext(f"{{{SITEMAP_NS}}}lastmod"),
                "alternates": sorted(
                    (link.get("hreflang"), link.get("href")) for link in url.iterfind(f"{{{XHTML_NS}}}link")
                ),
            }
            images = [image.text for image in url.iterfind(f"{{{IMAGE_NS}}}image/{{{IMAGE_NS}}}loc")]
            if images:  # only for entries with images: other tests compare whole entries
                found[loc]["images"] = images
        assert usp_pages(data) == locs
        assert usp_images(data) == {loc: found[loc].get("images", []) for loc in locs}
    return found


def running_in_ci() -> bool:
    """CI=true (GitHub Actions, GitLab, most others set it): there, a missing tool
    a test needs is a failure, never a skip."""
    return os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no")


def git_env(when=None) -> dict[str, str]:
    """The environment of git (and of tools that commit, mike) unaffected by the
    user's git settings; ``when`` (a datetime) dates the commits made."""
    import os

    env = {
        **os.environ,
        "GIT_CONFIG_GLOBAL": os.devnull,
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_AUTHOR_NAME": "Fixture",
        "GIT_AUTHOR_EMAIL": "fixture@example.org",
        "GIT_COMMITTER_NAME": "Fixture",
        "GIT_COMMITTER_EMAIL": "fixture@example.org",
    }
    if when is not None:
        env["GIT_AUTHOR_DATE"] = env["GIT_COMMITTER_DATE"] = when.isoformat()
    return env


def git(root: Path, *args: str, when=None) -> None:
    """Run git in ``root`` unaffected by the user's git settings; ``when`` (a
    datetime) dates a commit. Fixture copies become repositories with known dates."""
    import subprocess

    subprocess.run(["git", *args], cwd=root, env=git_env(when), check=True, capture_output=True)


@pytest.fixture
def schemas_dir() -> Path:
    if not SCHEMAS.exists():
        pytest.skip(SCHEMAS_MISSING)
    return SCHEMAS


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo):
    """A test that passed without making each of its schema checks is reported as
    skipped, with the count and the reason; one that failed stays failed."""
    outcome = yield
    if call.when not in ("setup", "call"):
        return
    # Tests import these helpers as `conftest` (pythonpath), while pytest may load
    # this file under another name (tests.conftest): the count is kept in the
    # module the tests import.
    import conftest as helpers

    skipped, helpers.schema_checks_skipped = helpers.schema_checks_skipped, 0
    report = outcome.get_result()
    if call.when == "call" and skipped and report.passed:
        path, line, _ = item.reportinfo()
        checks = f"{skipped} schema check{'s' if skipped != 1 else ''}"
        report.outcome = "skipped"
        report.longrepr = (str(path), (line or 0) + 1, f"Skipped: {checks} not made ({SCHEMAS_MISSING})")


def option_samples(folder: Path) -> dict[str, object]:
    """A valid value for every declared option, none its default, as a user sets
    them in any tool (lists as lists); ``folder`` is an existing folder, for the
    options that name one. Adapters' parity tests set them all and expect exactly
    these in the Options their adapter makes."""
    from sitemapkit import Options

    # Options whose values are free-form text: a new one fails here until it has a sample.
    text = {
        "filename": "site-map",
        "stylesheet_template": str(folder),
        "x_default": "en",
        "report_file": "sitemap-report.txt",
        "indexnow_key": "sitemapkit-sample-key",
    }
    samples: dict[str, object] = {}
    for spec in Options.specs():
        if spec.choices:
            samples[spec.name] = next(c for c in reversed(spec.choices) if c != spec.default)
        elif spec.kind is bool:
            samples[spec.name] = not spec.default
        elif spec.kind is int:
            samples[spec.name] = int(spec.bounds[0]) + 1 if spec.bounds else 1
        elif spec.kind is float:
            samples[spec.name] = (spec.bounds[0] + spec.bounds[1]) / 2 if spec.bounds else 0.5
        elif spec.kind is tuple:
            samples[spec.name] = ["drafts/*", "*.pdf"]
        else:
            samples[spec.name] = text[spec.name]
    # The entry point's name ends as its format says.
    samples["filename"] = f"{samples['filename']}.{samples['format']}"
    return samples


def options_with(samples: dict[str, object], base_url: str):
    """The Options the samples stand for."""
    from sitemapkit import Options

    return Options(base_url=base_url, **{k: tuple(v) if isinstance(v, list) else v for k, v in samples.items()})


def report_exclusions(report_text: str) -> dict[str, str]:
    """loc -> reason, from a build report (``verbose`` output or ``report_file``)."""
    import re

    found = {}
    for line in report_text.splitlines():
        match = re.match(r"excluded \(([^)]+)\): (\S+)", line)
        if match:
            found[match.group(2)] = match.group(1)
    return found


def assert_every_page_accounted(
    site: Path, base_url: str, report_text: str, entry: str = "sitemap.xml"
) -> dict[str, str]:
    """Every HTML file under ``site`` is either listed or in the report with its
    reason; returns file (relative, as written) -> reason for the ones left out.

    URLs are compared decoded, so this holds whatever spelling the core chose.
    """
    import os
    from urllib.parse import unquote

    listed = (
        {unquote(loc[len(base_url) :]) for loc in sitemap_entries(site, entry)} if (site / entry).exists() else set()
    )
    reasons = {
        unquote(loc[len(base_url) :]) if loc.startswith(base_url) else loc: reason
        for loc, reason in report_exclusions(report_text).items()
    }
    unaccounted, left_out = [], {}
    for folder, dirs, files in os.walk(site):
        dirs[:] = [d for d in dirs if not d.startswith(".")]
        for name in files:
            if not name.endswith((".html", ".htm")):
                continue
            relative = (Path(folder) / name).relative_to(site).as_posix()
            url_path = (
                relative[: -len("index.html")]
                if relative == "index.html" or relative.endswith("/index.html")
                else relative
            )
            if url_path in listed or relative in listed:
                continue
            if url_path in reasons or relative in reasons:
                left_out[relative] = reasons.get(relative) or reasons[url_path]
            else:
                unaccounted.append(relative)
    assert not unaccounted, f"written, not listed, and not in the report: {sorted(unaccounted)}"
    return left_out


@contextlib.contextmanager
def read_ahead_in_workers(monkeypatch: pytest.MonkeyPatch):
    """build_site's heads read by worker processes (engine.pages._read_ahead) even on a
    fixture's few pages: two pages a chunk, two processes. Yields the pools
    started, for the test to see that processes did the work."""
    from sitemapkit.engine import workers

    assert workers.can_fork(), "no worker could be forked here: the test would test nothing"
    started: list = []
    real_start = workers.start_pool

    def start_pool(*args, **kwargs):
        pool = real_start(*args, **kwargs)
        started.append(pool)
        return pool

    with monkeypatch.context() as patch:
        patch.setattr(workers, "CHUNK_PAGES", 2)
        patch.setattr(workers, "POOL_FROM_CHUNKS", 1)
        patch.setattr(workers, "worker_count", lambda: 2)
        patch.setattr(workers, "start_pool", start_pool)
        yield started
    assert started and not any(isinstance(pool, workers.InProcess) for pool in started)


def killed_in_workers(monkeypatch: pytest.MonkeyPatch, module, name: str) -> None:
    """``module.name`` kills the process that calls it when that is a forked
    worker (as the out-of-memory killer would), and works as before here."""
    parent, real = os.getpid(), getattr(module, name)

    def or_killed(*args, **kwargs):
        if os.getpid() != parent:
            os.kill(os.getpid(), 9)
        return real(*args, **kwargs)

    monkeypatch.setattr(module, name, or_killed)


def run_sitemapkit(*args: str, stdin: str | None = None, **run) -> subprocess.CompletedProcess:
    """The sitemapkit command line as users run it, in a process of its own
    (``run``: subprocess.run's cwd, env, timeout)."""
    return subprocess.run(
        [sys.executable, "-m", "sitemapkit", *args], capture_output=True, text=True, input=stdin, **run
    )


def check_audit(folder, base_url: str) -> tuple[list[str], dict[str, set[str]], bool]:
    """``sitemapkit check FOLDER --format json`` as CI reads it: the problems'
    messages, each finding kind's URLs, and whether the check failed (its exit
    status said so too)."""
    done = run_sitemapkit("check", str(folder), "--base-url", base_url, "--format", "json")
    data = json.loads(done.stdout)
    assert done.returncode == (1 if data["failed"] else 0), done.stderr
    found: dict[str, set[str]] = {}
    for finding in data["findings"]:
        found.setdefault(finding["kind"], set()).add(finding["url"])
    return [problem["message"] for problem in data["problems"]], found, data["failed"]
