"""The package as users install it: `pip install .` and `pip install -e .`.

The import package `sitemapkit` is `core/` and `sitemapkit.plugins` is `plugins/`;
after either install, no top-level `core` or `plugins` may be importable.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import venv
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

PROBE = """
import importlib, sys
import sitemapkit, sitemapkit.plugins
from sitemapkit import Options, Page, build_site
assert sitemapkit.__file__.endswith("__init__.py")
for name in ("core", "plugins"):
    try:
        importlib.import_module(name)
    except ImportError:
        pass
    else:
        sys.exit(f"top-level {name!r} is importable")
generators = [m for m in ("mkdocs", "pelican", "sphinx") if m in sys.modules]
assert not generators, f"importing sitemapkit imported {generators}"
print("ok", sitemapkit.__file__)
"""


# A Python warning as pip relays it from the build backend ("...: BuildBackendWarning:
# `project.license` as a TOML table is deprecated"), or one of pip's deprecations.
_WARNING = re.compile(r"\b(\w*Warning): (.*)$|^(DEPRECATION: .*)$", re.MULTILINE)


_EXT_MODULES_NOTE = (
    "BuildBackendWarning `[tool.setuptools.ext-modules]` in `pyproject.toml` is still *experimental*"
    " and likely to change in future releases."
)


def _warnings(output: str) -> list[str]:
    return [" ".join(filter(None, match.groups())) for match in _WARNING.finditer(output)]


def _pip_install(env: Path, *target: str, extra_env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    # This environment's pip (tasks.py keeps it current) installs into the new one:
    # the pip a user gets today, which shows what the build backend warns about.
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "--python",
            str(env / "bin" / "python"),
            "install",
            "--progress-bar",
            "off",
            *target,
        ],
        capture_output=True,
        text=True,
        env={**os.environ, **(extra_env or {})},
    )


# What a source distribution holds: what pip builds from.
_SOURCE = ("pyproject.toml", "README.md", "core", "plugins")


@pytest.fixture
def source(tmp_path: Path) -> Path:
    """A copy of the project as a checkout has it. pip builds in the source tree
    (build/, sitemapkit.egg-info/), and tests/tasks.py installs the repository
    into other environments while these tests run: a copy keeps them apart."""
    copy = tmp_path / "sitemapkit-source"
    copy.mkdir()
    for name in _SOURCE:
        if (ROOT / name).is_dir():
            shutil.copytree(ROOT / name, copy / name, ignore=shutil.ignore_patterns("__pycache__", "*.so"))
        else:
            shutil.copy2(ROOT / name, copy / name)
    return copy


@pytest.fixture(scope="module")
def pip_shows_backend_warnings() -> None:
    hooks = pytest.importorskip("pip._vendor.pyproject_hooks")
    if not hasattr(hooks, "BuildBackendWarning"):
        pytest.fail("this pip does not relay build-backend warnings: upgrade it (tests/tasks.py does)")


@pytest.mark.parametrize("editable", [False, True], ids=["regular", "editable"])
def test_install_exposes_only_sitemapkit(
    tmp_path: Path, source: Path, editable: bool, pip_shows_backend_warnings
) -> None:
    env = tmp_path / "venv"
    venv.EnvBuilder(with_pip=False).create(env)
    python = env / "bin" / "python"
    target = ["-e", str(source)] if editable else [str(source)]
    install = _pip_install(env, *target)
    assert install.returncode == 0, install.stderr[-2000:]
    output = install.stdout + install.stderr
    # Nothing to warn about in the packaging (no license table, no data folder
    # outside the package list) but setuptools' own notes: that
    # `[tool.setuptools.ext-modules]`, how the compiled body reader is declared
    # without a setup.py, is still experimental (pypa/setuptools#5096), and, on
    # every editable install whose package folder has another name (sitemapkit
    # is core/), that it is one. tests/tasks.py filters both out of its installs.
    notes = {_EXT_MODULES_NOTE, *(["BuildBackendWarning Editable installation."] if editable else [])}
    assert set(_warnings(output)) <= notes, output
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    probe = subprocess.run([str(python), "-c", PROBE], capture_output=True, text=True, cwd=outside)
    assert probe.returncode == 0, probe.stdout + probe.stderr
    if not editable:
        site = subprocess.run(
            [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
            capture_output=True,
            text=True,
        ).stdout.strip()
        top = {p.name for p in Path(site).iterdir() if not p.name.endswith((".dist-info", ".pth"))}
        assert "core" not in top and "plugins" not in top
        assert (Path(site) / "sitemapkit" / "py.typed").exists()
        assert (Path(site) / "sitemapkit" / "plugins" / "sphinx.py").exists()
        # The compiled body reader is built where a C compiler is, as here.
        assert list((Path(site) / "sitemapkit" / "site").glob("_pagescan*.so"))
        templates = Path(site) / "sitemapkit" / "templates"
        assert sorted(p.name for p in templates.iterdir()) == ["sitemap.css.j2", "sitemap.xsl.j2"]
    cli = subprocess.run([str(env / "bin" / "sitemapkit"), "--version"], capture_output=True, text=True, cwd=outside)
    assert cli.stdout.startswith("sitemapkit ")


def test_editable_install_as_tasks_py_runs_it_prints_no_warning(
    tmp_path: Path, source: Path, pip_shows_backend_warnings
) -> None:
    import tasks

    env = tmp_path / "venv"
    venv.EnvBuilder(with_pip=False).create(env)
    install = _pip_install(env, "-e", str(source), extra_env=tasks._PIP_ENV)
    assert install.returncode == 0, install.stderr[-2000:]
    assert _warnings(install.stdout + install.stderr) == []


def test_public_api_surface() -> None:
    import sitemapkit

    assert sorted(sitemapkit.__all__) == sorted(set(sitemapkit.__all__))
    for name in sitemapkit.__all__:
        assert hasattr(sitemapkit, name), name
