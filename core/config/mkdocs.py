"""``sitemapkit build --config mkdocs.yml`` (or ``zensical.toml``): a MkDocs-shaped
project's settings and sources, without MkDocs.

Zensical builds ``mkdocs.yml`` projects but runs no third-party plugin, and
ProperDocs or a plain ``mkdocs build`` may run without ours. After such a build,
this module reads the project's settings as MkDocs defines them and maps each
built page back to its Markdown source, so the command line gives the sitemap the
MkDocs adapter gives: the same pages, the git dates of their sources, their
front-matter dates and ``sitemap: false``, the same exclusions.

Read from ``mkdocs.yml`` (top-level keys, with :mod:`.yamlsubset`) or from the
``[project]`` table of ``zensical.toml`` (with :func:`~..site.dataformats.load_toml`): ``site_url``,
``docs_dir`` (default ``docs``), ``site_dir`` (default ``site``), both relative to
the configuration file, ``use_directory_urls`` (default true), ``exclude_docs``
and ``draft_docs`` (gitignore-style patterns; MkDocs also always leaves out
``.*`` and ``/templates/``), ``not_in_nav`` (read and checked; such pages are
built and listed, as MkDocs lists them), and the sitemapkit plugin's own options
(``plugins: [sitemapkit: {...}]``, ``[project.plugins.sitemapkit]``).
"""

from __future__ import annotations

import dataclasses
import posixpath
import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any
from urllib.parse import quote

from ..protocol.errors import ConfigError, SitemapkitError
from ..site.frontmatter import front_matter_lastmod, front_matter_listed, read_front_matter
from ..protocol.model import Options, Page

__all__ = ["ProjectConfig", "project_pages", "read_project_config"]

#: The Markdown file extensions MkDocs builds pages from (mkdocs.utils.markdown_extensions).
MARKDOWN_EXTENSIONS = (".md", ".markdown", ".mdown", ".mkdn", ".mkd")
# MkDocs' own exclusions, always applied before exclude_docs (mkdocs.structure.files).
_DEFAULT_EXCLUDE = ".*\n/templates/\n"
_WANTED = frozenset(
    {
        "site_url",
        "docs_dir",
        "site_dir",
        "use_directory_urls",
        "exclude_docs",
        "draft_docs",
        "not_in_nav",
        "plugins",
    }
)
PLUGIN_NAME = "sitemapkit"
#: The sitemap MkDocs' themes and Zensical write at the site root: replaced by ours,
#: or removed when ours has another name (``filename``, ``format: txt``).
GENERATOR_SITEMAPS = ("sitemap.xml", "sitemap.xml.gz")
#: Material's instant navigation and Zensical's read sitemap.xml in the browser:
#: a text sitemap leaves them an XML one beside it.
BROWSER_READS_SITEMAP_XML = True


@dataclasses.dataclass(frozen=True)
class ProjectConfig:
    """The settings of one MkDocs-shaped project that its sitemap depends on."""

    config_file: Path
    site_url: str | None
    docs_dir: Path
    site_dir: Path
    use_directory_urls: bool
    exclude_docs: str
    draft_docs: str
    not_in_nav: str
    #: The sitemapkit plugin's options as the configuration file sets them.
    plugin_options: dict[str, Any]
    #: What the file names that is not read, one line each (nothing, here).
    unread: tuple[str, ...] = ()

    def setting(self, name: str) -> str:
        """How the user names setting ``name`` in this file, for messages."""
        return f"{self.config_file.name}: {name}"


def read_project_config(path: Path | str) -> ProjectConfig:
    """The settings of ``path`` (``mkdocs.yml`` or ``zensical.toml``).

    Raises :class:`SitemapkitError` with one line naming the file and the setting.
    """
    path = Path(path)
    try:
        raw = path.read_bytes()
    except OSError as error:
        raise SitemapkitError(f"--config {str(path)!r}: {error.strerror or error}") from None
    if path.suffix.lower() == ".toml":
        settings = _read_toml(path, raw)
    else:
        from ..site.yamlsubset import YamlSubsetError, read_top_level

        try:
            settings = read_top_level(raw.decode("utf-8-sig"), _WANTED)
        except UnicodeDecodeError:
            raise SitemapkitError(f"{path.name}: is not UTF-8 text") from None
        except YamlSubsetError as error:
            raise SitemapkitError(f"{path.name}: {error}") from None

    def text(name: str, default: str | None) -> str | None:
        value = settings.get(name, default)
        if value is None:
            return default
        if not isinstance(value, str):
            raise SitemapkitError(f"{path.name}: {name}: {value!r} must be text")
        return value

    def patterns(name: str) -> str:
        value = settings.get(name)
        if value is None:
            return ""
        if not isinstance(value, str):
            raise SitemapkitError(f"{path.name}: {name}: must be a multi-line string of gitignore-style patterns")
        return value

    root = path.resolve().parent
    docs_dir = text("docs_dir", "docs") or "docs"
    site_dir = text("site_dir", "site") or "site"
    use_directory_urls = settings.get("use_directory_urls", True)
    if use_directory_urls is None:
        use_directory_urls = True
    if not isinstance(use_directory_urls, bool):
        raise SitemapkitError(f"{path.name}: use_directory_urls: {use_directory_urls!r} must be true or false")
    return ProjectConfig(
        config_file=path,
        site_url=text("site_url", None) or None,
        docs_dir=root / docs_dir,
        site_dir=root / site_dir,
        use_directory_urls=use_directory_urls,
        exclude_docs=patterns("exclude_docs"),
        draft_docs=patterns("draft_docs"),
        not_in_nav=patterns("not_in_nav"),
        plugin_options=_plugin_options(settings.get("plugins"), path.name),
    )


