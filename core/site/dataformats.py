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
from .extras import CONFIG_EXTRA_INSTALL

__all__ = ["load_json", "load_toml", "load_yaml", "merge_settings"]


def load_yaml(text: str, name: str) -> Any:
    """The YAML document ``text`` (of ``name``), read with the one YAML loader
    (:class:`~sitemapkit.site.yamlreader.YamlLoader`, PyYAML's safe loader with
    ``!ENV`` and inert ``!!python/`` tags), as ``mkdocs.yml`` and MkDocs front
    matter are."""
    from .yamlreader import YamlProblem, read_yaml  # one line when PyYAML is missing

    try:
        return read_yaml(text)
    except YamlProblem as error:
        where = f" line {error.line}" if error.line else ""
        raise SitemapkitError(f"{name}:{where}: {error.message}") from None


def load_toml(text: str, name: str) -> dict[str, Any]:
    """The TOML document ``text`` (of ``name``)."""
    try:
        import tomllib
    except ImportError:  # Python 3.10
        try:
            import tomli as tomllib  # type: ignore[no-redef,import-not-found,unused-ignore]
        except ImportError:
            raise SitemapkitError(f"{name}: reading TOML on Python 3.10 needs tomli: {CONFIG_EXTRA_INSTALL}") from None
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


def merge_settings(parent: dict[str, Any], child: dict[str, Any]) -> dict[str, Any]:
    """``child`` merged into ``parent`` (changed and returned): mappings key by key,
    at any depth; any other value of the child's replaces the parent's. MkDocs
    merges an inherited configuration so (mergedeep's replace strategy), Jekyll
    the files of ``--config a.yml,b.yml`` (``Utils.deep_merge_hashes``) and Hugo
    those of ``--config a.toml,b.toml``: the later file wins."""
    for key, value in child.items():
        if isinstance(parent.get(key), dict) and isinstance(value, dict):
            merge_settings(parent[key], value)
        else:
            parent[key] = value
    return parent
