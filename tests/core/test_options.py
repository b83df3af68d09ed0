"""One option list: the options are declared once, on sitemapkit.Options, and the
command line's flags, their --help and the README's table follow that declaration.

The adapters' parity tests are in tests/mkdocs, tests/pelican and tests/sphinx.
"""

from __future__ import annotations

import argparse
import dataclasses
import re
from pathlib import Path

import pytest

import sitemapkit
from conftest import run_sitemapkit as sitemapkit_cli
from sitemapkit import ConfigError, Options
from sitemapkit.commands.cli import parser

ROOT = Path(__file__).resolve().parents[2]
BASE = "https://example.org/"
SPECS = {spec.name: spec for spec in Options.specs()}
# What generate (a URL list, no built pages) takes, read off the declaration, not
# off the command line's own list: the two cannot disagree unnoticed.
GENERATE = tuple(name for name, spec in SPECS.items() if not spec.built_pages_only)
# A value of each kind that the option's declaration allows, and one it refuses.
GOOD = {bool: True, int: 2_000, float: 0.5, str: "x", tuple: ("drafts/*",)}
WRONG = {bool: "yes", int: "many", float: "high", str: 5, tuple: "drafts/*"}


def flag(name: str) -> str:
    return "--" + name.replace("_", "-")


def test_every_field_but_base_url_is_a_declared_option_with_help() -> None:
    assert list(SPECS) == [f.name for f in dataclasses.fields(Options) if f.name != "base_url"]
    for spec in SPECS.values():
        assert spec.help and spec.help == spec.help.strip(), spec.name
        assert spec.kind in (bool, int, float, str, tuple), spec.name
        assert spec.default == getattr(Options(base_url=BASE), spec.name), spec.name
        spec.check(spec.default)


def test_choices_and_bounds_are_the_protocol_constants() -> None:
    assert SPECS["changefreq"].choices == sitemapkit.CHANGEFREQ_VALUES
    assert SPECS["format"].choices == ("xml", "txt")
    assert SPECS["lastmod"].choices == ("auto", "git", "mtime", "none")
    assert SPECS["max_urls"].bounds == (1, sitemapkit.MAX_URLS_PER_SITEMAP)
    assert SPECS["max_bytes"].bounds == (1_024, sitemapkit.MAX_BYTES_CEILING)
    assert SPECS["max_sitemaps"].bounds == (1, sitemapkit.MAX_SITEMAPS_PER_INDEX)
    assert SPECS["priority"].bounds == (0.0, 1.0)
    assert {name for name, spec in SPECS.items() if spec.optional} == {
        "changefreq",
        "priority",
        "robots_txt",
        "stylesheet_template",
        "x_default",
        "report_file",
        "indexnow_key",
    }


@pytest.mark.parametrize("name", sorted(SPECS))
def test_options_checks_each_value_as_declared(name: str) -> None:
    spec = SPECS[name]
    with pytest.raises(ConfigError) as caught:
        Options(base_url=BASE, **{name: WRONG[spec.kind]})
    assert caught.value.option == name
    assert spec.allowed() in caught.value.problem or "is not one of" in caught.value.problem
    if spec.bounds is not None:
        low, high = spec.bounds
        for outside in (low - 1, high + 1):
            with pytest.raises(ConfigError, match=re.escape(spec.allowed())):
                Options(base_url=BASE, **{name: spec.kind(outside)})


@pytest.mark.parametrize(
    ("written", "message"),
    [
        ("maxbytes", "maxbytes: is not a sitemapkit option; did you mean 'max_bytes'?"),
        ("max-urls", "max-urls: is not a sitemapkit option; did you mean 'max_urls'?"),
        ("Stylesheet_Templates", "did you mean 'stylesheet_template'?"),
        ("frobnicate", "frobnicate: is not a sitemapkit option (known: 'changefreq', "),
    ],
)
def test_unknown_names_suggest_the_closest_option(written: str, message: str) -> None:
    with pytest.raises(ConfigError, match=re.escape(message)):
        Options.from_mapping({written: 1}, base_url=BASE)


