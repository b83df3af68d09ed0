"""The part of YAML that mkdocs.yml settings and Markdown front matter use.

The core may depend on the standard library and Jinja2 only, so it cannot load
YAML with PyYAML; it reads the few top-level keys it needs with this reader:
block mappings and sequences (also "- key: value" items and items at their
parent key's indentation), plain, single- and double-quoted scalars, flow
``[...]`` and ``{...}`` collections, ``|`` and ``>`` block scalars with their
chomping indicators, comments, and MkDocs' ``!ENV`` tag. Scalars resolve as
PyYAML (YAML 1.1) resolves them: ``true``/``yes``/``on``, ``null``/``~``, whole
numbers and decimals; dates stay text, which the core's date rule reads as
PyYAML's date would be.

Only the keys asked for are parsed (:func:`read_top_level`); whatever else a file
holds, ``!!python/name:`` tags, anchors or any YAML this reader does not know, is
skipped unread, so it never stops a build. A key asked for that uses such YAML
raises :class:`YamlSubsetError` with its line number.
"""

from __future__ import annotations

import os
import re
from typing import Any

__all__ = ["Tagged", "YamlSubsetError", "read_top_level"]


class YamlSubsetError(ValueError):
    """YAML this reader cannot read, at ``line`` (1-based)."""

    def __init__(self, line: int, message: str) -> None:
        super().__init__(f"line {line}: {message}")
        self.line = line
        self.message = message


class Tagged(str):
    """A value under a tag this reader does not act on (``!!python/name:x``, ``!relative``)."""

    tag: str

    def __new__(cls, tag: str, value: str) -> Tagged:
        self = super().__new__(cls, value)
        self.tag = tag
        return self


# A mapping key: plain (not starting with an indicator) or quoted, then ":" and a
# space or the line's end. "https://x" has no space after its ":".
_KEY = re.compile(
    r"""(?P<key>"(?:[^"\\]|\\.)*"|'(?:[^']|'')*'|[^\s#'"\[\]{},&*!|>%@`-][^#]*?|-[^\s#][^#]*?)[ \t]*:(?=[ \t]|$)"""
)
_TOP_KEY = re.compile(
    r"""(?:"(?:[^"\\]|\\.)*"|'(?:[^']|'')*'|[^\s#'"\[\]{},&*!|>%@`-][^#:]*?|-[^\s#][^#:]*?)[ \t]*:(?=[ \t]|$)"""
)
_BLOCK_HEADER = re.compile(r"(?P<style>[|>])(?P<a>[-+1-9]?)(?P<b>[-+1-9]?)[ \t]*(?:#.*)?\Z")
# YAML 1.1 as PyYAML resolves plain scalars.
_TRUE = frozenset("y Y yes Yes YES true True TRUE on On ON".split()) - {"y", "Y"}
_FALSE = frozenset("no No NO false False FALSE off Off OFF".split())
_NULL = frozenset(("", "~", "null", "Null", "NULL"))
_INT = re.compile(r"[-+]?(?:0|[1-9][0-9_]*)\Z")
_FLOAT = re.compile(r"[-+]?(?:[0-9][0-9_]*)?\.[0-9_]*(?:[eE][-+][0-9]+)?\Z")
_DOUBLE_ESCAPES = {"n": "\n", "t": "\t", "\\": "\\", '"': '"', "/": "/", "0": "\0", "r": "\r", " ": " ", "e": "\x1b"}


def read_top_level(text: str, wanted: set[str] | frozenset[str]) -> dict[str, Any]:
    """The values of the top-level keys in ``wanted`` that ``text`` sets.

    The rest of the document is not parsed. Raises :class:`YamlSubsetError` when
    a wanted key's value is YAML this reader does not support.
    """
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    if lines and lines[0].startswith("\ufeff"):
        lines[0] = lines[0][1:]
    found: dict[str, Any] = {}
    starts: list[tuple[int, str]] = []
    for number, line in enumerate(lines):
        if line[:1] in ("", " ", "\t", "#", "-") and not (line.startswith("---") or line.startswith("...")):
            continue
        if line.startswith(("---", "...")):
            if line[3:4] in ("", " ", "\t"):
                starts.append((number, ""))
            continue
        match = _TOP_KEY.match(line)
        if match:
            starts.append((number, _unquote_key(match.group().rstrip()[:-1].rstrip(), number)))
    for index, (number, key) in enumerate(starts):
        if not key or key not in wanted:
            continue
        end = starts[index + 1][0] if index + 1 < len(starts) else len(lines)
        block = lines[number:end]
        parser = _Parser(block, number)
        mapping, _ = parser.mapping(0, 0)
        # A key set twice: the last one counts, as in PyYAML.
        found.update(mapping)
    return found


