"""The ``sitemapkit`` command line: build, generate, check, changes, indexnow, versions.

``build`` is the generic adapter for any static output folder (Hugo, Jekyll,
hand-written HTML); ``generate`` streams a URL list, for very large sites;
``check`` reads any generator's sitemaps; ``changes`` lists what a deploy
changes and ``indexnow`` submits it; ``versions`` writes the root sitemap of a
versioned documentation site. Bad input is one line on stderr and a
non-zero exit, never a traceback.
"""

from __future__ import annotations

import argparse
import os
import select
import sys
import time
from pathlib import Path
from typing import Any, NoReturn

from ..protocol.version import __version__
from ..publish import publication as publish
from ..protocol.errors import ConfigError, SitemapkitError
from ..protocol.hostsettings import COMMAND_LINE_SETTINGS
from ..protocol.model import Options, Report, closest_option


# An option's flag: the name every error about the option gives it too.
_flag = COMMAND_LINE_SETTINGS.spelled


# Which options each command honours, by their Options names; everything about a
# flag (its type, help, allowed values and default) comes from the declaration,
# Options.specs(), and so does this: generate reads a URL list, so it takes no
# option that concerns only built pages (OptionSpec.built_pages_only). A flag of
# an option the command does not honour is refused.
_BUILD_OPTIONS = tuple(spec.name for spec in Options.specs())
_GENERATE_OPTIONS = tuple(spec.name for spec in Options.specs() if not spec.built_pages_only)
# The root files of a versioned site: the versions' pages are not read for a build.
_VERSIONS_OPTIONS = ("gzip_copy", "robots_txt", "schema_location", "stylesheet", "verbose")
_COMMAND_OPTIONS = {"build": _BUILD_OPTIONS, "generate": _GENERATE_OPTIONS, "versions": _VERSIONS_OPTIONS}
_COMMANDS = ("build", "generate", "check", "changes", "indexnow", "versions")


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
    """The module of ``config`` that reads ``--config FILE``: by its name (Hugo's
    configuration files and folders, Jekyll's ``_config.yml``, ``mkdocs.yml``,
    ``zensical.toml``), else by what it holds (:func:`_generator_of_settings`),
    else a MkDocs-shaped project's. Several files joined by commas are Hugo's or
    Jekyll's, by the first that tells."""
    from ..config import hugo, jekyll, mkdocs
    from ..config.layered import config_paths

    paths = config_paths(config_file)
    for path in paths:
        if hugo.is_hugo_config(path):
            return hugo
        if jekyll.is_jekyll_config(path):
            return jekyll
    if len(paths) > 1:
        # Several files are Hugo's or Jekyll's way (MkDocs and Zensical take one).
        missing = next((path for path in paths if not path.exists()), None)
        if missing is not None:
            raise SitemapkitError(f"--config {str(missing)!r}: No such file or directory")
        generator = next(filter(None, map(_generator_of_settings, paths)), None)
        if generator is None:
            raise SitemapkitError(
                f"--config {config_file!r}: none of these files is Hugo's or Jekyll's, which take several "
                "(MkDocs and Zensical take one file; share settings with INHERIT)"
            )
        return hugo if generator == "hugo" else jekyll
    path = paths[0]
    if path.name.lower() in ("mkdocs.yml", "mkdocs.yaml", "zensical.toml") or not path.is_file():
        return mkdocs
    generator = _generator_of_settings(path)
    return hugo if generator == "hugo" else jekyll if generator == "jekyll" else mkdocs