def _read_toml(path: Path, raw: bytes) -> dict[str, Any]:
    from ..site.dataformats import load_toml

    try:
        document = load_toml(raw.decode("utf-8-sig"), path.name)
    except UnicodeDecodeError:
        raise SitemapkitError(f"{path.name}: is not UTF-8 text") from None
    # Zensical reads the [project] table, or the top level when there is none.
    project = document.get("project", document)
    if not isinstance(project, dict):
        raise SitemapkitError(f"{path.name}: project must be a table")
    return {key: value for key, value in project.items() if key in _WANTED}


def _plugin_options(plugins: Any, file_name: str) -> dict[str, Any]:
    """The sitemapkit entry of ``plugins`` (a list of names and one-key mappings, or a mapping)."""
    entries: Iterable[Any]
    if plugins is None:
        return {}
    if isinstance(plugins, dict):
        entries = [{name: value} for name, value in plugins.items()]
    elif isinstance(plugins, list):
        entries = plugins
    else:
        raise SitemapkitError(f"{file_name}: plugins: must be a list or a mapping")
    for entry in entries:
        if isinstance(entry, dict) and PLUGIN_NAME in entry:
            options = entry[PLUGIN_NAME] or {}
            if not isinstance(options, dict):
                raise SitemapkitError(f"{file_name}: plugins.{PLUGIN_NAME}: its options must be a mapping")
            return dict(options)
    return {}


def options_for(config: ProjectConfig, base_url: str | None, flags: dict[str, Any]) -> Options:
    """The options of a run: the plugin's options in the file, then the command's flags.

    ``base_url`` (``--base-url``) wins over ``site_url``. A bad value in the file is
    named as the file names it.
    """
    url = base_url or config.site_url
    if not url:
        raise SitemapkitError(
            f"{config.setting('site_url')}: is not set, and a sitemap must list absolute URLs "
            "(set site_url, or pass --base-url)"
        )
    in_file = dict(config.plugin_options)
    # A folder in the file is relative to the file, as in the MkDocs adapter.
    if isinstance(in_file.get("stylesheet_template"), str):
        in_file["stylesheet_template"] = str(config.config_file.resolve().parent / in_file["stylesheet_template"])
    try:
        Options.from_mapping(in_file, base_url=url)
    except ConfigError as error:
        name = "site_url" if error.option == "base_url" else f"plugins.{PLUGIN_NAME}.{error.option}"
        raise SitemapkitError(f"{config.config_file.name}: {error.for_setting(name)}") from None
    values = {**in_file, **flags}
    if isinstance(values.get("exclude"), list):
        values["exclude"] = tuple(values["exclude"])
    return Options(base_url=url, **values)


def sites(config: ProjectConfig) -> list[tuple[ProjectConfig, str]]:
    """The sites the project publishes, each with its folder below the output
    folder: the one site, at its root."""
    return [(config, "")]


def generator_sitemap_folders(config: ProjectConfig) -> tuple[str, ...]:
    """The folders below the site besides its root where the generator writes
    :data:`GENERATOR_SITEMAPS`: none."""
    return ()


# ---- pages --------------------------------------------------------------------------