def _unquote_key(key: str, number: int) -> str:
    if key[:1] == '"':
        return _double_quoted(key[1:-1], number)
    if key[:1] == "'":
        return key[1:-1].replace("''", "'")
    return key


def _double_quoted(body: str, number: int) -> str:
    out = []
    index = 0
    while index < len(body):
        char = body[index]
        if char != "\\":
            out.append(char)
            index += 1
            continue
        code = body[index + 1 : index + 2]
        if code in _DOUBLE_ESCAPES:
            out.append(_DOUBLE_ESCAPES[code])
            index += 2
        elif code in ("x", "u", "U"):
            width = {"x": 2, "u": 4, "U": 8}[code]
            digits = body[index + 2 : index + 2 + width]
            if len(digits) != width or not all(c in "0123456789abcdefABCDEF" for c in digits):
                raise YamlSubsetError(number + 1, f"bad escape \\{code}{digits} in a double-quoted string")
            out.append(chr(int(digits, 16)))
            index += 2 + width
        else:
            raise YamlSubsetError(number + 1, f"unknown escape \\{code} in a double-quoted string")
    return "".join(out)


def _strip_comment(text: str) -> str:
    """``text`` without a trailing ``# comment`` (a "#" after a space, outside quotes)."""
    if "#" not in text:
        return text.rstrip()
    quote = None
    for index, char in enumerate(text):
        if quote:
            if char == quote:
                quote = None
        elif char in "\"'" and (index == 0 or text[index - 1] in " \t[{,:"):
            quote = char
        elif char == "#" and (index == 0 or text[index - 1] in " \t"):
            return text[:index].rstrip()
    return text.rstrip()


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def _blank(line: str) -> bool:
    stripped = line.strip()
    return not stripped or stripped.startswith("#")


def resolve_plain(text: str) -> Any:
    """A plain scalar's value as PyYAML resolves it (dates stay text)."""
    if text in _NULL:
        return None
    if text in _TRUE:
        return True
    if text in _FALSE:
        return False
    if _INT.match(text):
        return int(text.replace("_", ""))
    if _FLOAT.match(text) and any(c.isdigit() for c in text):
        return float(text.replace("_", ""))
    return text