def test_unknown_option_spells_names_as_the_tool_does() -> None:
    error = sitemapkit.unknown_option("maxbytes", spelled=lambda name: f"sitemapkit_{name}")
    assert error.for_setting("sitemapkit_maxbytes") == (
        "sitemapkit_maxbytes: is not a sitemapkit option; did you mean sitemapkit_max_bytes?"
    )
    assert sitemapkit.unknown_option("pelican_kind", extra=["pelican_kinds"]).problem.endswith("'pelican_kinds'?")
    assert sitemapkit.unknown_option("base_url", base_url_from="SITEURL").problem == (
        "the base URL comes from SITEURL; set that instead"
    )


# The command line.


def _option_actions(command: str) -> dict[str, argparse.Action]:
    sub = parser().parse_args([command, *_required(command)]).parser
    return {action.dest: action for action in sub._actions if action.dest in SPECS}


def _required(command: str) -> list[str]:
    if command == "build":
        return ["site", "--base-url", BASE]
    return ["--input", "-", "--out", "o", "--base-url", BASE]


@pytest.mark.parametrize(("command", "names"), [("build", tuple(SPECS)), ("generate", GENERATE)])
def test_cli_flags_are_the_declared_options(command: str, names: tuple[str, ...]) -> None:
    actions = _option_actions(command)
    assert set(actions) == set(names)
    assert set(names) <= set(SPECS)
    for name, action in actions.items():
        spec = SPECS[name]
        assert action.option_strings[0] == flag(name)
        if spec.kind is bool:
            assert isinstance(action, argparse.BooleanOptionalAction)
            assert action.option_strings == [flag(name), "--no-" + flag(name)[2:]]
        elif spec.kind is tuple:
            assert isinstance(action, argparse._AppendAction)
        else:
            assert action.type is spec.kind
        # Unset on the command line: the declared default applies.
        assert action.default is None


def test_the_commands_a_run_picks_its_parser_by_are_the_parser_s_commands() -> None:
    from sitemapkit.commands import cli

    (sub,) = (action for action in cli.parser()._actions if isinstance(action, argparse._SubParsersAction))
    assert tuple(sub.choices) == cli._COMMANDS


@pytest.mark.parametrize("command", ["build", "generate", "check", "changes", "indexnow", "versions"])
def test_a_run_builds_its_own_command_s_parser_as_the_whole_one_has_it(command: str) -> None:
    """A run builds only its command's parser (main's parser(argv[0])): the same
    arguments, flags, defaults and help as in the parser that has them all."""
    from sitemapkit.commands import cli

    def described(top: argparse.ArgumentParser) -> list:
        (sub,) = (action for action in top._actions if isinstance(action, argparse._SubParsersAction))
        own = sub.choices[command]
        return [(a.option_strings, a.dest, a.default, a.required, a.help, a.metavar, a.nargs) for a in own._actions] + [
            own.format_help()
        ]

    whole = cli.parser()
    alone = cli.parser(command)
    assert described(alone) == described(whole)
    (sub,) = (action for action in alone._actions if isinstance(action, argparse._SubParsersAction))
    assert list(sub.choices) == [command]


def test_cli_options_default_to_the_declared_defaults() -> None:
    from sitemapkit.commands.cli import _BUILD_OPTIONS, _options

    args = parser().parse_args(["build", *_required("build")])
    assert _options(args, _BUILD_OPTIONS) == Options(base_url=BASE)


def _squash(text: str) -> str:
    return " ".join(text.split())


@pytest.mark.parametrize("command", ["build", "generate"])
def test_help_lists_each_option_its_allowed_values_and_default(command: str) -> None:
    result = sitemapkit_cli(command, "--help")
    assert result.returncode == 0
    # argparse wraps help text at any space (and at a hyphen).
    text = _squash(result.stdout)
    names = tuple(SPECS) if command == "build" else GENERATE
    for name in names:
        spec = SPECS[name]
        header = f"{flag(name)}, --no-{flag(name)[2:]} " if spec.kind is bool else flag(name) + " "
        start = text.index(header, text.index("options (the same"))
        end = text.find(" --", start + len(header))
        entry = text[start : end if end != -1 else None]
        assert _squash(spec.help) in entry.replace("- ", "-"), name
        if spec.choices:
            assert "{" + ",".join(spec.choices) + "}" in entry, name
        elif spec.kind not in (bool, tuple):
            assert spec.allowed() in entry.replace("- ", "-"), name
        assert f"(default: {spec.default_text()})" in entry, name
    for name in set(SPECS) - set(names):
        assert flag(name) + " " not in text, name


