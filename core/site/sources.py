"""``sitemapkit build --source DIR``: date the pages of a generator whose output
mirrors its sources (Hugo, Jekyll pages, Eleventy, Zola) by those sources.

Such generators write ``content/posts/a.md`` as ``public/posts/a/index.html`` or
``public/posts/a.html``, and the output files' own times are the build's. A page
takes the git date (or file time) of the first source that exists, in this order:

* for ``posts/a/index.html``: ``posts/a.EXT``, ``posts/a/index.EXT``,
  ``posts/a/_index.EXT`` (a Hugo branch bundle; ``_index.EXT`` at the top for the
  home page);
* for ``posts/a.html``: ``posts/a.EXT``;

where EXT is each of :data:`SOURCE_EXTENSIONS`. A page with no such source keeps
the other rules (its head's dates, then its own file's).
"""

from __future__ import annotations

import dataclasses
import posixpath
from collections.abc import Iterable, Iterator
from pathlib import Path

from ..protocol.errors import SitemapkitError
from ..protocol.model import Page
from ..protocol.urls import HTML_SUFFIXES, INDEX_FILE

__all__ = ["SOURCE_EXTENSIONS", "mirrored_source", "with_mirrored_sources"]

#: Source file extensions looked for, in this order.
SOURCE_EXTENSIONS = (".md", ".markdown", ".html")


def mirrored_source(source_dir: Path, relative: str) -> Path | None:
    """The source in ``source_dir`` of the page written at ``relative`` (a path below
    the output folder, with "/"), or None."""
    folder, name = posixpath.split(relative)
    stems: list[str] = []
    if name == INDEX_FILE:
        if folder:
            stems.append(folder)
        stems += [posixpath.join(folder, "index"), posixpath.join(folder, "_index")]
    elif name.endswith(HTML_SUFFIXES):
        stems.append(relative.rsplit(".", 1)[0])
    for stem in stems:
        for extension in SOURCE_EXTENSIONS:
            candidate = source_dir / (stem + extension)
            if candidate.is_file():
                return candidate
    return None


def with_mirrored_sources(pages: Iterable[Page], site_dir: Path, source_dir: Path) -> Iterator[Page]:
    """``pages`` (found in ``site_dir``), each given its mirrored source when it has one."""
    if not source_dir.is_dir():
        raise SitemapkitError(f"--source {str(source_dir)!r} is not a folder")
    for page in pages:
        if page.output is None:
            yield page
            continue
        relative = Path(page.output).relative_to(site_dir).as_posix()
        source = mirrored_source(source_dir, relative)
        yield page if source is None else dataclasses.replace(page, source=source)