class _Parser:
    def __init__(self, lines: list[str], first_number: int) -> None:
        self.lines = list(lines)
        self.first = first_number

    def error(self, index: int, message: str) -> YamlSubsetError:
        return YamlSubsetError(self.first + index + 1, message)

    def skip(self, index: int) -> int:
        while index < len(self.lines) and _blank(self.lines[index]):
            index += 1
        return index

    def node(self, index: int, parent_indent: int, *, same_level_sequence: bool) -> tuple[Any, int]:
        """The block node starting at or after ``index``, indented deeper than the
        parent (a sequence may also sit at the parent's own indentation)."""
        index = self.skip(index)
        if index >= len(self.lines):
            return None, index
        line = self.lines[index]
        column = _indent(line)
        content = line[column:]
        is_item = content == "-" or content.startswith(("- ", "-\t"))
        if column < parent_indent or (column == parent_indent and not (is_item and same_level_sequence)):
            return None, index
        if content.startswith("\t"):
            raise self.error(index, "tabs cannot indent YAML")
        if is_item:
            return self.sequence(index, column)
        if _KEY.match(content):
            return self.mapping(index, column)
        # A scalar on lines of its own: a quoted one, or plain text folded into one line.
        text = _strip_comment(content)
        if text[:1] in "\"'" and _quote_end(text) < 0:
            text, index = self.multi_line_quoted(text, index)
            return self.inline(text, index), index + 1
        if text[:1] in "\"'[{":
            return self.inline(text, index), index + 1
        parts = [text]
        index += 1
        while index < len(self.lines) and not _blank(self.lines[index]) and _indent(self.lines[index]) >= column:
            parts.append(_strip_comment(self.lines[index].strip()))
            index += 1
        return resolve_plain(" ".join(parts)), index

    def mapping(self, index: int, column: int) -> tuple[dict[str, Any], int]:
        result: dict[str, Any] = {}
        while True:
            index = self.skip(index)
            if index >= len(self.lines):
                break
            line = self.lines[index]
            if _indent(line) != column:
                if _indent(line) > column:
                    raise self.error(index, "unexpected indentation")
                break
            content = line[column:]
            if content.startswith(("- ", "-\t")) or content == "-":
                break
            if content.startswith(("---", "...")) and column == 0:
                index += 1
                continue
            match = _KEY.match(content)
            if match is None:
                raise self.error(index, f"expected 'key: value', found {content.strip()!r}")
            key = _unquote_key(match.group("key").rstrip(), self.first + index)
            rest = content[match.end() :].strip()
            value, index = self.value(rest, index, column)
            result[key] = value
        return result, index

    def sequence(self, index: int, column: int) -> tuple[list[Any], int]:
        result: list[Any] = []
        while True:
            index = self.skip(index)
            if index >= len(self.lines):
                break
            line = self.lines[index]
            content = line[column:] if _indent(line) == column else ""
            if not (content == "-" or content.startswith(("- ", "-\t"))):
                break
            rest = content[1:]
            inner = rest.strip()
            if not inner or inner.startswith("#"):
                value, index = self.node(index + 1, column, same_level_sequence=False)
            elif (
                _KEY.match(inner)
                and not inner.startswith(("[", "{", '"', "'"))
                or (inner[:1] in "\"'" and _KEY.match(inner))
            ):
                # "- key: value": a mapping whose keys line up with this first key.
                item_column = column + 1 + (len(rest) - len(rest.lstrip(" ")))
                self.lines[index] = " " * item_column + inner
                value, index = self.mapping(index, item_column)
            elif inner.startswith(("- ", "-\t")):
                item_column = column + 1 + (len(rest) - len(rest.lstrip(" ")))
                self.lines[index] = " " * item_column + inner
                value, index = self.sequence(index, item_column)
            else:
                value, index = self.value(inner, index, column)
            result.append(value)
        return result, index

    def value(self, rest: str, index: int, column: int) -> tuple[Any, int]:
        """The value after ``key:`` (or ``-``) on line ``index``; returns it and the next line."""
        rest = _strip_comment(rest) if not rest.startswith(("|", ">")) else rest
        if not rest:
            return self.node(index + 1, column, same_level_sequence=True)
        header = _BLOCK_HEADER.match(rest)
        if header:
            return self.block_scalar(header, index, column)
        tag = None
        if rest.startswith("!"):
            tag, _, rest = rest.partition(" ")
            rest = rest.strip()
            if not rest:
                value, index = self.node(index + 1, column, same_level_sequence=True)
                return self.apply_tag(tag, value, index), index
        if rest[:1] in "&*":
            raise self.error(index, "anchors and aliases (& and *) are not supported here")
        if rest[:1] in "\"'" and _quote_end(rest) < 0:
            rest, index = self.multi_line_quoted(rest, index)
        value = self.inline(rest, index)
        if tag is not None:
            value = self.apply_tag(tag, value, index)
        return value, index + 1

    def multi_line_quoted(self, first: str, index: int) -> tuple[str, int]:
        """A quoted scalar that goes on over more lines (PyYAML writes these), folded
        into one: a line break is a space, each empty line a line break."""
        text = first.rstrip()
        pending = 0
        for number in range(index + 1, len(self.lines)):
            part = self.lines[number].strip()
            if not part:
                pending += 1
                continue
            text += ("\n" * pending if pending else " ") + part
            pending = 0
            if _quote_end(text) >= 0:
                return _strip_comment(text), number
        raise self.error(index, "a quoted string is not closed")

    def apply_tag(self, tag: str, value: Any, index: int) -> Any:
        if tag == "!ENV":
            # MkDocs' !ENV (pyyaml_env_tag): a variable's name, or a list of names
            # whose last item is the default when none of them is set.
            names = value if isinstance(value, list) else [value]
            default = names[-1] if isinstance(value, list) and len(names) > 1 else None
            candidates = names[:-1] if isinstance(value, list) and len(names) > 1 else names
            for name in candidates:
                if isinstance(name, str) and name in os.environ:
                    return resolve_plain(os.environ[name])
            return default
        if tag in ("!!str",):
            return "" if value is None else str(value)
        return Tagged(tag, "" if value is None else str(value))

    def inline(self, text: str, index: int) -> Any:
        if text[:1] in "[{":
            value, end = _Flow(text, self.error(index, "").line).parse(0)
            if text[end:].strip():
                raise self.error(index, f"unexpected text after a flow collection: {text[end:].strip()!r}")
            return value
        if text[:1] == '"':
            if len(text) < 2 or not text.endswith('"') or _unescaped_quote(text[1:-1]):
                raise self.error(index, "a double-quoted string must end on its own line")
            return _double_quoted(text[1:-1], self.first + index)
        if text[:1] == "'":
            body = text[1:-1]
            if len(text) < 2 or not text.endswith("'") or "'" in body.replace("''", ""):
                raise self.error(index, "a single-quoted string must end on its own line")
            return body.replace("''", "'")
        if text[:1] in "&*":
            raise self.error(index, "anchors and aliases (& and *) are not supported here")
        return resolve_plain(text)

    def block_scalar(self, header: re.Match[str], index: int, column: int) -> tuple[str, int]:
        indicators = header.group("a") + header.group("b")
        chomp = "-" if "-" in indicators else "+" if "+" in indicators else ""
        digits = [c for c in indicators if c.isdigit()]
        body_indent = None
        if digits:
            body_indent = column + int(digits[0])
        collected: list[str] = []
        index += 1
        while index < len(self.lines):
            line = self.lines[index]
            if not line.strip():
                collected.append("")
                index += 1
                continue
            indent = _indent(line)
            if body_indent is None:
                if indent <= column:
                    break
                body_indent = indent
            if indent < body_indent:
                break
            collected.append(line[body_indent:])
            index += 1
        # Trailing blank lines belong to the chomping, not the text.
        trailing = 0
        while collected and collected[-1] == "":
            collected.pop()
            trailing += 1
        if header.group("style") == "|":
            text = "\n".join(collected)
        else:
            text = _fold(collected)
        if chomp == "-" or not collected:
            suffix = ""
        elif chomp == "+":
            suffix = "\n" * (trailing + 1)
        else:
            suffix = "\n"
        return text + suffix, index


