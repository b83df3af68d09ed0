"""The ``sitemapkit`` command line: build, generate, check.

``build`` is the generic adapter for any static output folder (Hugo, Jekyll,
hand-written HTML); ``generate`` streams a URL list, for very large sites;
``check`` reads any generator's sitemaps. Bad input is one line on stderr and a
non-zero exit, never a traceback.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import NoReturn

from ..protocol.version import __version__
from ..publish import publication as publish
from ..protocol.errors import ConfigError, SitemapkitError
from ..protocol.model import Options, closest_option


def _flag(option: str) -> str:
    return "--" + option.replace("_", "-")


# Which options each command honours, by their Options names; everything about a
# flag (its type, help, allowed values and default) comes from the declaration,
# Options.specs(). A flag of an option the command does not honour is refused.
_BUILD_OPTIONS = tuple(spec.name for spec in Options.specs())
_GENERATE_OPTIONS = (
    "filename",
    "format",
    "gzip",
    "max_urls",
    "max_bytes",
    "max_sitemaps",
    "changefreq",
    "priority",
    "schema_location",
    "stylesheet",
    "stylesheet_template",
    "gzip_copy",
    "robots_txt",
    "report_file",
    "verbose",
)
_COMMAND_OPTIONS = {"build": _BUILD_OPTIONS, "generate": _GENERATE_OPTIONS}


def _add_option_flags(
    parser: argparse.ArgumentParser, names: tuple[str, ...], *, base_url_required: bool = True
) -> None:
    """One flag per option, named as the option (``max_bytes`` -> ``--max-bytes``),
    so the command line and the adapters share one vocabulary."""
    parser.add_argument(
        "--base-url",
        required=base_url_required,
        help="absolute http(s) URL the folder is published at"
        + ("" if base_url_required else " (default with --config: its site_url)"),
    )
    group = parser.add_argument_group("options (the same names in mkdocs.yml, SITEMAPKIT and sitemapkit_* in conf.py)")
    specs = {spec.name: spec for spec in Options.specs()}
    for name in names:
        spec = specs[name]
        # argparse formats help with %: a literal one is written %%.
        text = spec.help.replace("%", "%%")
        if spec.kind is tuple:
            text += "; repeatable"
        elif spec.kind is not bool and not spec.choices:
            text += f"; {spec.allowed()}"
        text += f" (default: {spec.default_text()})"
        if spec.kind is bool:
            group.add_argument(_flag(name), dest=name, action=argparse.BooleanOptionalAction, default=None, help=text)
        elif spec.kind is tuple:
            group.add_argument(_flag(name), dest=name, action="append", metavar="PATTERN", help=text)
        else:
            metavar = "{" + ",".join(spec.choices) + "}" if spec.choices else {int: "N", float: "NUMBER"}.get(spec.kind)
            group.add_argument(_flag(name), dest=name, type=spec.kind, metavar=metavar, help=text)


class _Parser(argparse.ArgumentParser):
    """Errors in one line, as every other sitemapkit error (``--help`` shows the
    usage). Flags are never abbreviated: each is the option's own name, in every
    command, and an abbreviation that works today would break when an option is added."""

    def __init__(self, *args, **kwargs) -> None:
        kwargs.setdefault("allow_abbrev", False)
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def _unknown_arguments(command: str, parser: argparse.ArgumentParser, extra: list[str]) -> str:
    """One line for what a command does not take: an option another command
    honours, a mistyped flag (with the closest one), or a stray argument."""
    first = next((arg for arg in extra if arg.startswith("--")), None)
    if first is None:
        return f"unrecognized arguments: {' '.join(extra)}"
    flag = first.split("=", 1)[0]
    name = flag[2:].replace("-", "_")
    declared = {spec.name: spec for spec in Options.specs()}
    if name.startswith("no_") and name[3:] in declared and declared[name[3:]].kind is bool:
        name = name[3:]
    if name in declared:
        others = [other for other, names in _COMMAND_OPTIONS.items() if name in names and other != command]
        where = f"; sitemapkit {' and '.join(others)} takes it" if others else ""
        return f"{flag} is an option sitemapkit {command} does not honour{where}"
    taken = [option[2:] for action in parser._actions for option in action.option_strings if option.startswith("--")]
    guess = closest_option(name, [option.replace("-", "_") for option in taken])
    return f"{flag} is not an option of sitemapkit {command}" + (f"; did you mean {_flag(guess)}?" if guess else "")


def _flag_values(args: argparse.Namespace, names: tuple[str, ...]) -> dict:
    values = {name: getattr(args, name) for name in names if getattr(args, name, None) is not None}
    if "exclude" in values:
        values["exclude"] = tuple(values["exclude"])
    return values


def _options(args: argparse.Namespace, names: tuple[str, ...]) -> Options:
    return Options(base_url=args.base_url, **_flag_values(args, names))


# Each command imports what only it needs, so `generate` on a huge list starts
# quickly.


def _project_module(config_file: str):
    """The module of ``config`` that reads ``--config FILE`` (by its name): Hugo's
    configuration files and folders, Jekyll's ``_config.yml``, else a MkDocs-shaped
    project's."""
    from ..config import hugo, jekyll

    if hugo.is_hugo_config(Path(config_file)):
        return hugo
    if jekyll.is_jekyll_config(Path(config_file)):
        return jekyll
    from ..config import mkdocs

    return mkdocs


