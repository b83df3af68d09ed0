"""Write Sitemaps for Sphinx's html and dirhtml builds, using the sitemapkit core."""

from __future__ import annotations

import dataclasses
import inspect
import os
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn
from urllib.parse import urlsplit, urlunsplit

from sphinx.errors import SphinxError
from sphinx.util import logging

import sitemapkit

if TYPE_CHECKING:
    from sphinx.application import Sphinx
    from sphinx.builders.html import StandaloneHTMLBuilder
    from sphinx.config import Config
    from sphinx.environment import BuildEnvironment
    from sphinx.util.typing import ExtensionMetadata

logger = logging.getLogger(__name__)

# The core's options, each a ``sitemapkit_<name>`` config value with the types a
# conf.py value may have, made from their one declaration (sitemapkit.Options): a
# new option is a conf.py setting at once. The defaults are the core's own.
_KIND_TYPES: dict[type, frozenset[type]] = {
    bool: frozenset({bool}),
    int: frozenset({int}),
    float: frozenset({float, int}),
    str: frozenset({str}),
    tuple: frozenset({list, tuple}),
}
OPTION_TYPES: dict[str, frozenset[type]] = {
    spec.name: _KIND_TYPES[spec.kind] | ({type(None)} if spec.optional else set())
    for spec in sitemapkit.Options.specs()
}
# This adapter's own config values, beside the core's.
OWN_SETTINGS = frozenset({"sitemapkit_languages"})

BUILDERS = frozenset({"html", "dirhtml"})
#: Where sphinx-polyversion hands each version's build its data.
POLYVERSION_VARIABLE = "POLYVERSION_DATA"
# File-wide metadata ``:sitemap: false`` keeps a document out of the sitemap.
_OFF = frozenset({"false", "no", "off", "0"})


class SitemapkitSphinxError(SphinxError):
    category = "sitemapkit error"


def _base_url(config: Config) -> str:
    """``html_baseurl``, or when it is unset the URL Read the Docs serves the build at."""
    return sitemapkit.base_url_setting(config.html_baseurl, os.environ)


def _why_no_sitemap(config: Config) -> str | None:
    """Why no sitemap is written for this base URL (unset, or relative: "/" is a
    common local fallback), said in conf.py's terms, or None: a warning, not an
    error that stops the build."""
    return sitemapkit.development_base_url(
        _base_url(config), setting="html_baseurl", example="html_baseurl = 'https://docs.example.org/' in conf.py"
    )


def _options(app: Sphinx, version: VersionBuild | None = None) -> sitemapkit.Options:
    settings = {name: getattr(app.config, f"sitemapkit_{name}") for name in OPTION_TYPES}
    # Folders in conf.py are relative to conf.py, as Sphinx's own paths are.
    settings = sitemapkit.beside_config_file(settings, app.confdir)
    base_url = _base_url(app.config)
    if version is not None:
        # A version folder is never the host root: the root's robots.txt line is
        # `sitemapkit versions`' to write. Canonical links made from an
        # html_baseurl without the version folder name no page of this version.
        settings["robots_txt"] = False
        if version.base_url != _with_slash(base_url):
            settings["check_canonical"] = False
        base_url = version.base_url
    try:
        return sitemapkit.Options.from_mapping(settings, base_url=base_url)
    except sitemapkit.ConfigError as error:
        raise _translate(error) from None


def _with_slash(url: str) -> str:
    return url if url.endswith("/") else url + "/"


@dataclasses.dataclass(frozen=True)
class VersionBuild:
    """One version's build under sphinx-multiversion."""

    #: The tool building it, and the version's name.
    tool: str
    name: str
    #: The URL the version is served at: html_baseurl and the version's folder.
    base_url: str
    #: The ``git archive`` copy the version is built from, the repository it came
    #: from and the ref it is (None when the tool does not say).
    archive: str | None = None
    repository: str | None = None
    revision: str | None = None


def _served_at(app: Sphinx, folder: str) -> str:
    """html_baseurl with the version's folder, unless it names it already."""
    base = _with_slash(_base_url(app.config))
    return base if urlsplit(base).path.endswith(f"/{folder}/") else base + folder + "/"


