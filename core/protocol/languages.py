"""Language tags (hreflang, x_default, Sphinx's language list): one rule.

hreflang takes a BCP 47 tag (RFC 5646); Google's documentation adds ``x-default``.
The check here is BCP 47 well-formedness (section 2.1's ABNF), as a validator
would apply it, not a registry look-up: language, extlangs, script, region,
variants, extensions and a private-use part (``en-x-test``), or a private-use tag
alone. ``_`` is read as ``-`` because tools write ``pt_BR``.

:data:`LANGUAGE_TAG` is written in the subset of regular expressions that Python
and XML Schema share (plain groups, classes, counts; anchored by ``fullmatch``
and by XSD itself), so the tests' schema for ``xhtml:link`` uses it as it is.
"""

from __future__ import annotations

from .patterns import deferred

_ALNUM = "[A-Za-z0-9]"
_LANGUAGE = "([A-Za-z]{2,3}(-[A-Za-z]{3}){0,3}|[A-Za-z]{4,8})"
_SCRIPT = "(-[A-Za-z]{4})?"
_REGION = "(-([A-Za-z]{2}|[0-9]{3}))?"
_VARIANTS = f"(-({_ALNUM}{{5,8}}|[0-9]{_ALNUM}{{3}}))*"
# A singleton is any letter or digit but x, which opens the private-use part.
_EXTENSIONS = f"(-[0-9A-WYZa-wyz](-{_ALNUM}{{2,8}})+)*"
_PRIVATE_USE = f"[Xx](-{_ALNUM}{{1,8}})+"

#: A well-formed BCP 47 language tag.
LANGUAGE_TAG = f"{_LANGUAGE}{_SCRIPT}{_REGION}{_VARIANTS}{_EXTENSIONS}(-{_PRIVATE_USE})?|{_PRIVATE_USE}"
#: hreflang's own value for the version shown to every other language.
X_DEFAULT = "x-default"

_TAG = deferred(LANGUAGE_TAG)


def language_tag(code: object) -> str | None:
    """``code`` as hreflang wants it (``pt_BR`` -> ``pt-BR``), or None when it is
    no well-formed language tag."""
    if not isinstance(code, str):
        return None
    tag = code.strip().replace("_", "-")
    return tag if _TAG.fullmatch(tag) else None


def hreflang_value(code: object) -> str | None:
    """``code`` as an hreflang attribute holds it: :data:`X_DEFAULT` however it is
    spelled (``X-Default``, `` x_default ``, read as :func:`language_tag` reads a
    tag), else its language tag; None when it is neither. The one test of
    ``x-default``: for the alternates adapters give, those page heads declare, and
    those the encoder writes."""
    if isinstance(code, str) and code.strip().replace("_", "-").lower() == X_DEFAULT:
        return X_DEFAULT
    return language_tag(code)