def _generator_of_settings(path: Path) -> str | None:
    """Whose configuration a file of another name is (``hugo --config
    config-git.toml``, ``jekyll --config _config_dev.yml``), by the settings only
    that generator has: Hugo's ``baseURL`` (an absolute URL) and content
    settings, Jekyll's ``url`` with ``baseurl`` a path or its collections; MkDocs
    and Zensical name a ``site_name`` or a ``[project]``. None when unreadable or
    none of these: the MkDocs reader then names what is wrong."""
    from ..site.dataformats import load_json, load_toml, load_yaml

    try:
        text = path.read_bytes().decode("utf-8-sig")
        suffix = path.suffix.lower()
        loader = load_toml if suffix == ".toml" else load_json if suffix == ".json" else load_yaml
        settings = loader(text, path.name)
    except (OSError, UnicodeDecodeError, SitemapkitError):
        return None
    if not isinstance(settings, dict):
        return None
    keys = {str(key).lower(): value for key, value in settings.items()}
    if "site_name" in keys or "project" in keys:
        return None
    base = keys.get("baseurl")
    if (isinstance(base, str) and "://" in base) or {"contentdir", "publishdir", "languagecode"} & keys.keys():
        return "hugo"
    if "url" in keys or "collections" in keys or "permalink" in keys:
        return "jekyll"
    return "hugo" if suffix in (".toml", ".json") else None


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
    from ..site.htmlcheck import HEAD_DATE_ADVICE as date_advice

    if args.source:
        from ..engine.pages import build_site
        from ..site.folder import find_pages
        from ..site.sources import with_mirrored_sources

        pages = sorted(with_mirrored_sources(find_pages(site_dir), site_dir, Path(args.source)), key=lambda p: p.loc)
        report = build_site(pages, options, site_dir, date_advice=date_advice)
    else:
        # The folder's own pages: found, checked and dated on every core.
        from ..engine.folderbuild import build_folder

        # The built files' times are the build's; the sources' history is not.
        date_advice = f"name the sources with --source DIR to date pages by their git history, {date_advice}"
        report = build_folder(site_dir, options, date_advice=date_advice)
    _show(report, options)
    return 0


def _build_project(args: argparse.Namespace) -> int:
    """``build --config FILE``: the project's own settings, its pages mapped to
    their sources, for each site it publishes (Hugo's multihost languages are one
    site each, in a folder of their own)."""
    if args.source:
        raise SitemapkitError("--source is for folders built from mirrored sources; --config reads its own sources")
    from ..engine.companion import XML_COMPANION_NOTE, build_xml_companion
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
        for line in getattr(site, "warnings", ()):
            print(f"sitemapkit: warning: {line}", file=sys.stderr)
        report = build_site(pages, options, site_dir, date_advice=FRONT_MATTER_DATE_ADVICE)
        if report.urls:
            written = list(report.files)
            # MkDocs-shaped sites (Material, Zensical) read sitemap.xml in the browser:
            # a text sitemap leaves them a current sitemap.xml urlset, never the generator's.
            companion = build_xml_companion(pages, options, site_dir) if project.BROWSER_READS_SITEMAP_XML else None
            if companion is not None:
                written += companion.files
                print(XML_COMPANION_NOTE)
            # Under another name than the generator's own, ours would leave its
            # sitemap.xml (and .gz) published, stale from this build on.
            theirs = project.generator_sitemaps(site)
            publish.remove_files(site_dir, [name for name in theirs if name not in written])
            for below in project.generator_sitemap_folders(site):
                # Hugo's per-language sitemaps, which the one written here replaces.
                publish.remove_files(site_dir / below, theirs)
        # Each site of a multihost project says which folder it is.
        _show(
            report, options, report.summary().replace("sitemapkit: ", f"sitemapkit: {folder}/: ", 1) if folder else None
        )
    return 0


def _show(report: Report, options: Options, summary: str | None = None) -> None:
    """The report's lines: the summary on stdout, each notice as a warning on stderr."""
    for notice, text in report.log_lines(verbose=options.verbose, summary=summary):
        if notice is None:
            print(text)
        else:
            print(f"sitemapkit: warning: {text}", file=sys.stderr)


def cmd_generate(args: argparse.Namespace) -> int:
    from ..engine.urllist import generate

    options = _options(args, _GENERATE_OPTIONS)
    out = Path(args.out)
    started = time.perf_counter()
    # The input is opened first: a missing list creates nothing, not even DIR.
    with sys.stdin.buffer if args.input == "-" else open(args.input, "rb") as source:
        out.mkdir(parents=True, exist_ok=True)
        report = generate(source, options, out)
    # A URL list's summary: where the files went and how long the stream took.
    dropped = f"; dropped {len(report.excluded):,}" if report.excluded else ""
    plural = "s" if len(report.files) != 1 else ""
    advice = "".join(f"; {line}" for line in report.advice)
    summary = (
        f"sitemapkit: {report.urls:,} URLs in {len(report.files)} file{plural} in {out} "
        f"({time.perf_counter() - started:.1f}s){dropped}{advice}"
    )
    _show(report, options, summary)
    return 0