def _version_build(app: Sphinx) -> VersionBuild | None:
    """The build of one version by sphinx-multiversion (``smv_current_version``
    and ``smv_metadata`` in the config) or sphinx-polyversion (its
    ``POLYVERSION_DATA`` in the environment), or None."""
    current = getattr(app.config, "smv_current_version", "") or ""
    metadata = getattr(app.config, "smv_metadata", None) or {}
    data = metadata.get(current) if isinstance(metadata, dict) else None
    outdir = os.path.realpath(app.outdir)
    if not current or not isinstance(data, dict):
        if not os.environ.get(POLYVERSION_VARIABLE):
            return None
        # sphinx-polyversion writes each version into a folder named after it; its
        # data names the commit, not the repository: the pages stay undated.
        revision = (getattr(app.config, "html_context", None) or {}).get("current")
        folder = os.path.basename(outdir)
        return VersionBuild("sphinx-polyversion", str(getattr(revision, "name", folder)), _served_at(app, folder))
    outputs = [str(m.get("outputdir")) for m in metadata.values() if isinstance(m, dict) and m.get("outputdir")]
    # The version's folder below the served root: what the versions' output
    # folders do not share (smv_outputdir_format, "{ref.name}" by default).
    common = os.path.realpath(os.path.commonpath(outputs)) if len(outputs) > 1 else os.path.dirname(outdir)
    folder = os.path.relpath(outdir, common).replace(os.sep, "/")
    if folder.startswith(".."):
        folder = os.path.basename(outdir)
    source = data.get("source")
    revision = f"refs/{source}/{current}" if source in ("tags", "heads", "remotes") else None
    return VersionBuild(
        "sphinx-multiversion", current, _served_at(app, folder), data.get("basedir"), str(app.confdir), revision
    )


def _dated_by_revision(pages: list[sitemapkit.Page], version: VersionBuild) -> tuple[list[sitemapkit.Page], str]:
    """Pages built from a ``git archive`` copy, outside any work tree: dated by the
    history of the ref the copy was made from, or left undated (their file times
    are the archive's, one batch: no date at all is better than a false one)."""
    how = f"undated ({version.tool} does not say which commit of which repository it built)"
    dates: dict = {}
    if version.archive and version.repository and version.revision:
        files = [f for page in pages for f in (page.source, *page.includes) if f is not None]
        try:
            dates = sitemapkit.archive_lastmods(files, version.archive, version.repository, version.revision).dates
            how = f"dated by the history of {version.revision}"
        except sitemapkit.SitemapkitError as error:
            how = f"undated ({error})"
    dated = []
    for page in pages:
        known = [d for f in (page.source, *page.includes) if f is not None and (d := dates.get(Path(f))) is not None]
        lastmod = page.lastmod if page.lastmod is not None else (max(known) if known else None)
        dated.append(dataclasses.replace(page, lastmod=lastmod, source=None, includes=()))
    return dated, how


def _language_bases(config: Config) -> tuple[str, dict[str, str]]:
    """This build's hreflang and every language's base URL, from ``sitemapkit_languages``.

    The other languages are not built here, so their URLs follow the Read the Docs
    layout: ``html_baseurl`` with its path segment for ``language`` replaced.
    """
    codes = config.sitemapkit_languages
    if isinstance(codes, str) or not all(sitemapkit.language_tag(c) is not None for c in codes):
        msg = f"sitemapkit_languages: {codes!r} must be a list of language codes such as ['en', 'fr', 'pt-br']"
        raise SitemapkitSphinxError(msg)
    parts = urlsplit(_base_url(config))
    segments = parts.path.split("/")
    own = _normal(config.language or "en")
    try:
        index = [_normal(s) for s in segments].index(own)
    except ValueError:
        msg = (
            f"sitemapkit_languages: html_baseurl {_base_url(config)!r} has no path segment for this "
            f"build's language {config.language!r} (e.g. https://project.example.org/{own}/latest/); "
            "the other languages' URLs replace that segment"
        )
        raise SitemapkitSphinxError(msg) from None
    bases = {}
    for code in (segments[index], *codes):
        path = "/".join([*segments[:index], code, *segments[index + 1 :]])
        bases.setdefault(_normal(code), urlunsplit(parts._replace(path=path.rstrip("/") + "/")))
    return own, bases


def _normal(code: str) -> str:
    return code.lower().replace("_", "-")


def _listed(env: BuildEnvironment, docname: str) -> bool:
    flag = env.metadata.get(docname, {}).get("sitemap")
    return not (isinstance(flag, str) and flag.strip().lower() in _OFF)