def project_pages(config: ProjectConfig, built: Iterable[Page], site_dir: Path) -> list[Page]:
    """Each built page of ``site_dir`` with its Markdown source, front-matter date and listing.

    ``built`` are the pages found in the folder (``output`` set). A page that comes
    from a Markdown file of ``docs_dir`` is dated by that file; a file MkDocs does
    not build (``exclude_docs``, ``draft_docs``: left from ``mkdocs serve`` or an
    older build) or only copies (an HTML file in ``docs_dir``) is left out, with
    its reason (handed over with ``exclude_reason``, so the report names it once);
    any other page (a theme's or a plugin's) keeps the other rules.
    """
    if not config.docs_dir.is_dir():
        raise SitemapkitError(f"{config.setting('docs_dir')}: {str(config.docs_dir)!r} is not a folder")
    excluded_spec = GitIgnorePatterns(_DEFAULT_EXCLUDE + config.exclude_docs)
    draft_spec = GitIgnorePatterns(config.draft_docs)
    pages: list[Page] = []
    for page in built:
        output = Path(page.output)  # type: ignore[arg-type]
        relative = output.relative_to(site_dir).as_posix()
        loc = _page_url(relative, config.use_directory_urls)
        source = _markdown_source(config.docs_dir, relative, config.use_directory_urls)
        if source is None:
            if (config.docs_dir / relative).is_file():
                pages.append(dataclasses.replace(page, loc=loc, exclude_reason="copied from docs_dir"))
            else:
                pages.append(dataclasses.replace(page, loc=loc))
            continue
        source_uri = source.relative_to(config.docs_dir).as_posix()
        if excluded_spec.match(source_uri):
            pages.append(dataclasses.replace(page, loc=loc, exclude_reason="exclude_docs"))
            continue
        if draft_spec.match(source_uri):
            pages.append(dataclasses.replace(page, loc=loc, exclude_reason="draft_docs"))
            continue
        meta = read_front_matter(source)
        pages.append(
            Page(
                loc,
                lastmod=front_matter_lastmod(meta),
                source=source,
                output=output,
                listed=front_matter_listed(meta),
                # A 404.md is MkDocs' error page: still never listed.
                exclude_reason=page.exclude_reason,
            )
        )
    return pages


def _page_url(relative: str, use_directory_urls: bool) -> str:
    """The URL MkDocs gives the page written at ``relative`` (mkdocs File.url)."""
    folder, name = posixpath.split(relative)
    url = relative
    if use_directory_urls and name == "index.html":
        url = folder + "/" if folder else ""
    # Percent-encoded as MkDocs encodes it (urllib's quote, "/" kept), so canonical
    # links the theme writes compare equal.
    return quote(url)


def _markdown_source(docs_dir: Path, relative: str, use_directory_urls: bool) -> Path | None:
    """The Markdown file MkDocs builds into ``relative`` (mkdocs File.dest_uri, reversed)."""
    folder, name = posixpath.split(relative)
    stems: list[str] = []
    if name == "index.html":
        stems += [posixpath.join(folder, "index"), posixpath.join(folder, "README")]
        if use_directory_urls and folder:
            stems.append(folder)  # foo.md -> foo/index.html
    elif name.endswith(".html") and not use_directory_urls:
        stems.append(relative[: -len(".html")])
    for stem in stems:
        for extension in MARKDOWN_EXTENSIONS:
            candidate = docs_dir / (stem + extension)
            if candidate.is_file():
                return candidate
    return None


class GitIgnorePatterns:
    """gitignore-style patterns, as MkDocs matches ``exclude_docs`` (pathspec's
    GitIgnoreSpec): the last matching pattern decides, ``!`` re-includes, a pattern
    with a "/" before its end is anchored at ``docs_dir``, a trailing "/" matches
    folders only, and a matching folder takes everything in it."""

    def __init__(self, text: str) -> None:
        self.rules: list[tuple[bool, bool, re.Pattern[str]]] = []
        for line in text.splitlines():
            line = line.rstrip()
            if not line or line.startswith("#"):
                continue
            negate = line.startswith("!")
            if negate:
                line = line[1:]
            elif line.startswith("\\"):
                line = line[1:]
            folder_only = line.endswith("/")
            line = line.rstrip("/")
            if not line:
                continue
            anchored = "/" in line
            line = line.lstrip("/")
            self.rules.append((negate, folder_only, re.compile(_glob_regex(line, anchored))))

    def match(self, relative: str) -> bool:
        parts = relative.split("/")
        # The file itself, then each folder above it.
        candidates = [(relative, False)] + [("/".join(parts[:n]), True) for n in range(1, len(parts))]
        matched = False
        for negate, folder_only, pattern in self.rules:
            if any(pattern.fullmatch(path) for path, is_folder in candidates if is_folder or not folder_only):
                matched = not negate
        return matched


def _glob_regex(glob: str, anchored: bool) -> str:
    out = [] if anchored else ["(?:.*/)?"]
    index = 0
    while index < len(glob):
        char = glob[index]
        if glob.startswith("**/", index):
            out.append("(?:.*/)?")
            index += 3
        elif glob.startswith("**", index) and index + 2 == len(glob):
            out.append(".*")
            index += 2
        elif char == "*":
            out.append("[^/]*")
            index += 1
        elif char == "?":
            out.append("[^/]")
            index += 1
        elif char == "[":
            end = glob.find("]", index + 2)
            if end < 0:
                out.append(re.escape(char))
                index += 1
            else:
                body = glob[index + 1 : end]
                if body.startswith("!"):
                    body = "^" + body[1:]
                out.append("[" + body.replace("\\", "\\\\") + "]")
                index = end + 1
        elif char == "\\" and index + 1 < len(glob):
            out.append(re.escape(glob[index + 1]))
            index += 2
        else:
            out.append(re.escape(char))
            index += 1
    return "".join(out)