def cmd_check(args: argparse.Namespace) -> int:
    from ..audit.check import check_site

    Options(base_url=args.base_url)  # the same check of the base URL as every command
    result = check_site(args.site_dir, args.base_url, entry=args.filename)
    if args.format == "json":
        print(result.to_json())
    else:
        for problem in result.problems:
            print(problem)
        for finding in result.findings:
            print(finding)
        for note in result.notes:
            print(f"note: {note}")
        print(result.summary())
    if args.report_file:
        lines = [*result.problems, *result.findings, *(f"note: {note}" for note in result.notes)]
        Path(args.report_file).write_text("".join(f"{line}\n" for line in lines) + result.summary() + "\n")
    return 1 if result.failed else 0


def _change_list(args: argparse.Namespace):
    from ..audit.changes import change_list

    if args.base_url is not None:
        Options(base_url=args.base_url)  # the same check of the base URL as every command
    return change_list(
        args.site_dir,
        args.since,
        filename=args.filename,
        base_url=args.base_url,
        all_if_new=args.all,
        timeout=args.timeout,
    )


def cmd_changes(args: argparse.Namespace) -> int:
    changes = _change_list(args)
    if args.output:
        Path(args.output).write_text(changes.to_json(), encoding="utf-8")
    else:
        for change in changes.changes:
            print(f"{change.kind}\t{change.url}")
    print(changes.summary())
    return 0


def cmd_indexnow(args: argparse.Namespace) -> int:
    import os

    from ..audit.changes import ChangeList
    from ..audit.indexnow import plan, submit, verify_key_file
    from ..protocol.indexnow import check_key

    if bool(args.changes) == bool(args.site_dir):
        raise SitemapkitError("give --changes FILE (from sitemapkit changes --output), or SITE_DIR --since OLD")
    if args.site_dir and not args.since:
        raise SitemapkitError("SITE_DIR needs --since OLD: the folder or live URL of what was published before")
    key = args.key or os.environ.get("INDEXNOW_KEY")
    if not key:
        raise SitemapkitError("give the IndexNow key: --key KEY, or the INDEXNOW_KEY environment variable")
    try:
        check_key(key, "key")
    except ConfigError as error:
        raise SitemapkitError(error.for_setting("--key" if args.key else "INDEXNOW_KEY")) from None
    if args.changes:
        changes = ChangeList.from_json(Path(args.changes).read_text(encoding="utf-8"), args.changes)
    else:
        changes = _change_list(args)
        print(changes.summary())
    submission = plan((change.url for change in changes.changes), changes.site, key, args.key_location)
    if submission.refused:
        count = len(submission.refused)
        print(
            f"sitemapkit: warning: {count:,} URL{'s' if count != 1 else ''} of the change list "
            f"{'are' if count != 1 else 'is'} not on {submission.host}"
            + (" below the key location's folder" if args.key_location else "")
            + f", so not sent (such as {submission.refused[0]})",
            file=sys.stderr,
        )
    bodies = submission.bodies()
    plural = "s" if len(bodies) != 1 else ""
    if args.dry_run:
        for body in bodies:
            print(f"POST {args.endpoint} {body.decode('utf-8')}")
        print(
            f"sitemapkit indexnow: dry run: {len(submission.urls):,} URLs in {len(bodies)} request{plural} "
            f"to {args.endpoint}, key file {submission.key_location}; nothing sent"
        )
        return 0
    if not submission.urls:
        print("sitemapkit indexnow: no URL to submit; nothing sent")
        return 0
    verify_key_file(submission, timeout=args.timeout)
    requests = submit(submission, args.endpoint, timeout=args.timeout)
    print(
        f"sitemapkit indexnow: {len(submission.urls):,} URLs submitted in {len(bodies)} request{plural} "
        f"to {args.endpoint}" + (f" ({requests} with retries)" if requests != len(bodies) else "")
    )
    return 0


def _add_change_flags(command: argparse.ArgumentParser, *, required: bool) -> None:
    from ..audit.fetch import DEFAULT_TIMEOUT

    command.add_argument(
        "--since",
        metavar="OLD",
        required=required,
        help="what was published before: a folder holding it, or the http(s) URL of the live site's "
        "robots.txt, sitemap or index (only these are fetched, on that host)",
    )
    command.add_argument("--all", action="store_true", help="with nothing published before, list every URL as added")
    command.add_argument(
        "--base-url",
        help="the URL SITE_DIR is published at (default: read from its sitemaps); "
        "the sitemaps an index names are then looked for below it",
    )
    command.add_argument("--filename", default="sitemap.xml", help="entry point name (default sitemap.xml)")
    command.add_argument(
        "--timeout",
        type=float,
        default=DEFAULT_TIMEOUT,
        metavar="SECONDS",
        help=f"most seconds one request may take (default {DEFAULT_TIMEOUT:g})",
    )


