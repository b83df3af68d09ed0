"""The package as users install it: `pip install .` and `pip install -e .`.

The import package `sitemapkit` is `core/` and `sitemapkit.plugins` is `plugins/`;
after either install, no top-level `core` or `plugins` may be importable.
"""

from __future__ import annotations

import subprocess
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


@pytest.mark.parametrize("editable", [False, True], ids=["regular", "editable"])
def test_install_exposes_only_sitemapkit(tmp_path: Path, editable: bool) -> None:
    env = tmp_path / "venv"
    venv.EnvBuilder(with_pip=True).create(env)
    python = env / "bin" / "python"
    target = ["-e", str(ROOT)] if editable else [str(ROOT)]
    install = subprocess.run([str(python), "-m", "pip", "install", "-q", *target], capture_output=True, text=True)
    assert install.returncode == 0, install.stderr[-2000:]
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    probe = subprocess.run([str(python), "-c", PROBE], capture_output=True, text=True, cwd=outside)
    assert probe.returncode == 0, probe.stdout + probe.stderr
    if not editable:
        site = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                              capture_output=True, text=True).stdout.strip()
        top = {p.name for p in Path(site).iterdir() if not p.name.endswith((".dist-info", ".pth"))}
        assert "core" not in top and "plugins" not in top
        assert (Path(site) / "sitemapkit" / "py.typed").exists()
        assert (Path(site) / "sitemapkit" / "plugins" / "sphinx.py").exists()
    cli = subprocess.run([str(env / "bin" / "sitemapkit"), "--version"], capture_output=True, text=True, cwd=outside)
    assert cli.stdout.startswith("sitemapkit ")


def test_public_api_surface() -> None:
    import sitemapkit

    assert sorted(sitemapkit.__all__) == sorted(set(sitemapkit.__all__))
    for name in sitemapkit.__all__:
        assert hasattr(sitemapkit, name), name
