"""YAML, TOML and JSON text read into Python values: one loader each, for every
configuration file and front matter the core reads (``hugo.yaml``, Jekyll's
``_config.yml``, ``hugo.toml``, ``zensical.toml``, front matter of each kind).

YAML is PyYAML's safe loader and TOML the standard library's :mod:`tomllib`
(``tomli`` on Python 3.10): the libraries the ecosystem trusts, both in the
``config`` extra. A missing library or a file that does not parse is one
:class:`SitemapkitError` line naming the file (``name``, as the user knows it).
"""

from __future__ import annotations

import json
from typing import Any

from ..protocol.errors import SitemapkitError

__all__ = ["load_json", "load_toml", "load_yaml"]

#: What to install for the loaders, said when one is missing.
CONFIG_EXTRA = "pip install 'sitemapkit[config]'"


def load_yaml(text: str, name: str) -> Any:
    """The YAML document ``text`` (of ``name``), as PyYAML's safe loader reads it."""
    try:
        import yaml  # type: ignore[import-untyped,unused-ignore]
    except ImportError:
        raise SitemapkitError(f"{name}: reading YAML needs PyYAML ({CONFIG_EXTRA})") from None
    try:
        return yaml.safe_load(text)
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        where = f" line {mark.line + 1}" if mark is not None else ""
        problem = getattr(error, "problem", None) or str(error).splitlines()[0]
        raise SitemapkitError(f"{name}:{where}: {problem}") from None


def load_toml(text: str, name: str) -> dict[str, Any]:
    """The TOML document ``text`` (of ``name``)."""
    try:
        import tomllib
    except ImportError:  # Python 3.10
        try:
            import tomli as tomllib  # type: ignore[no-redef,import-not-found,unused-ignore]
        except ImportError:
            raise SitemapkitError(f"{name}: reading TOML on Python 3.10 needs tomli ({CONFIG_EXTRA})") from None
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise SitemapkitError(f"{name}: {error}") from None


def load_json(text: str, name: str) -> Any:
    """The JSON document ``text`` (of ``name``)."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as error:
        raise SitemapkitError(f"{name}: line {error.lineno}: {error.msg}") from None
