"""What a Markdown page's front matter says about its sitemap entry.

One rule for the MkDocs adapter (which gets the front matter from MkDocs) and for
``sitemapkit build --config`` (which reads it itself, as MkDocs does):

* ``lastmod``, else ``date``, is the page's date; Material's blog writes
  ``date: {created: ..., updated: ...}``, of which ``updated`` counts, else
  ``created``;
* ``sitemap: false`` keeps the page out of the sitemap.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ..protocol.errors import SitemapkitError
from ..protocol.patterns import deferred

__all__ = [
    "FRONT_MATTER_DATE_ADVICE",
    "FRONT_MATTER_KEYS",
    "front_matter_lastmod",
    "front_matter_listed",
    "read_front_matter",
    "read_front_matter_document",
]

#: The front-matter keys the rule reads.
FRONT_MATTER_KEYS = frozenset({"lastmod", "date", "sitemap"})

#: How a page gives its own date under this rule: what ``build_site(date_advice=)``
#: offers when git and file times cannot date the pages.
FRONT_MATTER_DATE_ADVICE = "give the pages a 'lastmod' or 'date' in their front matter"

# MkDocs' mkdocs.utils.meta: YAML between "---" and "---" (or "..."), else
# MultiMarkdown-style "key: value" lines up to the first blank line.
_YAML_FRONT_MATTER = deferred(r"\A-{3}[ \t]*\n(.*?\n)(?:\.{3}|-{3})[ \t]*\n", re.DOTALL)
_MULTIMARKDOWN_KEY = deferred(r"[ ]{0,3}(?P<key>[A-Za-z0-9_-]+):\s*(?P<value>.*)")
_MULTIMARKDOWN_MORE = deferred(r"(?:[ ]{4}|\t)(\s*)(?P<value>.*)")
# Hugo's and Jekyll's front matter: YAML between "---" lines, TOML between "+++"
# lines (Hugo), or a JSON object opening the file (Hugo).
_FENCED_FRONT_MATTER = deferred(r"\A(?P<fence>-{3}|\+{3})[ \t]*\n(?P<body>.*?\n)?(?P=fence)[ \t]*(?:\n|\Z)", re.DOTALL)


def front_matter_lastmod(meta: Mapping[str, Any]) -> Any:
    """The page's date from its front matter, as written, or None."""
    value = meta.get("lastmod", meta.get("date"))
    if isinstance(value, Mapping):
        value = value.get("updated") or value.get("created")
    return value


def front_matter_listed(meta: Mapping[str, Any]) -> bool:
    """False when the front matter keeps the page out (``sitemap: false``)."""
    return meta.get("sitemap") is not False


def read_front_matter(path: Path | str) -> dict[str, Any]:
    """The keys of :data:`FRONT_MATTER_KEYS` that the Markdown file ``path`` sets.

    Read as MkDocs reads it (``mkdocs.utils.meta.get_data``): YAML between ``---``
    lines, with PyYAML (:mod:`.yamlreader`); MultiMarkdown-style values are text,
    as there. YAML that is not a mapping sets nothing, as there. Where MkDocs
    drops YAML it cannot read silently (the page loses its date and its
    ``sitemap: false``), this raises :class:`SitemapkitError` naming the file and
    the line.
    """
    with open(path, encoding="utf-8-sig", errors="replace") as handle:
        text = handle.read()
    text = text.replace("\r\n", "\n")
    match = _YAML_FRONT_MATTER.match(text)
    if match:
        from .yamlreader import YamlProblem, read_yaml

        try:
            meta = read_yaml(match.group(1))
        except YamlProblem as error:
            # Line 1 is the opening "---".
            where = f"front matter line {error.line + 1}" if error.line else "front matter"
            raise SitemapkitError(f"{path}: {where}: {error.message}") from None
        if not isinstance(meta, dict):
            return {}
        return {k: v for k, v in meta.items() if k in FRONT_MATTER_KEYS}
    data: dict[str, Any] = {}
    key = None
    for line in text.split("\n"):
        if not line.strip():
            break
        found = _MULTIMARKDOWN_KEY.match(line)
        if found:
            key = found.group("key").lower().strip()
            value = found.group("value").strip()
            data[key] = f"{data[key]} {value}" if key in data else value
            continue
        more = _MULTIMARKDOWN_MORE.match(line)
        if more and key:
            data[key] += " " + more.group("value").strip()
            continue
        break
    return {k: v for k, v in data.items() if k in FRONT_MATTER_KEYS}


def read_front_matter_document(path: Path | str, name: str | None = None) -> dict[str, Any]:
    """The whole front matter of a Hugo or Jekyll source ``path``: YAML between
    ``---`` lines, TOML between ``+++`` lines, or a JSON object opening the file
    (``{}`` when it has none). ``name``: the file as messages name it."""
    from .dataformats import load_json, load_toml, load_yaml

    label = name or str(path)
    with open(path, encoding="utf-8-sig", errors="replace") as handle:
        text = handle.read().replace("\r\n", "\n")
    match = _FENCED_FRONT_MATTER.match(text)
    if match:
        body = match.group("body") or ""
        if match.group("fence") == "+++":
            data = load_toml(body, f"{label}: front matter")
        else:
            data = load_yaml(body, f"{label}: front matter")
    elif text.lstrip().startswith("{"):
        import json

        try:
            data, _ = json.JSONDecoder().raw_decode(text.lstrip())
        except json.JSONDecodeError:
            data = load_json(text.lstrip(), f"{label}: front matter")  # raises, with its line
    else:
        return {}
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise SitemapkitError(f"{label}: front matter must be a mapping of keys")
    return data