def _quote_end(text: str) -> int:
    """Where the quoted scalar starting ``text`` closes, or -1."""
    quote = text[0]
    at = 1
    while at < len(text):
        char = text[at]
        if quote == '"' and char == "\\":
            at += 2
            continue
        if char == quote:
            if quote == "'" and text[at + 1 : at + 2] == "'":
                at += 2
                continue
            return at
        at += 1
    return -1


def _unescaped_quote(body: str) -> bool:
    index = 0
    while index < len(body):
        if body[index] == "\\":
            index += 2
            continue
        if body[index] == '"':
            return True
        index += 1
    return False


def _fold(lines: list[str]) -> str:
    out = ""
    for position, line in enumerate(lines):
        if position == 0:
            out = line
        elif line == "" or line.startswith(" "):
            out += "\n" + line
        elif lines[position - 1] == "" or lines[position - 1].startswith(" "):
            out += line if out.endswith("\n") else "\n" + line
        else:
            out += " " + line
    return out


class _Flow:
    """``[a, b]`` and ``{a: b}``, nested, on one line."""

    def __init__(self, text: str, line: int) -> None:
        self.text = text
        self.line = line

    def error(self, message: str) -> YamlSubsetError:
        return YamlSubsetError(self.line, message)

    def space(self, at: int) -> int:
        while at < len(self.text) and self.text[at] in " \t":
            at += 1
        return at

    def parse(self, at: int) -> tuple[Any, int]:
        at = self.space(at)
        if at >= len(self.text):
            raise self.error("a flow collection ([...] or {...}) must end on its own line")
        char = self.text[at]
        if char == "[":
            items: list[Any] = []
            at = self.space(at + 1)
            while True:
                if at < len(self.text) and self.text[at] == "]":
                    return items, at + 1
                value, at = self.parse(at)
                items.append(value)
                at = self.space(at)
                if at < len(self.text) and self.text[at] == ",":
                    at = self.space(at + 1)
                elif at >= len(self.text) or self.text[at] != "]":
                    raise self.error("expected ',' or ']' in a flow sequence")
        if char == "{":
            mapping: dict[str, Any] = {}
            at = self.space(at + 1)
            while True:
                if at < len(self.text) and self.text[at] == "}":
                    return mapping, at + 1
                key, at = self.parse(at)
                at = self.space(at)
                value = None
                if at < len(self.text) and self.text[at] == ":":
                    value, at = self.parse(at + 1)
                    at = self.space(at)
                mapping[str(key)] = value
                if at < len(self.text) and self.text[at] == ",":
                    at = self.space(at + 1)
                elif at >= len(self.text) or self.text[at] != "}":
                    raise self.error("expected ',' or '}' in a flow mapping")
        if char in "\"'":
            end = at + 1
            while True:
                end = self.text.find(char, end)
                if end < 0:
                    raise self.error("a quoted string must end on its own line")
                if char == "'" and self.text[end + 1 : end + 2] == "'":
                    end += 2
                    continue
                if char == '"' and _backslashes_before(self.text, end) % 2:
                    end += 1
                    continue
                break
            body = self.text[at + 1 : end]
            value = body.replace("''", "'") if char == "'" else _double_quoted(body, self.line - 1)
            return value, end + 1
        if char in "&*!":
            raise self.error("tags, anchors and aliases are not supported in flow collections here")
        end = at
        while end < len(self.text):
            c = self.text[end]
            if c in ",]}":
                break
            if c == ":" and (end + 1 == len(self.text) or self.text[end + 1] in " \t,]}"):
                break
            if c == "#" and self.text[end - 1] in " \t":
                break
            end += 1
        return resolve_plain(self.text[at:end].strip()), end


def _backslashes_before(text: str, at: int) -> int:
    count = 0
    while at - 1 - count >= 0 and text[at - 1 - count] == "\\":
        count += 1
    return count