@pytest.mark.parametrize(
    ("args", "line"),
    [
        (
            ["build", "site", "--base-url", BASE, "--max-byte", "5"],
            "sitemapkit build: error: --max-byte is not an option of sitemapkit build; did you mean --max-bytes?",
        ),
        # Flags are never abbreviated: each is an option's whole name.
        (
            ["build", "site", "--base-url", BASE, "--style"],
            "sitemapkit build: error: --style is not an option of sitemapkit build; did you mean --stylesheet?",
        ),
        (
            ["generate", "--input", "-", "--out", "o", "--base-url", BASE, "--inptu=x"],
            "sitemapkit generate: error: --inptu is not an option of sitemapkit generate; did you mean --input?",
        ),
        (
            ["build", "site", "--base-url", BASE, "--max-urls", "many"],
            "sitemapkit build: error: argument --max-urls: invalid int value: 'many'",
        ),
        (["build", "site", "more", "--base-url", BASE], "sitemapkit build: error: unrecognized arguments: more"),
    ],
)
def test_a_bad_flag_is_one_line_with_a_suggestion(args: list[str], line: str) -> None:
    result = sitemapkit_cli(*args)
    assert result.returncode == 2
    assert result.stdout == ""
    assert result.stderr.count("\n") == 1 and result.stderr.startswith(line + " "), result.stderr


@pytest.mark.parametrize("name", sorted(set(SPECS) - set(GENERATE)))
def test_generate_refuses_the_options_it_does_not_honour(name: str, tmp_path: Path) -> None:
    value = [] if SPECS[name].kind is bool else ["x"]
    result = sitemapkit_cli(
        "generate", "--input", "-", "--out", str(tmp_path / "o"), "--base-url", BASE, flag(name), *value
    )
    assert result.returncode == 2
    assert result.stderr.count("\n") == 1, result.stderr
    assert result.stderr.startswith(
        f"sitemapkit generate: error: {flag(name)} is an option sitemapkit generate does not honour; "
        "sitemapkit build takes it"
    ), result.stderr
    assert not (tmp_path / "o").exists()


# The README.


def _readme_options() -> dict[str, str]:
    """Option name -> the Default column of the README's Options table."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    table = text.split("### Options", 1)[1].split("\n\n|", 1)[1].split("\n\n", 1)[0]
    rows = {}
    for row in table.splitlines()[2:]:
        names, default = row.split("|")[1:3]
        for name in re.findall(r"`([a-z_]+)`", names):
            rows[name] = default.strip().strip("`")
    return rows


def test_the_options_generate_refuses_are_the_built_pages_ones_the_readme_names() -> None:
    """The README's sentence on what generate refuses names every option the
    declaration marks as about built pages, and no other (``--check-*`` for all
    the check_ ones)."""
    text = " ".join((ROOT / "README.md").read_text(encoding="utf-8").split())
    sentence = text.split("the options that only concern built pages (", 1)[1].split(")", 1)[0]
    named = set(re.findall(r"`(--[a-z-]+\*?)`", sentence))
    expected = {flag(name) for name in SPECS if name not in GENERATE and not name.startswith("check_")}
    assert named == expected | {"--check-*"}
    assert {name for name in SPECS if name.startswith("check_")} <= set(SPECS) - set(GENERATE)


def test_readme_table_lists_exactly_the_declared_options_and_defaults() -> None:
    rows = _readme_options()
    assert sorted(rows) == sorted(SPECS)
    assert {name: rows[name] for name in SPECS} == {name: spec.default_text() for name, spec in SPECS.items()}