def _page_path(builder: StandaloneHTMLBuilder, pagename: str) -> str:
    """The URL path of a page (a name, not a URL: ``c#sharp`` is a document name).

    ``html`` links to ``<name><html_link_suffix>`` (its get_target_uri quotes the
    name); ``dirhtml``'s get_target_uri gives the folder, the name unquoted.
    Both become URLs through Page.from_path, the same way.
    """
    if builder.name == "dirhtml":
        return builder.get_target_uri(pagename)
    return pagename + builder.link_suffix


def _page(builder: StandaloneHTMLBuilder, pagename: str, **fields) -> sitemapkit.Page:
    output = builder.get_outfilename(pagename)
    # An error page (a theme's or an extension's 404.html, through
    # html-collect-pages) is left out as the command line leaves it out: by the
    # name of the file written, in any folder (dirhtml's 404/index.html too).
    # Handed over so the report says why.
    if sitemapkit.is_error_page(os.path.relpath(output, builder.outdir).replace(os.sep, "/")):
        fields["exclude_reason"] = "error page"
    return sitemapkit.Page.from_path(_page_path(builder, pagename), output=output, **fields)


def _pages(app: Sphinx) -> dict[str, sitemapkit.Page]:
    """Every HTML page the build writes for the project, by page name."""
    builder: StandaloneHTMLBuilder = app.builder
    env = app.env
    # Every document of the project, not only those written in this run, so that
    # incremental builds still list them all.
    docnames = sorted(env.found_docs)
    # Files a document includes (include, literalinclude, images, autodoc's
    # modules...), as Sphinx records them for its own rebuilds: relative to the
    # source folder.
    srcdir = Path(app.srcdir)
    dependencies = env.dependencies
    pages = {
        # ``:sitemap: false`` pages are handed over unlisted: the report counts them,
        # and their dates still count for the indices that show them.
        name: _page(
            builder,
            name,
            source=env.doc2path(name),
            listed=_listed(env, name),
            includes=tuple(sorted(srcdir / dep for dep in dependencies[name])) if dependencies.get(name) else (),
        )
        for name in docnames
    }
    uri = {name: page.loc for name, page in pages.items()}
    if builder.use_index:
        indexed = env.get_domain("index").entries
        pages["genindex"] = _page(builder, "genindex", members=tuple(uri[n] for n in docnames if indexed.get(n)))
    for index_name, _cls, content, _collapse in _domain_indices(builder):
        listed = {entry.docname for _letter, entries in content for entry in entries}
        pages[index_name] = _page(builder, index_name, members=tuple(uri[n] for n in docnames if n in listed))
    for name in sorted(app.config.html_additional_pages):
        pages.setdefault(name, _page(builder, name))
    # Pages extensions add through html-collect-pages (viewcode's _modules/...):
    # listed like any other, subject to the same checks and exclude globs; an
    # error page among them (a theme's 404.html) is left out by _page.
    collected = sorted(_collected_pages(app))
    modules = []
    for name in collected:
        module = _viewcode_module_file(name)
        if module is not None:
            # viewcode's page of one module shows that file: dated by its git
            # date (an include: untracked or installed modules date nothing).
            modules.append(pages.setdefault(name, _page(builder, name, includes=(module,))).loc)
    if VIEWCODE_INDEX in collected:
        # viewcode's list of the modules: dated by the newest of them.
        pages.setdefault(VIEWCODE_INDEX, _page(builder, VIEWCODE_INDEX, members=tuple(modules)))
    for name in collected:
        pages.setdefault(name, _page(builder, name))
    if builder.search:
        # The search page is never content to index; handed over so the report says why.
        pages["search"] = _page(builder, "search", exclude_reason="search page")
    return pages


# viewcode writes the code of module pkg.mod as _modules/pkg/mod, and their list
# as _modules/index (sphinx.ext.viewcode.OUTPUT_DIRNAME).
VIEWCODE_FOLDER = "_modules/"
VIEWCODE_INDEX = VIEWCODE_FOLDER + "index"


