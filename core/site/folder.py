"""A built folder's pages: which files a static host serves as pages, found in
one walk, and the path each one's file is named by. One rule for every build
that reads a folder: ``sitemapkit build``'s workers, ``find_pages`` (build_site
for a folder) and build_site's search for files no page stands for.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

from ..protocol.model import Page, is_error_page
from ..protocol.urls import HTML_SUFFIXES, path_of_file


def walk_pages(site_dir: Path | str, repositories: list[str] | None = None) -> Iterator[str]:
    """The HTML pages of a built folder as names relative to it (``a/b/index.html``),
    each folder's files in name order, then its folders in name order.

    Only regular files (or symlinks to them) are pages: a dangling symlink is
    served as nothing, and opening a FIFO would wait forever. Hidden folders
    (``.git``, ``.well-known``) hold no pages to list; a symlinked folder is not
    entered (it would be walked twice, or forever). The folders that hold a
    ``.git`` are added to ``repositories`` when it is given.
    """
    # Depth first without recursion: the folders still to list, the next on top.
    folders_left = [(os.fspath(site_dir), "")]
    while folders_left:
        folder, prefix = folders_left.pop()
        files, folders = [], []
        try:
            with os.scandir(folder) as listing:
                for entry in listing:
                    name = entry.name
                    try:
                        is_folder = entry.is_dir()
                    except OSError:
                        is_folder = False
                    if is_folder:
                        if name == ".git" and repositories is not None:
                            repositories.append(prefix)
                        if not name.startswith("."):
                            folders.append(entry)
                    elif name.endswith(HTML_SUFFIXES):
                        try:
                            if entry.is_file():
                                files.append(prefix + name)
                        except OSError:
                            pass
                    elif name == ".git" and repositories is not None:
                        repositories.append(prefix)  # a worktree's or submodule's .git file
        except OSError:
            continue  # as os.walk: a folder that cannot be listed has no pages
        if len(files) > 1:
            files.sort()
        yield from files
        if len(folders) > 1:
            # Pushed last first, so that they are listed in name order.
            folders.sort(key=_name, reverse=True)
        for entry in folders:
            try:
                if entry.is_symlink():
                    continue
            except OSError:
                continue
            folders_left.append((entry.path, prefix + entry.name + "/"))


def _name(entry: os.DirEntry) -> str:
    return entry.name


def file_prefix(site_dir: Path | str) -> str:
    """What a page's relative name (from :func:`walk_pages`) is joined to for its
    path: the folder as ``Path`` spells it, and a separator (nothing for ``.``),
    so that every build names a page's file the same way (notices show it)."""
    folder = str(Path(site_dir))
    return "" if folder == "." else folder + os.sep


def page_file(prefix: str, relative: str) -> str:
    """The path of the page ``relative`` (``/``-separated) below ``prefix``
    (:func:`file_prefix`)."""
    return prefix + (relative if os.sep == "/" else relative.replace("/", os.sep))


def folder_page(relative: str, path: Path | str, **fields) -> Page:
    """The page a built folder's file ``relative`` (``/``-separated) is: served
    at its name (``index.html`` at its folder's); an error page is handed over
    unlisted, so the report says why it is left out."""
    reason = "error page" if is_error_page(relative) else None
    return Page.from_path(path_of_file(relative), source=path, output=path, exclude_reason=reason, **fields)


def find_pages(site_dir: Path) -> Iterator[Page]:
    """The HTML pages of a built folder (see :func:`~sitemapkit.folder.walk_pages`
    and :func:`~sitemapkit.folder.folder_page`): ``index.html`` stands for its
    folder URL; file names are names, not URLs (``c#sharp.html`` is served at
    ``c%23sharp.html``); error pages are handed over unlisted, so the report says
    why they are left out."""
    # Strings, not Path objects: a site of 100,000 pages would make 100,000.
    prefix = file_prefix(site_dir)
    for relative in walk_pages(site_dir):
        yield folder_page(relative, page_file(prefix, relative))