def cmd_build(args: argparse.Namespace) -> int:
    if args.config:
        return _build_project(args)
    if not args.site_dir or not args.base_url:
        raise SitemapkitError(
            "give SITE_DIR and --base-url, or --config with the project's configuration "
            "(mkdocs.yml, zensical.toml, hugo.toml, config/, _config.yml)"
        )
    options = _options(args, _BUILD_OPTIONS)
    site_dir = Path(args.site_dir)
    if not site_dir.is_dir():
        raise SitemapkitError(f"{str(args.site_dir)!r} is not a folder")
    # A plain folder's pages (or those --source finds no source for) are dated
    # by their heads before their file times.
    from ..site.htmlcheck import HEAD_DATE_ADVICE as page_dates

    if args.source:
        from ..engine.pages import build_site
        from ..site.folder import find_pages
        from ..site.sources import with_mirrored_sources

        pages = sorted(with_mirrored_sources(find_pages(site_dir), site_dir, Path(args.source)), key=lambda p: p.loc)
        report = build_site(pages, options, site_dir, page_dates=page_dates)
    else:
        # The folder's own pages: found, checked and dated on every core.
        from ..engine.folderbuild import build_folder

        # The built files' times are the build's; the sources' history is not.
        page_dates = f"name the sources with --source DIR to date pages by their git history, {page_dates}"
        report = build_folder(site_dir, options, page_dates=page_dates)
    _print_report(report, options)
    return 0


def _build_project(args: argparse.Namespace) -> int:
    """``build --config FILE``: the project's own settings, its pages mapped to
    their sources, for each site it publishes (Hugo's multihost languages are one
    site each, in a folder of their own)."""
    if args.source:
        raise SitemapkitError("--source is for folders built from mirrored sources; --config reads its own sources")
    from ..engine.pages import build_site
    from ..site.folder import find_pages
    from ..site.frontmatter import FRONT_MATTER_DATE_ADVICE

    project = _project_module(args.config)
    config = project.read_project_config(args.config)
    for line in config.unread:
        print(f"sitemapkit: warning: {line}", file=sys.stderr)
    for site, folder in project.sites(config):
        options = project.options_for(site, args.base_url, _flag_values(args, _BUILD_OPTIONS))
        site_dir = Path(args.site_dir) / folder if args.site_dir else site.site_dir
        if not site_dir.is_dir():
            raise SitemapkitError(f"{str(args.site_dir or site_dir)!r} is not a folder (build the site first)")
        pages = sorted(project.project_pages(site, find_pages(site_dir), site_dir), key=lambda p: p.loc)
        report = build_site(pages, options, site_dir, page_dates=FRONT_MATTER_DATE_ADVICE)
        if report.urls:
            written = list(report.files)
            companion = options.xml_companion() if project.BROWSER_READS_SITEMAP_XML else None
            if companion is not None:
                # MkDocs-shaped sites (Material, Zensical) read sitemap.xml in the
                # browser: instant navigation and the version selector. A text sitemap
                # leaves them a current sitemap.xml urlset, never the generator's.
                written += build_site(pages, companion, site_dir).files
                print("sitemapkit: also wrote sitemap.xml, which Material's and Zensical's instant navigation read")
            # Under another name than the generator's own, ours would leave its
            # sitemap.xml (and .gz) published, stale from this build on.
            publish.remove_files(site_dir, [name for name in project.GENERATOR_SITEMAPS if name not in written])
            for below in project.generator_sitemap_folders(site):
                # Hugo's per-language sitemaps, which the one written here replaces.
                publish.remove_files(site_dir / below, project.GENERATOR_SITEMAPS)
        _print_report(report, options, folder)
    return 0


def _print_report(report, options: Options, folder: str = "") -> None:
    for notice in report.notices:
        print(f"sitemapkit: warning: {notice.message}", file=sys.stderr)
    text = report.details().rstrip("\n") if options.verbose else report.summary()
    if folder:
        text = text.replace("sitemapkit: ", f"sitemapkit: {folder}/: ", 1)
    print(text)


def cmd_generate(args: argparse.Namespace) -> int:
    from ..engine.urllist import generate

    options = _options(args, _GENERATE_OPTIONS)
    out = Path(args.out)
    started = time.perf_counter()
    # The input is opened first: a missing list creates nothing, not even DIR.
    with sys.stdin.buffer if args.input == "-" else open(args.input, "rb") as source:
        out.mkdir(parents=True, exist_ok=True)
        report = generate(source, options, out)
    for notice in report.notices:
        print(f"sitemapkit: warning: {notice.message}", file=sys.stderr)
    if options.verbose:
        print(report.details().rstrip("\n"))
    else:
        dropped = f"; dropped {len(report.excluded):,}" if report.excluded else ""
        plural = "s" if len(report.files) != 1 else ""
        advice = "".join(f"; {line}" for line in report.advice)
        print(
            f"sitemapkit: {report.urls:,} URLs in {len(report.files)} file{plural} in {out} "
            f"({time.perf_counter() - started:.1f}s){dropped}{advice}"
        )
    return 0