def _viewcode_module_file(pagename: str) -> str | None:
    """The Python file viewcode's page ``pagename`` shows, or None (another page,
    or a module whose source Sphinx cannot find)."""
    if not pagename.startswith(VIEWCODE_FOLDER) or pagename == VIEWCODE_INDEX:
        return None
    from sphinx.errors import PycodeError
    from sphinx.pycode import ModuleAnalyzer

    try:
        # Cached: viewcode analysed the same module to write the page.
        found = ModuleAnalyzer.for_module(pagename[len(VIEWCODE_FOLDER) :].replace("/", "."))
    except PycodeError:
        return None
    return str(found.srcname) if found.srcname else None


def _domain_indices(builder: StandaloneHTMLBuilder) -> list:
    """The domain indices (py-modindex...) the build writes.

    Sphinx fills ``builder.domain_indices`` when it prepares writing; before 8.1 a
    build with nothing to write skips that, yet the indices stay in the site.
    Then they are found as Sphinx finds them.
    """
    if builder.domain_indices or not builder.config.html_domain_indices:
        return builder.domain_indices
    wanted = builder.config.html_domain_indices
    names = None if isinstance(wanted, bool) else frozenset(wanted)
    found = []
    for domain_name in sorted(builder.env.domains):
        domain = builder.env.domains[domain_name]
        for index_cls in domain.indices:
            index_name = f"{domain.name}-{index_cls.name}"
            if names is not None and index_name not in names:
                continue
            content, collapse = index_cls(domain).generate()
            if content:
                found.append((index_name, index_cls, content, collapse))
    return found


# Pages rendered from no document (html-collect-pages), recorded as Sphinx renders
# them. An incremental build renders only what changed (viewcode skips modules
# whose page is newer than their source), so the record is kept in the build's
# doctree folder, Sphinx's own cache, for the next build.
_COLLECTED_RECORD = "sitemapkit-collected-pages.json"
# Rendered from no document, yet no page of their own to list: indices and
# additional pages are found above; search never is listed.
_NOT_COLLECTED = frozenset({"genindex", "search", "opensearch"})
# Where this build's rendered pages are kept until build-finished: on the app.
_RENDERED = "_sitemapkit_rendered_pages"


def record_rendered_page(app: Sphinx, pagename: str, templatename: str, context: dict, doctree) -> None:
    if doctree is not None or app.builder.name not in BUILDERS or pagename in _NOT_COLLECTED:
        return
    if pagename in app.env.found_docs or pagename in app.config.html_additional_pages:
        return
    if pagename.startswith("genindex-") or pagename in {name for name, *_ in app.builder.domain_indices}:
        return
    if not hasattr(app, _RENDERED):
        setattr(app, _RENDERED, set())
    getattr(app, _RENDERED).add(pagename)


