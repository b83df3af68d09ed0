"""The README's two commands as a newcomer meets them: tests/tasks.py and the demo."""

from __future__ import annotations

import glob
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

import tasks

ROOT = Path(__file__).resolve().parents[2]


def test_an_old_python_is_told_which_version_tasks_py_needs_in_one_line():
    assert tasks.interpreter_problem((3, 10, 13, "final", 0)) == (
        "tests/tasks.py needs Python 3.11 or newer (this is Python 3.10.13); "
        "run it with python3.11 tests/tasks.py, or any newer python3"
    )
    assert tasks.interpreter_problem((3, 11, 0, "final", 0)) is None
    assert tasks.interpreter_problem((3, 13, 1, "final", 0)) is None


def test_python_3_10_gets_one_line_and_nothing_else():
    # Python 3.10 is what pyenv holds on CI machines; requires-python allows it.
    found = sorted(glob.glob(os.path.expanduser("~/.pyenv/versions/3.10*/bin/python3")))
    if not found:
        pytest.skip("no Python 3.10 under ~/.pyenv/versions to run tests/tasks.py with")
    result = subprocess.run(
        [found[-1], str(ROOT / "tests" / "tasks.py"), "test"], capture_output=True, text=True, cwd=ROOT
    )
    assert result.returncode == 2
    assert result.stdout == ""
    [line] = result.stderr.splitlines()
    assert line.startswith("tests/tasks.py needs Python 3.11 or newer (this is Python 3.10.")


def test_a_step_prints_one_line_and_keeps_its_output_in_a_log(tmp_path, capsys):
    log = tmp_path / "step.log"
    tasks._step("saying hello", log, [sys.executable, "-c", "print('hello from the step')"])
    assert capsys.readouterr().out == "[tasks] saying hello\n"
    assert "hello from the step" in log.read_text()


def test_a_failed_step_says_so_in_one_line_naming_its_log(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    log = tmp_path / "failed.log"
    with pytest.raises(tasks.TaskError) as failed:
        tasks._step("failing", log, [sys.executable, "-c", "import sys; print('why it failed'); sys.exit(3)"])
    assert str(failed.value) == "failing: failed (exit 3); everything it printed is in failed.log"
    # The end of what it printed is shown, so the reason is on screen.
    assert "why it failed" in capsys.readouterr().out


def test_environments_tested_side_by_side_each_report_in_one_block(tmp_path, capsys):
    """Two pytest runs at once, as `tasks.py test --jobs 2` makes them: each
    environment's report is printed whole, never interleaved with the other's."""
    suite = tmp_path / "test_slowly.py"
    suite.write_text(
        "import time\n"
        "import pytest\n"
        "@pytest.mark.parametrize('n', range(6))\n"
        "def test_slowly(n):\n"
        "    time.sleep(0.05)\n"
    )
    results = {}

    def run(name: str) -> None:
        results[name] = tasks._run_pytest(
            name, Path(sys.executable), [str(suite)], ["-v", "-p", "no:cacheprovider"], live=False
        )

    threads = [threading.Thread(target=run, args=(name,)) for name in ("first", "second")]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert results == {"first": (0, {"passed": 6}), "second": (0, {"passed": 6})}
    out = capsys.readouterr().out
    for name in ("first", "second"):
        start = out.index(f"[tasks] === {name}: pytest ")
        end = out.index(f"[tasks] {name}: ", start)
        block = out[start:end]
        # All six tests of this run, and not one line of the other's.
        assert block.count("PASSED") == 6, out
        other = "second" if name == "first" else "first"
        assert other not in block, out


def test_every_environment_named_slowest_first_exists():
    assert set(tasks.SLOWEST_FIRST) <= set(tasks.ENVIRONMENTS)


def demo(name: str, folder: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, str(ROOT / "tests" / "demo.py"), name, str(folder)],
        capture_output=True,
        text=True,
        cwd=folder.parent,
    )


def test_demo_keeps_the_site_and_prints_where_its_sitemap_is(tmp_path):
    folder = tmp_path / "core"
    result = demo("core", folder)
    assert result.returncode == 0, result.stdout + result.stderr
    lines = result.stdout.splitlines()
    # The static fixture: 4 top pages, fr/ and the 16 of names/.
    assert lines[0].startswith("demo core     https://example.org/         21 URLs in 1 file; no problems; ")
    assert lines[1].strip() == "sitemap: core/site/sitemap.xml"
    assert (folder / "site" / "sitemap.xml").is_file()
    # Run again: the demo's own folder is replaced, nothing else is touched.
    again = demo("core", folder)
    assert again.returncode == 0, again.stdout
    assert (folder / "site" / "sitemap.xml").is_file()


def test_demo_never_replaces_a_folder_it_did_not_make(tmp_path):
    folder = tmp_path / "mine"
    folder.mkdir()
    (folder / "notes.txt").write_text("keep me")
    result = demo("core", folder)
    assert result.returncode == 2
    assert result.stdout == f"demo core: {folder} exists and is no demo folder; name another with --keep\n"
    assert (folder / "notes.txt").read_text() == "keep me"


def _browser_test_without_chromium(tmp_path: Path, **env: str) -> subprocess.CompletedProcess:
    """One browser-view test, run as pytest runs it, on a machine without Chromium."""
    no_browser = tmp_path / "bin"
    no_browser.mkdir(exist_ok=True)
    clean = {k: v for k, v in os.environ.items() if k not in ("CI", "CHROMIUM")}
    return subprocess.run(
        # As tasks.py runs pytest: the repository root off sys.path (-P, on Python 3.10 too).
        [
            sys.executable,
            "-c",
            tasks._PYTEST_OFF_ROOT,
            "tests/core/test_stylesheet.py",
            "-k",
            "shows_every_url_of_a_urlset",
            "-rsf",
            "-q",
            "-p",
            "no:cacheprovider",
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={**clean, "PATH": str(no_browser), **env},
    )


def test_without_chromium_the_browser_tests_skip_saying_how_to_install_it(tmp_path):
    result = _browser_test_without_chromium(tmp_path)
    assert result.returncode == 0, result.stdout
    assert "1 skipped" in result.stdout
    assert "headless Chromium not found" in result.stdout
    assert "sudo apt-get install chromium" in result.stdout and "brew install --cask chromium" in result.stdout


def test_without_chromium_the_browser_tests_fail_under_ci(tmp_path):
    result = _browser_test_without_chromium(tmp_path, CI="true")
    assert result.returncode == 1, result.stdout
    assert "1 failed" in result.stdout
    assert "CI is set, so this is a failure, not a skip" in result.stdout
