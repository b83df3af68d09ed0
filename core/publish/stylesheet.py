"""The browser view of the sitemaps: ``sitemap.xsl`` and ``sitemap.css``, from Jinja2 templates.

A sitemap that names a stylesheet (``<?xml-stylesheet type="text/xsl"
href="sitemap.xsl"?>``) opens in a browser as a sortable table instead of raw
XML; crawlers ignore the line. The stylesheet is XSLT 1.0, the only version
browsers run, and holds no JavaScript library: a few lines sort the table.

Browsers are removing XSLT: Chromium shows a deprecation banner over such pages
and turns XSLT off by default from version 155/158; Firefox and WebKit have
agreed to follow. Without XSLT a sitemap that names only an XSL stylesheet shows
as one run-on line of text, worse than no stylesheet. So sitemaps name a second,
CSS stylesheet after the XSL one (``<?xml-stylesheet type="text/css"
href="sitemap.css"?>``): browsers that still run XSLT use the XSL table and
ignore it; the others style the XML itself with it, as a readable list.

The number of URLs in each sitemap of an index is written into the stylesheet
at build time (``url_counts``) rather than looked up by the browser with XSLT's
``document()``: fetching every shard to count its ``<url>`` elements would load
up to 10 MiB per shard just to show an index, fails for gzipped shards (served
without ``Content-Encoding``), for a copy opened from disk (``file://`` is a
unique origin to Chromium) and for a preview on another host than the one the
index names.
"""

from __future__ import annotations

import functools
import xml.etree.ElementTree as ElementTree
from collections.abc import Mapping
from pathlib import Path

import jinja2

from ..protocol.errors import ConfigError

TEMPLATE_NAME = "sitemap.xsl.j2"
FALLBACK_CSS_TEMPLATE_NAME = "sitemap.css.j2"
# The files are written beside the sitemaps as sitemap.STYLESHEET_NAME and
# sitemap.FALLBACK_CSS_NAME, the names their xml-stylesheet lines point at.
#: The option naming a folder with the user's own ``sitemap.xsl.j2``.
TEMPLATE_OPTION = "stylesheet_template"

_BUILTIN_TEMPLATES = Path(__file__).parents[1] / "templates"
# Under this prefix the built-in template stays reachable from a user's template
# of the same name ({% extends "sitemapkit/sitemap.xsl.j2" %}).
_BUILTIN_PREFIX = "sitemapkit"


def render_stylesheet(
    template_dir: Path | None = None,
    *,
    url_counts: Mapping[str, int] | None = None,
    image_counts: Mapping[str, int] | None = None,
) -> bytes:
    """The bytes of ``sitemap.xsl``.

    ``template_dir``: a folder holding the user's own ``sitemap.xsl.j2``, used
    instead of the built-in one (which it may extend). ``url_counts``: for an
    index, each sitemap's URL exactly as its ``<loc>`` gives it, mapped to the
    number of URLs that sitemap lists; the index table shows the counts.
    ``image_counts``: the same for the ``<image:image>`` entries of each.

    Same arguments, same bytes. Raises :class:`ConfigError` (option
    ``stylesheet_template``) when the user's folder or template is unusable or
    does not render to well-formed XML.
    """
    counts = {str(loc): int(count) for loc, count in (url_counts or {}).items()}
    for loc in counts:
        if not loc or any(character.isspace() for character in loc):
            # The count map is space-separated; an encoded URL never holds a space.
            raise ValueError(f"url_counts: {loc!r} is not a percent-encoded URL")
    if template_dir is not None and not (Path(template_dir) / TEMPLATE_NAME).is_file():
        # Checked here: the loaders would quietly fall back to the built-in one.
        _check_folder(template_dir)
        raise ConfigError(TEMPLATE_OPTION, f"{str(template_dir)!r} holds no {TEMPLATE_NAME}")
    data = _render(
        TEMPLATE_NAME,
        template_dir,
        url_counts=counts,
        url_count_map=" " + "".join(f"{loc} {counts[loc]} " for loc in sorted(counts)),
        url_total=sum(counts.values()) if counts else None,
        image_count_map=" " + "".join(f"{loc} {n} " for loc, n in sorted((image_counts or {}).items()) if n),
        image_total=sum((image_counts or {}).values()),
    )
    # A browser shows nothing but an error for a stylesheet that is not XML; say
    # so at build time, where it can be fixed.
    try:
        ElementTree.fromstring(data)
    except ElementTree.ParseError as error:
        origin = repr(str(template_dir)) if template_dir is not None else "sitemapkit"
        raise ConfigError(
            TEMPLATE_OPTION, f"{TEMPLATE_NAME} from {origin} does not render to well-formed XML: {error}"
        ) from None
    return data


def render_fallback_css(template_dir: Path | None = None) -> bytes:
    """The bytes of ``sitemap.css``, the view for browsers without XSLT.

    Named in the sitemaps after the XSL stylesheet (see
    :data:`FALLBACK_CSS_NAME`), it is used only where XSLT no longer runs.
    ``template_dir`` may hold a ``sitemap.css.j2`` of the user's; without one the
    built-in template is used.
    """
    return _render(FALLBACK_CSS_TEMPLATE_NAME, template_dir)


def _render(name: str, template_dir: Path | None, **context: object) -> bytes:
    environment = _environment(template_dir)
    try:
        return environment.get_template(name).render(sitemapkit_version=_version(), **context).encode("utf-8")
    except jinja2.TemplateError as error:
        lineno = getattr(error, "lineno", None)
        where = f"{getattr(error, 'filename', None) or name}, line {lineno}" if lineno else name
        raise ConfigError(TEMPLATE_OPTION, f"{where}: {error.message or error}") from None


def _check_folder(template_dir: Path) -> None:
    if not Path(template_dir).is_dir():
        raise ConfigError(TEMPLATE_OPTION, f"{str(template_dir)!r} is not a folder")


def _environment(template_dir: Path | None) -> jinja2.Environment:
    if template_dir is None:
        return _builtin_environment()
    _check_folder(template_dir)
    return _new_environment(template_dir)


# The built-in templates' environment, once a process: a build renders the XSL
# stylesheet twice (the check before anything is written, then with the counts),
# and Jinja2 keeps a template compiled in its environment. A user's folder gets
# a new one each time: a template added to it later (under `mkdocs serve`)
# must be found, and a loader's cache would not look for it again.
@functools.cache
def _builtin_environment() -> jinja2.Environment:
    return _new_environment(None)


def _new_environment(template_dir: Path | None) -> jinja2.Environment:
    builtin = jinja2.FileSystemLoader(_BUILTIN_TEMPLATES)
    loaders: list[jinja2.BaseLoader] = []
    if template_dir is not None:
        loaders.append(jinja2.FileSystemLoader(template_dir))
    loaders.append(jinja2.PrefixLoader({_BUILTIN_PREFIX: builtin}))
    loaders.append(builtin)
    return jinja2.Environment(
        loader=jinja2.ChoiceLoader(loaders),
        # XML-escaping what templates print keeps the stylesheet well-formed; the
        # HTML escapes Jinja2 writes (&amp; &lt; &gt; &#34; &#39;) are XML's too.
        autoescape=True,
        keep_trailing_newline=True,
        undefined=jinja2.StrictUndefined,
    )


def _version() -> str:
    from ..protocol.version import __version__

    return __version__