def _collected_pages(app: Sphinx) -> set[str]:
    """Pages extensions added, this build or an earlier one into the same output,
    whose file is still there."""
    import json

    record = Path(app.doctreedir) / _COLLECTED_RECORD
    try:
        saved = json.loads(record.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        saved = {}
    if not isinstance(saved, dict):
        saved = {}
    earlier = saved.get(str(app.outdir))
    rendered = getattr(app, _RENDERED, set())
    names = {
        name
        for name in (set(earlier) if isinstance(earlier, list) else set()) | rendered
        if isinstance(name, str) and Path(app.builder.get_outfilename(name)).is_file()
    }
    setattr(app, _RENDERED, set())
    saved[str(app.outdir)] = sorted(names)
    try:
        record.parent.mkdir(parents=True, exist_ok=True)
        record.write_text(json.dumps(saved, sort_keys=True), encoding="utf-8")
    except OSError:
        pass  # the next incremental build relists them once rendered again
    return names


def _with_alternates(pages: dict[str, sitemapkit.Page], own: str, bases: dict[str, str]) -> list[sitemapkit.Page]:
    # The other languages' pages are not part of this build, so each page carries
    # its alternates explicitly (and no translation_key to group by).
    return [
        dataclasses.replace(
            page, hreflang=own, alternates=tuple((code, base + page.loc) for code, base in sorted(bases.items()))
        )
        for page in pages.values()
    ]


def _translate(error: sitemapkit.SitemapkitError) -> SitemapkitSphinxError:
    if isinstance(error, sitemapkit.ConfigError):
        return SitemapkitSphinxError(sitemapkit.SPHINX_SETTINGS.message(error))
    return SitemapkitSphinxError(str(error))


def _check_names(config: Config) -> None:
    """A ``sitemapkit_*`` name in conf.py (or ``-D``) that is no setting stops the
    build, naming it, as a mistyped option does in every tool; Sphinx itself keeps
    quiet about unknown names in conf.py."""
    known = {f"sitemapkit_{name}" for name in OPTION_TYPES} | OWN_SETTINGS
    # conf.py's names, and those given with -D (Sphinx only warns of these).
    written = [*getattr(config, "_raw_config", {}), *getattr(config, "overrides", {})]
    unknown = sorted({name for name in written if name.startswith("sitemapkit_") and name not in known})
    if unknown:
        error = sitemapkit.unknown_option(
            unknown[0].removeprefix("sitemapkit_"),
            spelled=lambda option: f"sitemapkit_{option}",
            extra=[name.removeprefix("sitemapkit_") for name in OWN_SETTINGS],
            base_url_from="html_baseurl",
        )
        raise SitemapkitSphinxError(error.for_setting(unknown[0]))


def _stop(error: SitemapkitSphinxError) -> NoReturn:
    """Stop the build with one error line naming the setting, and exit status 2.

    Any exception that reaches sphinx-build, SphinxError and Sphinx's own
    ConfigError included, makes Sphinx 8.1+ print its crash report (versions, a
    traceback, a request to report the error to Sphinx's tracker), and 7.4 a
    traceback under -T: a bad setting is no crash. So the message is logged as an
    error and the build ends with SystemExit, which sphinx-build lets through as
    its exit status (it catches only Exception and KeyboardInterrupt).
    """
    logger.error("%s", error)
    raise SystemExit(2)


def check_config(app: Sphinx) -> None:
    try:
        _check_names(app.config)
    except SitemapkitSphinxError as error:
        _stop(error)
    if app.builder.name not in BUILDERS:
        return
    why = _why_no_sitemap(app.config)
    if why is not None:
        logger.warning(f"sitemapkit: {why}", type="sitemapkit", subtype="config")
        return
    try:
        _options(app)
        if app.config.sitemapkit_languages:
            _language_bases(app.config)
    except SitemapkitSphinxError as error:
        _stop(error)


def write_sitemap(app: Sphinx, exception: BaseException | None) -> None:
    if exception is not None or app.builder.name not in BUILDERS or _why_no_sitemap(app.config) is not None:
        return
    try:
        version = _version_build(app)
        options = _options(app, version)
        pages = _pages(app)
        if app.config.sitemapkit_languages:
            listed = _with_alternates(pages, *_language_bases(app.config))
        else:
            listed = list(pages.values())
        if version is not None:
            listed, dated = _dated_by_revision(listed, version)
        try:
            report = sitemapkit.build_site(listed, options, Path(app.outdir))
        except sitemapkit.SitemapkitError as error:
            raise _translate(error) from None
    except SitemapkitSphinxError as error:
        _stop(error)
    if version is not None:
        # The robots.txt advice is the root's business (sitemapkit versions).
        report.advice[:] = [
            f"{version.tool} {version.name}: pages listed at {version.base_url}, where it is served, "
            f"{dated}; no robots.txt in a version folder: run `sitemapkit versions` on the output folder "
            "for the root sitemap"
        ]
        report.undated_generated.clear()
    for notice, text in report.log_lines(verbose=options.verbose):
        if notice is None:
            logger.info(text)
        else:
            logger.warning(text, type="sitemapkit", subtype=notice.code)


def setup(app: Sphinx) -> ExtensionMetadata:
    app.setup_extension("sphinx.builders.html")
    described = "description" in inspect.signature(app.add_config_value).parameters
    for spec in sitemapkit.Options.specs():
        # A list default, as Sphinx expects, lets ``-D sitemapkit_exclude=a,b`` work.
        default = list(spec.default) if isinstance(spec.default, tuple) else spec.default
        help = {"description": f"{spec.help}; {spec.allowed()}"} if described else {}
        app.add_config_value(f"sitemapkit_{spec.name}", default, "", types=OPTION_TYPES[spec.name], **help)
    app.add_config_value("sitemapkit_languages", [], "", types=frozenset({list, tuple}))
    app.connect("builder-inited", check_config)
    app.connect("html-page-context", record_rendered_page)
    app.connect("build-finished", write_sitemap)
    return {
        "version": sitemapkit.__version__,
        # All the work happens in build-finished in the main process; nothing is
        # kept per document, so readers and writers may run in parallel.
        "parallel_read_safe": True,
        "parallel_write_safe": True,
    }
