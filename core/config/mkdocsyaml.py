"""``mkdocs.yml`` read as MkDocs 1.6 reads it (``mkdocs.utils.yaml.yaml_load``).

The YAML of :mod:`..site.yamlreader` (PyYAML, ``!ENV``, ``!!python/`` tags read
without importing anything), and:

* ``!relative``, MkDocs' path placeholder, read as a :class:`RelativePath`:
  ``!relative`` alone (the folder of the page being rendered), ``!relative
  $config_dir/...`` or ``!relative $docs_dir/...``; any other ``$`` prefix, or a
  value after a plain ``!relative``, is an error, as in MkDocs. MkDocs resolves
  these only where a setting takes a path object, which is in Markdown
  extensions' options (``pymdownx.snippets``' ``base_path``); every setting the
  sitemap depends on (``site_url``, ``docs_dir``, ``site_dir``, the patterns,
  the sitemapkit plugin's options) is checked as text, so MkDocs refuses a
  placeholder there, and so does ``--config``: it is never resolved.
* ``INHERIT: parent.yml``: the parent, found relative to the file that names it
  (and its own ``INHERIT`` relative to itself), is read first and the file's
  settings merged into it: a mapping in both is merged key by key, at any depth;
  anything else (a list, a scalar, a mapping over a list) replaces the parent's.
  The paths in the merged settings (``docs_dir``, ``site_dir``) are relative to
  the file named on the command line, wherever they were written.
"""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path
from typing import Any

from ..protocol.errors import SitemapkitError
from ..site.dataformats import merge_settings

# First: without PyYAML, it stops with the one line that says what to install.
from ..site.yamlreader import TaggedValue, YamlLoader, YamlProblem, read_yaml

import yaml

__all__ = ["MkDocsLoader", "RelativePath", "read_mkdocs_yml"]

INHERIT_KEY = "INHERIT"


@dataclasses.dataclass(frozen=True)
class RelativePath(TaggedValue):
    """MkDocs' ``!relative`` placeholder, as written."""

    #: ``$config_dir``, ``$docs_dir``, or "" (the folder of the page being rendered).
    base: str
    suffix: str = ""

    def __repr__(self) -> str:
        written = "/".join(part for part in (self.base, self.suffix) if part)
        return "!relative" + (f" {written}" if written else "")


class MkDocsLoader(YamlLoader):
    """The YAML of ``mkdocs.yml``: :class:`YamlLoader` and ``!relative``."""


def _construct_relative(loader: Any, node: Any) -> RelativePath:
    value = loader.construct_scalar(node) or ""
    prefix, _, suffix = value.partition("/")
    if prefix.startswith("$"):
        if prefix in ("$config_dir", "$docs_dir"):
            return RelativePath(prefix, suffix)
        problem = f"unknown prefix {prefix!r} in !relative {value!r} ($config_dir or $docs_dir)"
    elif value:
        problem = f"'!relative' takes no value (or $config_dir/..., $docs_dir/...); received {value!r}"
    else:
        return RelativePath("")
    raise yaml.constructor.ConstructorError(None, None, problem, node.start_mark)


MkDocsLoader.add_constructor("!relative", _construct_relative)


def read_mkdocs_yml(path: Path, raw: bytes) -> dict[str, Any]:
    """The settings of ``path`` (its bytes ``raw``) with its ``INHERIT`` chain
    merged, as MkDocs merges them.

    Raises :class:`SitemapkitError` with one line naming the file (the parent's,
    when the problem is there) and the line.
    """
    return _read(Path(os.path.abspath(path)), raw, [])


def _read(path: Path, raw: bytes, children: list[Path]) -> dict[str, Any]:
    named = path.name if not children else os.path.relpath(path, children[0].parent)
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise SitemapkitError(f"{named}: is not UTF-8 text") from None
    try:
        settings = read_yaml(text, MkDocsLoader)
    except YamlProblem as error:
        raise SitemapkitError(f"{named}: {error}") from None
    if settings is None:
        return {}
    if not isinstance(settings, dict):
        raise SitemapkitError(f"{named}: must be a mapping of settings, not {type(settings).__name__}")
    if INHERIT_KEY not in settings:
        return settings
    relative = settings.pop(INHERIT_KEY)
    if not isinstance(relative, str):
        raise SitemapkitError(f"{named}: {INHERIT_KEY}: {relative!r} must be the path of a file")
    # os.path, as MkDocs: "a/../b.yml" leaves the folder before following links.
    parent = Path(os.path.normpath(os.path.join(path.parent, relative)))
    if parent == path or parent in children:
        raise SitemapkitError(f"{named}: {INHERIT_KEY}: {relative!r} inherits from itself")
    try:
        inherited = parent.read_bytes()
    except OSError as error:
        raise SitemapkitError(
            f"{named}: {INHERIT_KEY}: {relative!r}: {error.strerror or error} ({str(parent)!r})"
        ) from None
    return merge_settings(_read(parent, inherited, [*children, path]), settings)