def cmd_versions(args: argparse.Namespace) -> int:
    from ..audit.versions import plan_root, publish_root

    options = _options(args, _VERSIONS_OPTIONS)
    names = None if args.versions is None else [name.strip() for name in args.versions.split(",")]
    plan = plan_root(
        Path(args.root), options.base_url, names=names, canonical=args.canonical, all_versions=args.all_versions
    )
    report = publish_root(Path(args.root), options, plan)
    version = plan.canonical.name
    if plan.sitemaps:
        what = f"the own sitemaps of {len(plan.sitemaps)} versions (--all-versions)"
    else:
        alias = f" (as {plan.chosen})" if plan.chosen != version else ""
        what = f"the pages of {version}{alias}, {plan.why}"
    print(f"sitemapkit: root sitemap of {args.root} lists {what}")
    _show(report, options)
    return 0


def parser(only: str | None = None) -> argparse.ArgumentParser:
    """The command line's parser; with ``only``, the parser of that command
    alone (what a run needs: building every command's costs more than
    writing a small site's sitemap)."""
    top = _Parser(prog="sitemapkit", description="Correct, deterministic sitemaps for static sites.")
    top.add_argument("--version", action="version", version=f"sitemapkit {__version__}")
    sub = top.add_subparsers(dest="command", required=True, metavar="{" + ",".join(_COMMANDS) + "}")

    if only in (None, "build"):
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
            "source, destination, collections, defaults, exclude). Hugo's and Jekyll's several files joined by "
            "commas, as their own --config takes them (hugo.toml,production.toml: the later wins). Read after the "
            "site is built; each page is dated by its source",
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

    if only in (None, "generate"):
        gen = sub.add_parser(
            "generate",
            help="write sitemaps from a URL<TAB>LASTMOD list",
            description="Stream URLS.tsv (one URL a line, optionally a tab and a W3C date, then "
            "optionally more tabs, each followed by an image URL; the date may be empty) into "
            "sitemaps and an index in DIR. The input should be sorted by URL.",
        )
        gen.add_argument("--input", required=True, metavar="URLS.tsv", help="the list ('-' for standard input)")
        gen.add_argument("--out", required=True, metavar="DIR", help="folder to write into (created if missing)")
        # Only the flags of the options generate honours: any other is refused in one
        # line that says build takes it (see _unknown_arguments), and --help lists these.
        _add_option_flags(gen, _GENERATE_OPTIONS)
        gen.set_defaults(run=cmd_generate, parser=gen)

    if only in (None, "check"):
        check = sub.add_parser(
            "check",
            help="check a site's existing sitemaps",
            description="Check the sitemaps of SITE_DIR (any generator's): well-formed XML, "
            "structure, limits, escaping, scope, that each URL has a file, robots.txt lines.",
        )
        check.add_argument("site_dir", metavar="SITE_DIR")
        check.add_argument("--base-url", required=True)
        check.add_argument("--filename", default="sitemap.xml", help="entry point name (default sitemap.xml)")
        check.add_argument("--report-file", help="also write the problems and findings to this file")
        check.add_argument(
            "--format",
            choices=("text", "json"),
            default="text",
            help="text (default): one line each; json: the problems and findings (kind, url, reason, error) for CI",
        )
        check.set_defaults(run=cmd_check, parser=check)

    if only in (None, "changes"):
        changes = sub.add_parser(
            "changes",
            help="list the URLs added, updated and removed since the last deploy",
            description="Compare the sitemaps SITE_DIR holds (built, not yet deployed) with those published "
            "before (--since): every URL added, removed or whose lastmod changed. Sitemap files whose name and "
            "bytes are the same on both sides are not parsed. Run it before the deploy step.",
        )
        changes.add_argument("site_dir", metavar="SITE_DIR")
        changes.add_argument("--output", metavar="FILE", help="write the change list as JSON (for sitemapkit indexnow)")
        _add_change_flags(changes, required=True)
        changes.set_defaults(run=cmd_changes, parser=changes)

    from ..protocol.indexnow import DEFAULT_ENDPOINT

    if only in (None, "indexnow"):
        indexnow = sub.add_parser(
            "indexnow",
            help="submit changed URLs to IndexNow, after the deploy",
            description="Submit the URLs of a change list (--changes FILE), or of SITE_DIR against --since OLD, "
            "to IndexNow. The key file (KEY.txt at the site's host root, or --key-location) is checked first.",
        )
        indexnow.add_argument("site_dir", metavar="SITE_DIR", nargs="?", help="the built site (with --since)")
        indexnow.add_argument("--changes", metavar="FILE", help="a change list from sitemapkit changes --output")
        indexnow.add_argument("--key", help="the IndexNow key (default: the INDEXNOW_KEY environment variable)")
        indexnow.add_argument(
            "--key-location",
            metavar="URL",
            help="where the key file is published, on the site's host (default: /KEY.txt)",
        )
        indexnow.add_argument(
            "--endpoint",
            metavar="URL",
            default=DEFAULT_ENDPOINT,
            help=f"the IndexNow endpoint (default {DEFAULT_ENDPOINT})",
        )
        indexnow.add_argument("--dry-run", action="store_true", help="print the requests it would send; send nothing")
        _add_change_flags(indexnow, required=False)
        indexnow.set_defaults(run=cmd_indexnow, parser=indexnow)

    if only in (None, "versions"):
        versions = sub.add_parser(
            "versions",
            help="write the root sitemap of a versioned documentation site (mike, sphinx-multiversion)",
            description="Write ROOT's sitemap and robots.txt Sitemap: line so that crawlers reach one copy of "
            "each page: the canonical version's, under the URL its canonical link names. Each version's "
            "own sitemap (read by Material's version selector) is left as it is.",
        )
        versions.add_argument(
            "root", metavar="ROOT", help="the folder served (a checkout of gh-pages, sphinx-multiversion's output)"
        )
        versions.add_argument(
            "--canonical",
            metavar="NAME",
            help="the version (or alias) whose pages are listed (default: mike's canonical_version, "
            "else the default the root index.html redirects to, else the newest release)",
        )
        versions.add_argument(
            "--versions",
            metavar="NAMES",
            help="the version folders, comma-separated (default: mike's versions.json, "
            "else the folders holding a sitemap sitemapkit wrote)",
        )
        versions.add_argument(
            "--all-versions",
            action="store_true",
            help="list every version's own sitemap in a root index instead, for versions that really differ",
        )
        _add_option_flags(versions, _VERSIONS_OPTIONS)
        versions.set_defaults(run=cmd_versions, parser=versions)
    return top


