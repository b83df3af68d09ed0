"""Which folders of a site are the versions it serves (mike's ``gh-pages``,
sphinx-multiversion's and sphinx-polyversion's output), each with its own
sitemap: read by ``sitemapkit versions`` to plan the root sitemap, and by
``sitemapkit check`` to tell another version's pages from pages left unlisted.
"""

from __future__ import annotations

import dataclasses
import json
import os
import re
from pathlib import Path

from ..protocol.encoder import written_by_sitemapkit
from ..protocol.errors import ConfigError, SitemapkitError

__all__ = ["VERSIONS_JSON", "VERSION_SITEMAP", "Version", "find_versions", "read_versions_json"]

#: mike's list of versions and their aliases, at the root of the site.
VERSIONS_JSON = "versions.json"
#: The sitemap each version's build writes (Material's version selector reads it).
VERSION_SITEMAP = "sitemap.xml"


@dataclasses.dataclass(frozen=True)
class Version:
    """A version folder below the root, and the other names (aliases) it is served under."""

    name: str
    aliases: tuple[str, ...] = ()


def find_versions(root: Path, names: list[str] | None = None) -> list[Version]:
    """The versions ``root`` serves: mike's ``versions.json`` when it is there,
    else the folders holding a sitemap sitemapkit wrote; ``names`` chooses them.
    Raises :class:`SitemapkitError` naming anything odd."""
    if not root.is_dir():
        raise SitemapkitError(f"ROOT {str(root)!r} is not a folder")
    listed = root / VERSIONS_JSON
    from_json = read_versions_json(listed) if listed.is_file() else None
    if names is not None:
        if not names or any(not n or "/" in n or n in (".", "..") for n in names):
            raise ConfigError("versions", f"{','.join(names)!r} must name version folders, comma-separated")
        aliases = {v.name: v.aliases for v in from_json or []}
        alias_of = {alias: v.name for v in from_json or [] for alias in v.aliases}
        for n in names:
            if n in alias_of and n not in aliases:
                # Its folder serves another version's pages again (copy, symlink).
                raise ConfigError(
                    "versions", f"{n!r} is an alias of {alias_of[n]!r} ({VERSIONS_JSON}); name versions, not aliases"
                )
        versions = [Version(n, aliases.get(n, ())) for n in names]
        where = "--versions"
    elif from_json is not None:
        versions, where = from_json, VERSIONS_JSON
    else:
        versions, where = _sitemap_folders(root), "its folders"
        if not versions:
            if _has_own_sitemap(root / VERSION_SITEMAP, root, None):
                raise SitemapkitError(
                    f"ROOT {str(root)!r} holds no version folder but a version's own sitemap: "
                    "it is a version folder itself; give the folder that holds the versions"
                )
            raise SitemapkitError(
                f"ROOT {str(root)!r} has no {VERSIONS_JSON} and no folder holding a sitemap sitemapkit wrote; "
                "build each version with a sitemapkit adapter, or name them with --versions"
            )
    for version in versions:
        folder = root / version.name
        if not folder.is_dir():
            raise SitemapkitError(f"version {version.name!r} ({where}) has no folder {str(folder)!r}")
        if not (folder / VERSION_SITEMAP).is_file():
            raise SitemapkitError(
                f"version {version.name!r} ({where}) has no {VERSION_SITEMAP} in {str(folder)!r}; "
                "build it with a sitemapkit adapter or sitemapkit build"
            )
        for alias in version.aliases:
            if not (root / alias).is_dir():
                raise SitemapkitError(
                    f"alias {alias!r} of version {version.name!r} ({where}) points nowhere: "
                    f"{str(root / alias)!r} is missing"
                )
    return versions


def read_versions_json(path: Path) -> list[Version]:
    """mike's ``versions.json``: a list of ``{"version": ..., "title": ..., "aliases": [...]}``;
    or sphinx-polyversion's: its revisions, each ``{"__jsonclass__": [class, [name, ...]]}``
    (a version's folder is its name)."""
    try:
        data = json.loads(path.read_bytes())
    except ValueError as error:
        raise SitemapkitError(f"{str(path)!r} is not JSON ({error})") from None
    if isinstance(data, list) and data and all(isinstance(item, dict) and "__jsonclass__" in item for item in data):
        try:
            return [Version(str(item["__jsonclass__"][1][0])) for item in data]
        except (IndexError, KeyError, TypeError):
            pass
    if not isinstance(data, list) or not all(
        isinstance(item, dict)
        and isinstance(item.get("version"), str)
        and isinstance(item.get("aliases", []), list)
        and all(isinstance(a, str) for a in item.get("aliases", []))
        for item in data
    ):
        raise SitemapkitError(
            f'{str(path)!r} is not mike\'s list of versions ([{{"version": "1.0", "aliases": [...]}}, ...])'
        )
    return [Version(item["version"], tuple(item.get("aliases", []))) for item in data]


def _has_own_sitemap(path: Path, root: Path, folder: str | None) -> bool:
    """Whether ``path`` is a sitemap sitemapkit wrote, listing (when ``folder`` is
    given) URLs below that folder: a version's own. A copy of another version's
    folder (mike's ``alias_type: copy``) lists that version's URLs."""
    if path.is_symlink():
        return False  # a version's build writes its own file; a link may lead out of the site
    try:
        with open(path, "rb") as file:
            start = file.read(4096)
    except OSError:
        return False
    if not written_by_sitemapkit(start):
        return False
    if folder is None:
        return True
    first = re.search(rb"<loc>([^<]*)</loc>", start)
    return first is not None and f"/{folder}/".encode() in first.group(1)


def _sitemap_folders(root: Path) -> list[Version]:
    folders = sorted(entry.name for entry in os.scandir(root) if entry.is_dir() and not entry.name.startswith("."))
    versions = [
        name
        for name in folders
        if not (root / name).is_symlink() and _has_own_sitemap(root / name / VERSION_SITEMAP, root, name)
    ]
    real = {os.path.realpath(root / name): name for name in versions}
    aliases: dict[str, list[str]] = {name: [] for name in versions}
    for name in folders:
        target = real.get(os.path.realpath(root / name))
        if target is not None and target != name:
            aliases[target].append(name)
    return [Version(name, tuple(aliases[name])) for name in versions]
