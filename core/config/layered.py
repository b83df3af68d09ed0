"""The files one ``--config`` names, and their settings layered into one mapping.

Hugo and Jekyll take several configuration files in one flag, joined by commas
(``hugo --config hugo.toml,production.toml``, ``jekyll build --config
_config.yml,_config.production.yml``): each file's settings are merged over the
ones before it (:func:`~sitemapkit.site.dataformats.merge_settings`), so the
later file wins. ``sitemapkit build --config`` takes the same list and reads it
as the generator does. The project's folder is the first file's.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..protocol.errors import SitemapkitError
from ..site.dataformats import merge_settings

__all__ = ["config_paths", "layered_settings"]

#: How Hugo's and Jekyll's ``--config`` join several files.
CONFIG_SEPARATOR = ","


def config_paths(written: Path | str) -> list[Path]:
    """The files ``--config`` names, in order: the one path, or each of a list
    joined by commas. A path that exists as written is one file, commas and all."""
    text = str(written)
    if CONFIG_SEPARATOR not in text or Path(text).exists():
        return [Path(text)]
    parts = [part.strip() for part in text.split(CONFIG_SEPARATOR)]
    if not all(parts):
        raise SitemapkitError(f"--config {text!r}: names an empty file (files are joined by single commas)")
    return [Path(part) for part in parts]


def layered_settings(
    paths: list[Path], load: Callable[[Path], dict[str, Any]]
) -> tuple[dict[str, Any], dict[str, str]]:
    """The settings of ``paths`` (each read by ``load``), each merged over the
    ones before it, and for each top-level key the name of the last file that
    set it (so a message names the file the setting was written in)."""
    settings: dict[str, Any] = {}
    origins: dict[str, str] = {}
    for path in paths:
        layer = load(path)
        for key in layer:
            origins[key] = path.name
        merge_settings(settings, layer)
    return settings, origins
