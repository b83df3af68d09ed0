"""YAML read with PyYAML, for what ``sitemapkit build --config`` reads: a project's
``mkdocs.yml`` (with MkDocs' own tags added in :mod:`..config.mkdocsyaml`) and the
front matter of its Markdown sources.

One loader class, :class:`YamlLoader`: PyYAML's safe loader (YAML 1.1 scalars,
anchors, aliases, merge keys, flow collections across lines), and

* ``!ENV`` as MkDocs reads it (its pyyaml-env-tag): ``!ENV NAME`` or
  ``!ENV [NAME, OTHER, default]``; the first variable that is set gives the
  value, typed as the same text written plainly would be (``true``, ``42``);
  none set gives the last item as written (``default``), or null without one;
* every ``!!python/...`` tag (``!!python/name:material.extensions.emoji.twemoji``)
  read as a :class:`PythonTag`, its tag and value: nothing is imported. MkDocs'
  loader imports the object named, which only the generator needs.

PyYAML is an optional library (the ``config`` extra, with pathspec): this module
is imported only on the path that reads a project, and without PyYAML importing
it stops with one line saying what to install.
"""

from __future__ import annotations

import dataclasses
import os
from typing import Any

from .extras import missing_config_library

__all__ = ["PythonTag", "TaggedValue", "YamlLoader", "YamlProblem", "read_yaml"]


try:
    import yaml
except ImportError:
    raise missing_config_library("PyYAML") from None

# libyaml's parser where PyYAML was built with it (as MkDocs reads front matter):
# the same documents, the same values, faster.
_SafeLoader: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class TaggedValue:
    """A value under a tag that stands for something only the generator makes (an
    imported object, a path resolved while it renders): kept as written."""


@dataclasses.dataclass(frozen=True)
class PythonTag(TaggedValue):
    """A value under a ``!!python/...`` tag, kept as written and never imported."""

    #: The tag after ``!!python/``: ``name:material.extensions.emoji.twemoji``.
    tag: str
    value: Any

    def __repr__(self) -> str:
        return f"!!python/{self.tag}" + (f" {self.value!r}" if self.value not in ("", None) else "")


class YamlProblem(ValueError):
    """YAML PyYAML cannot read, at ``line`` (1-based, None when PyYAML gives none)."""

    def __init__(self, line: int | None, message: str) -> None:
        super().__init__(f"line {line}: {message}" if line else message)
        self.line = line
        self.message = message


class YamlLoader(_SafeLoader):
    """PyYAML's safe loader with MkDocs' ``!ENV`` and inert ``!!python/`` tags."""


def _construct_env(loader: Any, node: Any) -> Any:
    default = None
    if isinstance(node, yaml.ScalarNode):
        names = [loader.construct_scalar(node)]
    elif isinstance(node, yaml.SequenceNode):
        items = node.value
        if len(items) > 1:
            # The default keeps its YAML type; the names are text.
            default = loader.construct_object(items[-1])
            items = items[:-1]
        names = [loader.construct_scalar(item) for item in items]
    else:
        raise yaml.constructor.ConstructorError(
            None, None, f"expected a scalar or sequence node, but found {node.id}", node.start_mark
        )
    for name in names:
        if name in os.environ:
            value = os.environ[name]
            # Typed as the same text written plainly would be.
            tag = loader.resolve(yaml.ScalarNode, value, (True, False))
            return loader.construct_object(yaml.ScalarNode(tag, value))
    return default


def _construct_python(loader: Any, suffix: str, node: Any) -> PythonTag:
    if isinstance(node, yaml.SequenceNode):
        value: Any = loader.construct_sequence(node, deep=True)
    elif isinstance(node, yaml.MappingNode):
        value = loader.construct_mapping(node, deep=True)
    else:
        value = loader.construct_scalar(node)
    return PythonTag(suffix, value)


YamlLoader.add_constructor("!ENV", _construct_env)
YamlLoader.add_multi_constructor("tag:yaml.org,2002:python/", _construct_python)


def read_yaml(text: str, loader: type[Any] = YamlLoader) -> Any:
    """The value of the YAML document ``text``, read with ``loader``.

    Raises :class:`YamlProblem` with PyYAML's own words and the line.
    """
    try:
        return yaml.load(text, Loader=loader)
    except yaml.MarkedYAMLError as error:
        mark = error.problem_mark or error.context_mark
        problem = error.problem or error.context or "is not YAML"
        if error.context and error.problem:
            problem = f"{problem} ({error.context})"
        raise YamlProblem(mark.line + 1 if mark else None, problem) from None
    except yaml.YAMLError as error:
        raise YamlProblem(None, str(error).split("\n", 1)[0]) from None
    except ValueError as error:
        # A value the resolver took for a date that is none (2024-13-01).
        raise YamlProblem(None, str(error)) from None