class ReaderMayGo:
    """A standard stream whose reader may stop reading (``sitemapkit check ... |
    head``, ``2>&1 | head``). Once it has, the rest of what is written there is
    dropped (the stream is pointed at the null device) and the command goes on:
    its work (the sitemaps of every site, a report file, a submission) is done
    whoever reads its lines, and its status is that work's. A broken pipe that is
    not this stream's reader gone, such as a write to a server that hung up, is
    raised as ever."""

    def __init__(self, stream: Any) -> None:
        self.stream = stream

    def write(self, text: str) -> int:
        try:
            return self.stream.write(text)
        except BrokenPipeError:
            self._drop_output()
            return self.stream.write(text)

    def flush(self) -> None:
        try:
            self.stream.flush()
        except BrokenPipeError:
            self._drop_output()
            self.stream.flush()

    def _drop_output(self) -> None:
        # poll: a pipe whose reader closed it reports an error condition.
        try:
            poller = select.poll()
            poller.register(self.stream.fileno(), select.POLLOUT)
            gone = any(event & select.POLLERR for _, event in poller.poll(0))
        except (AttributeError, OSError, ValueError):  # no poll (Windows), no descriptor
            gone = False
        if not gone:
            raise  # the BrokenPipeError being handled: not this stream's reader
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, self.stream.fileno())
        os.close(null)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.stream, name)


def main(argv: list[str] | None = None) -> int:
    given = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = (None if stream is None else ReaderMayGo(stream) for stream in given)
    try:
        return _main(argv)
    finally:
        # What is still buffered is flushed by the caller (__main__.run).
        sys.stdout, sys.stderr = given


def _main(argv: list[str] | None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    args, extra = parser(argv[0] if argv and argv[0] in _COMMANDS else None).parse_known_args(argv)
    if extra:
        args.parser.error(_unknown_arguments(args.command, args.parser, extra))
    try:
        return args.run(args)
    except ConfigError as error:
        print(f"sitemapkit: error: {COMMAND_LINE_SETTINGS.message(error)}", file=sys.stderr)
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
