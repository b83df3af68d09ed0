"""The demo: build a fixture site with its real generator and sitemapkit, then check it.

Run by ``python3 tests/tasks.py demo [--keep DIR]`` inside each generator's virtual
environment: ``python tests/demo.py {core|mkdocs|pelican|sphinx} DIR``. The site is
built into ``DIR/site`` and kept there to look at; prints one line for the site and
the path of its sitemap.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

from sitemapkit.audit.check import check_site

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "fixtures"

# name -> (base URL the fixture is published at, how to build it into OUT)
SITES = {
    "core": (
        "https://example.org/",
        lambda out: [sys.executable, "-m", "sitemapkit", "build", str(out), "--base-url", "https://example.org/"],
    ),
    "mkdocs": (
        "https://example.org/",
        lambda out: [
            sys.executable,
            "-m",
            "mkdocs",
            "build",
            "--quiet",
            "--strict",
            "-f",
            str(FIXTURES / "mkdocs" / "mkdocs.yml"),
            "-d",
            str(out),
        ],
    ),
    "pelican": (
        "https://example.org/blog/",
        lambda out: [
            sys.executable,
            "-m",
            "pelican",
            str(FIXTURES / "pelican" / "content"),
            "-s",
            str(FIXTURES / "pelican" / "pelicanconf.py"),
            "-o",
            str(out),
            "--fatal",
            "warnings",
            "-q",
        ],
    ),
    "sphinx": (
        "https://docs.example.org/",
        lambda out: [
            sys.executable,
            "-m",
            "sphinx",
            "-b",
            "html",
            "-W",
            "-q",
            "-d",
            str(out.parent / "doctrees"),
            str(FIXTURES / "sphinx"),
            str(out),
        ],
    ),
}


# Marks a folder as the demo's own, so a rerun may replace it and nothing else.
MARKER = ".sitemapkit-demo"


def main(name: str, folder: Path) -> int:
    base_url, command = SITES[name]
    if folder.exists():
        if not (folder / MARKER).exists():
            print(f"demo {name}: {folder} exists and is no demo folder; name another with --keep")
            return 2
        shutil.rmtree(folder)
    folder.mkdir(parents=True)
    (folder / MARKER).write_text("built by python3 tests/tasks.py demo; replaced by the next run\n")
    out = folder / "site"
    if name == "core":
        shutil.copytree(FIXTURES / "static", out)
    build = subprocess.run(command(out), capture_output=True, text=True, cwd=folder)
    if build.returncode != 0:
        print(f"demo {name}: build failed\n{build.stdout}{build.stderr}")
        return 1
    result = check_site(out, base_url)
    for problem in result.problems:
        print(f"  {problem}")
    robots = (out / "robots.txt").read_text() if (out / "robots.txt").exists() else ""
    sitemap_lines = [line for line in robots.splitlines() if line.lower().startswith("sitemap:")]
    print(
        f"demo {name:8} {base_url:28} {result.summary().removeprefix('sitemapkit check: ')}; "
        f"robots.txt: {', '.join(sitemap_lines) or 'not written (base URL below the host root)'}"
    )
    print(f"     {'':8} sitemap: {_shown(out / 'sitemap.xml')}")
    return 1 if result.problems else 0


def _shown(path: Path) -> str:
    """The path as the user can type it from where they ran the demo."""
    try:
        return str(path.resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(path)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], Path(sys.argv[2])))