def cmd_check(args: argparse.Namespace) -> int:
    from ..audit.check import check_site

    Options(base_url=args.base_url)  # the same check of the base URL as every command
    result = check_site(args.site_dir, args.base_url, entry=args.filename)
    for problem in result.problems:
        print(problem)
    print(result.summary())
    if args.report_file:
        Path(args.report_file).write_text("".join(f"{p}\n" for p in result.problems) + result.summary() + "\n")
    return 1 if result.problems else 0


def parser() -> argparse.ArgumentParser:
    top = _Parser(prog="sitemapkit", description="Correct, deterministic sitemaps for static sites.")
    top.add_argument("--version", action="version", version=f"sitemapkit {__version__}")
    sub = top.add_subparsers(dest="command", required=True, metavar="{build,generate,check}")

    build = sub.add_parser(
        "build",
        help="write sitemaps for a built static site folder",
        description="Find the HTML pages of SITE_DIR (index.html is its folder's URL, 404.html "
        "in any folder is left out), date them (front matter, git dates of their sources, the dates their "
        "heads declare, file times), write sitemaps, index and robots.txt.",
    )
    build.add_argument(
        "site_dir", metavar="SITE_DIR", nargs="?", help="the built site (default with --config: its site_dir)"
    )
    build.add_argument(
        "--config",
        metavar="FILE",
        help="mkdocs.yml or zensical.toml of a MkDocs-shaped project (Zensical, ProperDocs, MkDocs: site_url, "
        "docs_dir, site_dir, use_directory_urls, exclude_docs, draft_docs and the sitemapkit plugin's "
        "options); Hugo's hugo.toml, hugo.yaml, hugo.json, config.toml or config/ (baseURL, publishDir, "
        "contentDir, languages, uglyURLs, the [frontmatter] dates); or Jekyll's _config.yml (url, baseurl, "
        "source, destination, collections, defaults, exclude). Read after the site is built; each page "
        "is dated by its source",
    )
    build.add_argument(
        "--source",
        metavar="DIR",
        help="the sources of a generator whose output mirrors them (Hugo's content/): "
        "posts/a/index.html and posts/a.html take the date of posts/a.md, posts/a/index.md, "
        "posts/a/_index.md (.markdown, .html); other pages keep the other rules",
    )
    _add_option_flags(build, _BUILD_OPTIONS, base_url_required=False)
    build.set_defaults(run=cmd_build, parser=build)

    gen = sub.add_parser(
        "generate",
        help="write sitemaps from a URL<TAB>LASTMOD list",
        description="Stream URLS.tsv (one URL a line, optionally a tab and a W3C date) into "
        "sitemaps and an index in DIR. The input should be sorted by URL.",
    )
    gen.add_argument("--input", required=True, metavar="URLS.tsv", help="the list ('-' for standard input)")
    gen.add_argument("--out", required=True, metavar="DIR", help="folder to write into (created if missing)")
    # Only the flags of the options generate honours: any other is refused in one
    # line that says build takes it (see _unknown_arguments), and --help lists these.
    _add_option_flags(gen, _GENERATE_OPTIONS)
    gen.set_defaults(run=cmd_generate, parser=gen)

    check = sub.add_parser(
        "check",
        help="check a site's existing sitemaps",
        description="Check the sitemaps of SITE_DIR (any generator's): well-formed XML, "
        "structure, limits, escaping, scope, that each URL has a file, robots.txt lines.",
    )
    check.add_argument("site_dir", metavar="SITE_DIR")
    check.add_argument("--base-url", required=True)
    check.add_argument("--filename", default="sitemap.xml", help="entry point name (default sitemap.xml)")
    check.add_argument("--report-file", help="also write the problems to this file")
    check.set_defaults(run=cmd_check, parser=check)
    return top


def main(argv: list[str] | None = None) -> int:
    args, extra = parser().parse_known_args(argv)
    if extra:
        args.parser.error(_unknown_arguments(args.command, args.parser, extra))
    try:
        return args.run(args)
    except ConfigError as error:
        print(f"sitemapkit: error: {error.for_setting(_flag(error.option))}", file=sys.stderr)
    except SitemapkitError as error:
        print(f"sitemapkit: error: {error}", file=sys.stderr)
    except OSError as error:
        print(f"sitemapkit: error: {error.strerror or error}: {error.filename or ''}".rstrip(": "), file=sys.stderr)
    except UnicodeDecodeError as error:
        print(f"sitemapkit: error: input is not UTF-8 text ({error.reason})", file=sys.stderr)
    except KeyboardInterrupt:
        print("sitemapkit: interrupted", file=sys.stderr)
        return 130
    return 2
