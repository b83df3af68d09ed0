"""lastmod from git history and file times: true dates or none, never a guess.

Every test builds real git repositories (commit dates set through
GIT_AUTHOR_DATE/GIT_COMMITTER_DATE) and checks exact dates. Git runs with no global
or system config, so the user's settings cannot change what the tests see.
"""

from __future__ import annotations

import datetime as dt
import os
import subprocess
from pathlib import Path

import pytest

from sitemapkit import ConfigError, resolve_lastmods
from sitemapkit.protocol.dates import format_w3c, parse_lastmod

UTC = dt.timezone.utc
GIT_IDENTITY = ["-c", "user.name=Sitemapkit Test", "-c", "user.email=test@example.invalid"]
# Plausible, distinct file times (>= 1980, seconds apart) so the flat-mtime rule
# stays out of tests that are about something else.
MTIME_A = int(dt.datetime(2023, 3, 1, 8, 0, 0, tzinfo=UTC).timestamp())
MTIME_B = int(dt.datetime(2023, 6, 2, 9, 30, 0, tzinfo=UTC).timestamp())
MTIME_C = int(dt.datetime(2023, 9, 3, 11, 45, 0, tzinfo=UTC).timestamp())


@pytest.fixture(autouse=True)
def isolated_git(monkeypatch, tmp_path):
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", os.devnull)
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    # Repository discovery must stop at tmp_path, so a checkout around the test
    # folder never answers for "not in git" cases.
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path))
    for name in ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY", "GIT_COMMON_DIR"):
        monkeypatch.delenv(name, raising=False)


def utc(*fields: int) -> dt.datetime:
    return dt.datetime(*fields, tzinfo=UTC)


class Repo:
    """A real git repository in a test folder, committing at chosen dates."""

    def __init__(self, root: Path) -> None:
        self.root = root
        root.mkdir(parents=True, exist_ok=True)
        self.git("init", "-q", "-b", "main")

    def git(self, *args: str, when: str | None = None) -> str:
        env = dict(os.environ)
        if when:
            env.update(GIT_AUTHOR_DATE=when, GIT_COMMITTER_DATE=when)
        done = subprocess.run(
            ["git", *GIT_IDENTITY, "-c", "commit.gpgsign=false", *args],
            cwd=self.root,
            env=env,
            capture_output=True,
            text=True,
            check=True,
        )
        return done.stdout

    def write(self, name: str, text: str = "text\n") -> Path:
        path = self.root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        return path

    def commit(self, when: str, message: str = "change") -> None:
        self.git("add", "-A")
        self.git("commit", "-q", "-m", message, when=when)

    def path(self, name: str) -> Path:
        return self.root / name


def set_mtime(path: Path, seconds: float) -> None:
    os.utime(path, (seconds, seconds))


class ProcessCounter:
    """Records the argv of every process started (subprocess.run goes through Popen)."""

    def __init__(self, monkeypatch) -> None:
        self.commands: list[list[str]] = []
        self.processes: list[subprocess.Popen] = []
        counter = self
        original = subprocess.Popen

        class CountingPopen(original):  # type: ignore[misc, valid-type]
            def __init__(self, args, *rest, **kwargs):
                counter.commands.append([os.fsdecode(a) for a in args])
                super().__init__(args, *rest, **kwargs)
                counter.processes.append(self)

        monkeypatch.setattr(subprocess, "Popen", CountingPopen)

    def git(self, subcommand: str) -> list[list[str]]:
        return [c for c in self.commands if c[0] == "git" and subcommand in c]


def fast_import(repo: Repo, commits: list[tuple[int, dict[str, str]]]) -> None:
    """Many commits at once: (unix time, {path: content}) each, then check them out."""
    stream = []
    for when, files in commits:
        stream.append(f"commit refs/heads/main\ncommitter T <t@example.invalid> {when} +0000\ndata 2\nc\n")
        for name, text in files.items():
            data = text.encode()
            stream.append(f"M 100644 inline {name}\ndata {len(data)}\n{text}\n")
    subprocess.run(["git", "fast-import", "--quiet"], cwd=repo.root, input="".join(stream).encode(), check=True)
    repo.git("reset", "-q", "--hard", "main")


# ---- git -------------------------------------------------------------------------


def test_git_gives_each_file_its_last_commit_time_in_utc(tmp_path):
    repo = Repo(tmp_path / "site")
    repo.write("docs/index.md")
    repo.write("docs/a b&ü.md")
    repo.write("docs/guide/deep.md")
    repo.commit("2024-01-10T09:00:00+00:00")
    repo.write("docs/index.md", "edited\n")
    # Committed at 12:00 in +02:00: that is 10:00 UTC.
    repo.commit("2024-02-20T12:00:00+02:00")
    repo.write("docs/guide/deep.md", "edited\n")
    repo.write("unrelated.txt")
    repo.commit("2024-03-05T23:30:15-05:00")

    sources = [repo.path("docs/index.md"), repo.path("docs/a b&ü.md"), repo.path("docs/guide/deep.md")]
    result = resolve_lastmods(sources, "git")

    assert result.dates == {
        repo.path("docs/index.md"): utc(2024, 2, 20, 10, 0, 0),
        repo.path("docs/a b&ü.md"): utc(2024, 1, 10, 9, 0, 0),
        repo.path("docs/guide/deep.md"): utc(2024, 3, 6, 4, 30, 15),
    }
    assert all(d.tzinfo is UTC and d.microsecond == 0 for d in result.dates.values())
    assert result.notices == []
    assert [format_w3c(d) for d in result.dates.values()] == [
        "2024-02-20T10:00:00+00:00",
        "2024-01-10T09:00:00+00:00",
        "2024-03-06T04:30:15+00:00",
    ]


def test_a_rename_is_a_change_as_the_pages_url_changes_with_it(tmp_path):
    repo = Repo(tmp_path / "site")
    repo.write("docs/old.md", "one\ntwo\nthree\n")
    repo.write("docs/moved/page.md", "page\n")
    repo.write("docs/edited.md", "alpha\nbeta\ngamma\ndelta\n")
    repo.write("docs/stays.md", "stays\n")
    repo.commit("2024-01-01T00:00:00+00:00")
    repo.write("docs/old.md", "one\ntwo\nthree\nfour\n")
    repo.commit("2024-02-01T00:00:00+00:00")
    # Pure renames, twice over for old.md, and a whole folder.
    repo.git("mv", "docs/old.md", "docs/middle.md")
    repo.git("mv", "docs/moved", "docs/relocated")
    repo.commit("2024-03-01T00:00:00+00:00")
    repo.git("mv", "docs/middle.md", "docs/new.md")
    repo.commit("2024-04-01T00:00:00+00:00")
    repo.git("mv", "docs/edited.md", "docs/renamed-and-edited.md")
    repo.write("docs/renamed-and-edited.md", "alpha\nbeta\ngamma\ndelta\nepsilon\n")
    repo.commit("2024-05-01T00:00:00+00:00")

    names = ["new", "relocated/page", "renamed-and-edited", "stays"]
    result = resolve_lastmods([repo.path(f"docs/{n}.md") for n in names], "git")

    # Never older than the commit that gave the source its current name (flask's
    # changes.html said 2020-04-04; its file got its name on 2021-02-24).
    assert [result.dates[repo.path(f"docs/{n}.md")] for n in names] == [
        utc(2024, 4, 1),
        utc(2024, 3, 1),
        utc(2024, 5, 1),
        utc(2024, 1, 1),
    ]
    assert result.notices == []


def test_a_page_deleted_and_brought_back_by_a_merge_is_dated_by_the_merge(tmp_path):
    repo = Repo(tmp_path / "site")
    repo.write("docs/kept.md", "kept\n")
    repo.write("docs/other.md", "other\n")
    repo.commit("2024-01-01T00:00:00+00:00")
    repo.git("branch", "side")
    repo.git("rm", "-q", "docs/kept.md")
    repo.commit("2024-02-01T00:00:00+00:00")
    repo.git("checkout", "-q", "side")
    repo.write("docs/other.md", "other, edited\n")
    repo.commit("2024-03-01T00:00:00+00:00")
    repo.git("checkout", "-q", "main")
    # The merge brings kept.md back: on this branch, the page was gone from
    # February until the merge published it again.
    repo.git("merge", "-q", "--no-commit", "side")
    repo.git("checkout", "side", "--", "docs/kept.md")
    repo.commit("2024-04-01T00:00:00+00:00", "merge side, keeping kept.md")

    result = resolve_lastmods([repo.path("docs/kept.md"), repo.path("docs/other.md")], "git")

    assert result.dates == {repo.path("docs/kept.md"): utc(2024, 4, 1), repo.path("docs/other.md"): utc(2024, 4, 1)}


def test_first_parent_history_dates_each_page_when_its_content_landed_on_the_branch(tmp_path):
    repo = Repo(tmp_path / "site")
    names = ["merged", "fast-forward", "picked", "repeated-fix", "undone-on-a-side", "untouched"]
    for name in names:
        repo.write(f"docs/{name}.md", f"{name}\n")
    repo.commit("2024-01-01T00:00:00+00:00")

    def side(branch: str, start: str = "main") -> None:
        repo.git("checkout", "-q", "-b", branch, start)

    def merge(branch: str, when: str, *flags: str) -> None:
        repo.git("checkout", "-q", "main")
        repo.git("merge", "-q", "--no-edit", *flags, branch, when=when)

    # A feature branch edited in February, merged (a merge commit) in March: the
    # change reached the site in March.
    side("feature")
    repo.write("docs/merged.md", "merged, edited\n")
    repo.commit("2024-02-01T00:00:00+00:00")
    merge("feature", "2024-03-01T00:00:00+00:00", "--no-ff")
    # A fast-forward merge has no merge commit: the branch's commit is on main.
    side("quick")
    repo.write("docs/fast-forward.md", "fast, edited\n")
    repo.commit("2024-03-02T00:00:00+00:00")
    merge("quick", "2024-03-03T00:00:00+00:00", "--ff-only")
    # A fix cherry-picked onto main in March from a topic branch committed in
    # February; merging the topic later changes nothing more on main.
    side("topic")
    repo.write("docs/picked.md", "picked, fixed\n")
    repo.commit("2024-02-15T00:00:00+00:00")
    topic_fix = repo.git("rev-parse", "HEAD").strip()
    repo.git("checkout", "-q", "main")
    repo.git("cherry-pick", topic_fix, when="2024-03-10T00:00:00+00:00")
    merge("topic", "2024-04-20T00:00:00+00:00", "--no-ff")
    # A fix made on main in March and repeated on an old branch in April: the
    # branch's merge does not change the page (flask's views.html was dated by
    # such a repeated fix, 30 days late).
    side("old", "main~3")
    repo.git("checkout", "-q", "main")
    repo.write("docs/repeated-fix.md", "fixed\n")
    repo.commit("2024-03-05T00:00:00+00:00")
    repo.git("checkout", "-q", "old")
    repo.write("docs/repeated-fix.md", "fixed\n")
    repo.commit("2024-04-05T00:00:00+00:00")
    # A side branch that changes a page and changes it back: nothing landed.
    repo.write("docs/undone-on-a-side.md", "tried\n")
    repo.commit("2024-04-06T00:00:00+00:00")
    repo.write("docs/undone-on-a-side.md", "undone-on-a-side\n")
    repo.commit("2024-04-07T00:00:00+00:00")
    merge("old", "2024-04-10T00:00:00+00:00", "--no-ff")

    result = resolve_lastmods([repo.path(f"docs/{n}.md") for n in names], "git")

    assert {n: result.dates[repo.path(f"docs/{n}.md")] for n in names} == {
        "merged": utc(2024, 3, 1),
        "fast-forward": utc(2024, 3, 2),
        "picked": utc(2024, 3, 10),
        "repeated-fix": utc(2024, 3, 5),
        "undone-on-a-side": utc(2024, 1, 1),
        "untouched": utc(2024, 1, 1),
    }
    assert result.notices == []


def test_uncommitted_and_untracked_files_get_their_file_time_and_ignored_ones_none(tmp_path):
    repo = Repo(tmp_path / "site")
    repo.write(".gitignore", "generated/\n")
    repo.write("docs/clean.md")
    repo.write("docs/edited.md")
    repo.write("docs/staged.md")
    repo.commit("2024-01-01T00:00:00+00:00")
    set_mtime(repo.write("docs/edited.md", "not committed\n"), MTIME_A)
    repo.write("docs/staged.md", "staged\n")
    repo.git("add", "docs/staged.md")
    set_mtime(repo.path("docs/staged.md"), MTIME_B)
    set_mtime(repo.write("docs/untracked.md"), MTIME_C)
    set_mtime(repo.write("docs/generated/api.md"), MTIME_C + 7)

    names = ["clean", "edited", "staged", "untracked", "generated/api"]
    result = resolve_lastmods([repo.path(f"docs/{n}.md") for n in names], "git")

    assert [result.dates[repo.path(f"docs/{n}.md")] for n in names] == [
        utc(2024, 1, 1),
        dt.datetime.fromtimestamp(MTIME_A, UTC),
        dt.datetime.fromtimestamp(MTIME_B, UTC),
        dt.datetime.fromtimestamp(MTIME_C, UTC),
        # Ignored: written by the build (as autosummary writes its stubs), so its
        # file time is the build's.
        None,
    ]
    assert result.not_in_git == {repo.path("docs/generated/api.md")}
    assert result.notices == []


def test_all_files_take_one_git_log_and_a_constant_number_of_other_git_calls(tmp_path, monkeypatch):
    def git_processes(page_count: int) -> tuple[int, int]:
        repo = Repo(tmp_path / f"site{page_count}")
        for index in range(page_count):
            repo.write(f"docs/p{index}.md", f"{index}\n")
            if index % 3 == 0:
                repo.commit(f"2024-01-{1 + index % 28:02d}T00:00:00+00:00")
        repo.commit("2024-02-01T00:00:00+00:00")
        counter = ProcessCounter(monkeypatch)
        result = resolve_lastmods([repo.path(f"docs/p{i}.md") for i in range(page_count)], "auto")
        monkeypatch.undo()
        assert all(result.dates.values()) and result.notices == []
        return len(counter.git("log")), len([c for c in counter.commands if c[0] == "git"])

    assert git_processes(2) == git_processes(30)
    logs, every_git = git_processes(12)
    assert logs == 1
    assert every_git <= 4  # rev-parse, ls-files, status, log


def test_git_log_stops_once_every_file_has_its_date(tmp_path, monkeypatch):
    repo = Repo(tmp_path / "site")
    start = int(utc(2020, 1, 1).timestamp())
    # Long names make the full log several pipe buffers long, so git cannot have
    # finished on its own by the time the first chunk is read.
    name = "docs/" + "a-long-folder-name/" * 4 + "page-{}.md"
    history = [(start, {name.format(i): "0\n" for i in range(20)})]
    history += [(start + 60 * c, {name.format(c % 20): f"{c}\n"}) for c in range(1, 3000)]
    fast_import(repo, history)

    counter = ProcessCounter(monkeypatch)
    result = resolve_lastmods([repo.path(name.format(2999 % 20))], "git")

    assert result.dates == {repo.path(name.format(19)): dt.datetime.fromtimestamp(start + 60 * 2999, UTC)}
    (log,) = [p for p in counter.processes if "log" in p.args]
    assert log.returncode is not None and log.returncode < 0, "git log ran to the end"


def test_a_shallow_clone_omits_boundary_files_and_warns_once(tmp_path):
    origin = Repo(tmp_path / "origin")
    for name in ("a", "b", "c", "d"):
        origin.write(f"docs/{name}.md", f"{name}\n")
    origin.commit("2024-01-01T00:00:00+00:00")
    origin.write("docs/b.md", "b2\n")
    origin.commit("2024-02-01T00:00:00+00:00")
    origin.write("docs/c.md", "c2\n")
    origin.git("mv", "docs/d.md", "docs/d-renamed.md")
    origin.commit("2024-03-01T00:00:00+00:00")
    names = ["a", "b", "c", "d-renamed"]

    depth1 = tmp_path / "depth1"
    origin.git("clone", "-q", "--depth", "1", f"file://{origin.root}", str(depth1))
    result = resolve_lastmods([depth1 / f"docs/{n}.md" for n in names], "auto")
    assert set(result.dates.values()) == {None}
    (notice,) = result.notices
    assert notice.code == "lastmod"
    assert "shallow" in notice.message and "4 pages" in notice.message
    assert "fetch-depth: 0" in notice.message and "git fetch --unshallow" in notice.message

    # With two commits, the files the newest commit changed keep their date (the
    # rename included: it gave the page its URL); the others' last change is at or
    # before the cut, so it is unknown.
    depth2 = tmp_path / "depth2"
    origin.git("clone", "-q", "--depth", "2", f"file://{origin.root}", str(depth2))
    (depth2 / "docs/a.md").write_text("edited after the clone\n", encoding="utf-8")
    set_mtime(depth2 / "docs/a.md", MTIME_A)
    result = resolve_lastmods([depth2 / f"docs/{n}.md" for n in names], "git")
    assert result.dates == {
        depth2 / "docs/a.md": dt.datetime.fromtimestamp(MTIME_A, UTC),  # uncommitted: its file time
        depth2 / "docs/b.md": None,
        depth2 / "docs/c.md": utc(2024, 3, 1),
        depth2 / "docs/d-renamed.md": utc(2024, 3, 1),
    }
    (notice,) = result.notices
    assert "1 page (docs/b.md)" in notice.message


def test_a_history_git_cannot_read_gives_no_dates_and_says_so(tmp_path):
    repo = Repo(tmp_path / "site")
    repo.write("docs/old.md")
    repo.write("docs/new.md", "1\n")
    repo.commit("2024-01-01T00:00:00+00:00")
    repo.write("docs/new.md", "2\n")
    repo.commit("2024-02-01T00:00:00+00:00")
    # A damaged clone: the first commit's tree is gone, so the walk fails there.
    tree = repo.git("rev-parse", "HEAD~1^{tree}").strip()
    (repo.root / ".git" / "objects" / tree[:2] / tree[2:]).unlink()

    result = resolve_lastmods([repo.path("docs/old.md"), repo.path("docs/new.md")], "auto")

    assert set(result.dates.values()) == {None}
    (notice,) = result.notices
    assert "could not read the history" in notice.message and "2 pages" in notice.message


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="needs root to chown a repository")
def test_a_repository_git_refuses_to_read_gives_no_dates_and_says_how_to_fix_it(tmp_path):
    repo = Repo(tmp_path / "site")
    repo.write("docs/a.md")
    repo.write("docs/b.md")
    repo.commit("2024-01-01T00:00:00+00:00")
    # Owned by someone else, as in CI containers: git answers "dubious ownership".
    for folder, dirs, files in os.walk(repo.root):
        for name in (folder, *(os.path.join(folder, n) for n in dirs + files)):
            os.lchown(name, 65534, 65534)

    result = resolve_lastmods([repo.path("docs/a.md"), repo.path("docs/b.md")], "auto")

    assert set(result.dates.values()) == {None}
    (notice,) = result.notices
    # safe.directory must name the repository's top folder, not the pages' folder.
    assert f"safe.directory {repo.root}'" in notice.message and "2 pages" in notice.message


# ---- file times ------------------------------------------------------------------


def test_mtime_mode_takes_file_times_whole_seconds_utc(tmp_path):
    a, b = tmp_path / "a.md", tmp_path / "b.md"
    a.write_text("a"), b.write_text("b")
    set_mtime(a, MTIME_A + 0.75)
    set_mtime(b, MTIME_B)

    result = resolve_lastmods([a, b], "mtime")

    assert result.dates == {a: dt.datetime.fromtimestamp(MTIME_A, UTC), b: dt.datetime.fromtimestamp(MTIME_B, UTC)}
    assert result.dates[a].tzinfo is UTC
    assert result.notices == []


@pytest.mark.parametrize(
    ("mtimes", "omitted"),
    [
        pytest.param([MTIME_A + 0.1 * i for i in range(5)], [0, 1, 2, 3, 4], id="checkout-in-one-second"),
        pytest.param(
            [MTIME_A + 0.9, MTIME_A + 1.2, MTIME_A + 1.3, MTIME_A + 1.4, MTIME_A + 2.1],
            [0, 1, 2, 3, 4],
            id="checkout-straddling-a-second",
        ),
        # `sitemapkit build` on a generator's output: 60 pages written over 7 s.
        pytest.param([MTIME_A + 7 * i / 59 for i in range(60)], list(range(60)), id="one-build-over-seconds"),
        # An incremental build: most pages from the last full build, a few older.
        pytest.param(
            [MTIME_A - 86_400 * 30, MTIME_A - 86_400 * 9] + [MTIME_A + 0.05 * i for i in range(8)],
            list(range(10)),
            id="incremental-build",
        ),
        pytest.param([1.0, 1.0, MTIME_A], [0, 1], id="nix-1970"),
        pytest.param([0.0], [0], id="epoch-alone"),
        pytest.param([315532799.0, MTIME_A], [0], id="last-second-of-1979"),
    ],
)
def test_batch_or_pre_1980_file_times_are_omitted_with_one_notice(tmp_path, mtimes, omitted):
    paths = []
    for index, seconds in enumerate(mtimes):
        path = tmp_path / f"p{index}.md"
        path.write_text(str(index))
        set_mtime(path, seconds)
        paths.append(path)

    result = resolve_lastmods(paths, "mtime")

    assert [i for i, p in enumerate(paths) if result.dates[p] is None] == omitted
    (notice,) = result.notices
    assert notice.code == "lastmod" and "lastmod omitted" in notice.message
    assert "'none'" in notice.message


@pytest.mark.parametrize(
    "mtimes",
    [
        pytest.param([MTIME_A], id="one-file-is-never-a-batch"),
        pytest.param([MTIME_A, MTIME_A + 2], id="two-seconds-apart"),
        pytest.param([315532800.0, MTIME_A], id="first-second-of-1980"),
        # A brand-new project: sphinx-quickstart writes its files in one second.
        pytest.param([MTIME_A + 0.2, MTIME_A + 0.3], id="new-project-in-one-second"),
        pytest.param([MTIME_A + 0.1 * i for i in range(4)], id="fewer-files-than-a-batch"),
        # A hand-written folder: pages saved minutes to months apart, a few
        # together ("save all").
        pytest.param(
            [MTIME_A, MTIME_A + 0.5, MTIME_A + 600, MTIME_A + 3_600, MTIME_B, MTIME_B + 1, MTIME_C], id="hand-written"
        ),
    ],
)
def test_plausible_file_times_are_kept(tmp_path, mtimes):
    paths = []
    for index, seconds in enumerate(mtimes):
        path = tmp_path / f"p{index}.md"
        path.write_text(str(index))
        set_mtime(path, seconds)
        paths.append(path)

    result = resolve_lastmods(paths, "mtime")

    assert [result.dates[p] for p in paths] == [dt.datetime.fromtimestamp(int(s), UTC) for s in mtimes]
    assert result.notices == []


def test_batch_file_times_of_untracked_files_in_git_are_omitted_too(tmp_path):
    repo = Repo(tmp_path / "site")
    repo.write("docs/index.md")
    repo.commit("2024-01-01T00:00:00+00:00")
    generated = [f"gen{i}" for i in range(5)]
    for name in generated:
        set_mtime(repo.write(f"docs/{name}.md"), MTIME_A)

    result = resolve_lastmods([repo.path(f"docs/{n}.md") for n in ("index", *generated)], "auto")

    assert list(result.dates.values()) == [utc(2024, 1, 1), None, None, None, None, None]
    (notice,) = result.notices
    assert "file times of one checkout, archive or site build" in notice.message


def test_flat_file_times_offer_page_dates_only_where_the_caller_reads_them(tmp_path):
    paths = []
    for name in ("a", "b", "c", "d", "e"):
        paths.append(tmp_path / f"{name}.html")
        paths[-1].write_text(name)
        set_mtime(paths[-1], MTIME_A)

    (plain,) = resolve_lastmods(paths, "mtime").notices
    assert plain.message.endswith(
        "so they do not tell when a page changed. Build from a full git clone (lastmod 'auto' or 'git'), "
        "or set lastmod to 'none'."
    )
    assert "metadata" not in plain.message and "front matter" not in plain.message

    (offered,) = resolve_lastmods(paths, "mtime", page_dates="give the pages a 'date' in their front matter").notices
    assert offered.message.endswith(
        "Build from a full git clone (lastmod 'auto' or 'git'), give the pages a 'date' in their front matter, "
        "or set lastmod to 'none'."
    )


# ---- modes -----------------------------------------------------------------------


@pytest.fixture
def committed_page(tmp_path):
    repo = Repo(tmp_path / "site")
    repo.write("docs/page.md")
    repo.commit("2024-01-01T00:00:00+00:00")
    set_mtime(repo.path("docs/page.md"), MTIME_B)
    return repo.path("docs/page.md")


@pytest.mark.parametrize(
    ("mode", "expected", "git_runs"),
    [
        ("auto", utc(2024, 1, 1), True),
        ("git", utc(2024, 1, 1), True),
        ("mtime", dt.datetime.fromtimestamp(MTIME_B, UTC), False),
        ("none", None, False),
    ],
)
def test_each_mode_in_a_git_work_tree(committed_page, monkeypatch, mode, expected, git_runs):
    counter = ProcessCounter(monkeypatch)
    result = resolve_lastmods([committed_page], mode)
    assert result.dates == {committed_page: expected}
    assert result.notices == []
    assert bool(counter.commands) == git_runs


def test_auto_outside_git_uses_file_times_silently_and_git_is_an_error(tmp_path):
    folder = tmp_path / "plain"
    folder.mkdir()
    page = folder / "page.md"
    page.write_text("x")
    set_mtime(page, MTIME_C)

    auto = resolve_lastmods([page], "auto")
    assert auto.dates == {page: dt.datetime.fromtimestamp(MTIME_C, UTC)}
    assert auto.notices == []

    # Asked for git where there is none: an error that says so, not file times.
    with pytest.raises(ConfigError) as raised:
        resolve_lastmods([page], "git")
    assert raised.value.option == "lastmod"
    assert raised.value.problem == f"'git' asks for git dates, but {folder} is not in a git work tree"


def test_without_git_installed_auto_uses_file_times(committed_page, tmp_path, monkeypatch):
    empty_bin = tmp_path / "no-git-here"
    empty_bin.mkdir()
    monkeypatch.setenv("PATH", str(empty_bin))

    assert resolve_lastmods([committed_page], "auto").dates == {committed_page: dt.datetime.fromtimestamp(MTIME_B, UTC)}
    with pytest.raises(ConfigError, match="^lastmod: 'git' asks for git dates, but git is not installed$"):
        resolve_lastmods([committed_page], "git")


@pytest.mark.parametrize("git_on_path", [True, False])
@pytest.mark.parametrize("build", ["build_site", "sitemapkit build"])
def test_both_builds_ask_whether_git_is_installed_alike(tmp_path, monkeypatch, build: str, git_on_path: bool):
    """One test of "is git installed" (lastmod.git_installed): a folder of pages
    tracked by git is dated by its history, or, with no git on PATH, by its file
    times, whether build_site (a page list) or sitemapkit build (the folder) runs."""
    from conftest import sitemap_entries
    from sitemapkit import Options, build_site
    from sitemapkit.engine.folderbuild import build_folder
    from sitemapkit.site.folder import find_pages

    repo = Repo(tmp_path / "site")
    repo.write("a.html", "<html><head><title>a</title></head><body>a</body></html>")
    repo.write("b/index.html", "<html><head><title>b</title></head><body>b</body></html>")
    repo.commit("2024-01-01T00:00:00+00:00")
    set_mtime(repo.path("a.html"), MTIME_A)
    set_mtime(repo.path("b/index.html"), MTIME_C)
    if not git_on_path:
        empty_bin = tmp_path / "no-git-here"
        empty_bin.mkdir()
        monkeypatch.setenv("PATH", str(empty_bin))
    site = repo.path("")
    options = Options(base_url="https://example.org/")
    if build == "build_site":
        build_site(list(find_pages(site)), options, site)
    else:
        build_folder(site, options, workers=1)
    written = {loc: entry["lastmod"] for loc, entry in sitemap_entries(site).items()}
    if git_on_path:
        expected = {"a.html": "2024-01-01T00:00:00+00:00", "b/": "2024-01-01T00:00:00+00:00"}
    else:
        expected = {"a.html": format_w3c(utc(2023, 3, 1, 8)), "b/": format_w3c(utc(2023, 9, 3, 11, 45))}
    assert written == {"https://example.org/" + name: date for name, date in expected.items()}


def test_each_source_is_dated_in_its_own_repository_and_generated_pages_get_none(tmp_path, monkeypatch):
    # The site's pages, a page generated into a temporary folder outside the
    # repository (mkdocs-gen-files, a blog plugin's archives), and a page of another
    # repository (a submodule, a second checkout): one page outside must not turn
    # git off for all the others.
    repo = Repo(tmp_path / "site")
    repo.write("docs/in.md")
    repo.write("docs/guide/deep.md")
    repo.commit("2024-01-01T00:00:00+00:00")
    repo.write("docs/guide/deep.md", "edited\n")
    repo.commit("2024-02-01T00:00:00+00:00")
    other = Repo(tmp_path / "site" / "vendor" / "other")
    other.write("page.md")
    other.commit("2024-03-01T00:00:00+00:00")
    generated = tmp_path / "tmp" / "gen" / "api.md"
    generated.parent.mkdir(parents=True)
    generated.write_text("generated")
    set_mtime(generated, MTIME_B)

    counter = ProcessCounter(monkeypatch)
    sources = [repo.path("docs/in.md"), generated, repo.path("docs/guide/deep.md"), other.path("page.md")]
    result = resolve_lastmods(sources, "auto")

    assert result.dates == {
        repo.path("docs/in.md"): utc(2024, 1, 1),
        generated: None,
        repo.path("docs/guide/deep.md"): utc(2024, 2, 1),
        other.path("page.md"): utc(2024, 3, 1),
    }
    assert result.not_in_git == {generated}
    assert result.notices == []
    assert len(counter.git("log")) == 2  # one pass per repository


def test_included_files_are_dated_by_git_alone(tmp_path):
    repo = Repo(tmp_path / "site")
    repo.write(".gitignore", ".venv/\n")
    repo.write("docs/page.rst")
    repo.write("CHANGES.rst")
    repo.write("src/module.py")
    repo.commit("2024-01-01T00:00:00+00:00")
    repo.write("CHANGES.rst", "a release\n")
    repo.commit("2024-05-14T00:00:00+00:00")
    set_mtime(repo.write("src/module.py", "edited, not committed\n"), MTIME_C)
    # Installed or generated files have the file times of the install: never a
    # page's date, and never a warning, however many were written at once.
    installed = [repo.write(f".venv/lib/dep{i}.py") for i in range(6)]
    untracked = repo.write("docs/generated.txt")
    elsewhere = tmp_path / "site-packages" / "dep.py"
    elsewhere.parent.mkdir()
    elsewhere.write_text("x")

    includes = [repo.path("CHANGES.rst"), repo.path("src/module.py"), untracked, elsewhere, *installed]
    result = resolve_lastmods([repo.path("docs/page.rst")], "auto", includes)

    assert result.dates == {
        repo.path("docs/page.rst"): utc(2024, 1, 1),
        repo.path("CHANGES.rst"): utc(2024, 5, 14),
        repo.path("src/module.py"): dt.datetime.fromtimestamp(MTIME_C, UTC),
        untracked: None,
        elsewhere: None,
        **{path: None for path in installed},
    }
    assert result.notices == [] and result.not_in_git == set()
    # Without git, includes are not dated at all: their file times are the install's.
    assert resolve_lastmods([repo.path("docs/page.rst")], "mtime", includes).dates[repo.path("CHANGES.rst")] is None


def test_paths_come_back_as_given_once_each_and_missing_files_get_none(committed_page, monkeypatch):
    monkeypatch.chdir(committed_page.parent)
    relative = Path("page.md")

    result = resolve_lastmods([relative, relative, Path("missing.md")], "auto")

    assert result.dates == {relative: utc(2024, 1, 1), Path("missing.md"): None}
    assert result.notices == []


def test_unknown_mode_is_a_config_error_naming_the_option(tmp_path):
    with pytest.raises(ConfigError) as raised:
        resolve_lastmods([tmp_path / "a.md"], "commit")
    assert raised.value.option == "lastmod"
    assert "'commit'" in str(raised.value)


def test_no_sources_no_work():
    assert resolve_lastmods([], "auto").dates == {}


# ---- parse_lastmod / format_w3c -----------------------------------------------

PLUS2 = dt.timezone(dt.timedelta(hours=2))
MINUS0530 = dt.timezone(-dt.timedelta(hours=5, minutes=30))


@pytest.mark.parametrize(
    ("value", "parsed", "formatted"),
    [
        (dt.date(2024, 5, 1), dt.date(2024, 5, 1), "2024-05-01"),
        ("2024-05-01", dt.date(2024, 5, 1), "2024-05-01"),
        ("  2024-05-01\n", dt.date(2024, 5, 1), "2024-05-01"),
        ("2024-05-01 10:00", dt.datetime(2024, 5, 1, 10, tzinfo=UTC), "2024-05-01T10:00:00+00:00"),
        ("2024-05-01T10:00:30", dt.datetime(2024, 5, 1, 10, 0, 30, tzinfo=UTC), "2024-05-01T10:00:30+00:00"),
        ("2024-05-01T10:00:00Z", dt.datetime(2024, 5, 1, 10, tzinfo=UTC), "2024-05-01T10:00:00+00:00"),
        ("2024-05-01T10:00:00+02:00", dt.datetime(2024, 5, 1, 10, tzinfo=PLUS2), "2024-05-01T10:00:00+02:00"),
        ("2024-05-01T10:00+0200", dt.datetime(2024, 5, 1, 10, tzinfo=PLUS2), "2024-05-01T10:00:00+02:00"),
        ("2024-05-01 10:00:00 +02", dt.datetime(2024, 5, 1, 10, tzinfo=PLUS2), "2024-05-01T10:00:00+02:00"),
        ("2024-05-01T10:00:00-05:30", dt.datetime(2024, 5, 1, 10, tzinfo=MINUS0530), "2024-05-01T10:00:00-05:30"),
        ("2024-05-01T10:00:00.987654Z", dt.datetime(2024, 5, 1, 10, tzinfo=UTC), "2024-05-01T10:00:00+00:00"),
        ("2024-02-29t23:59:59z", dt.datetime(2024, 2, 29, 23, 59, 59, tzinfo=UTC), "2024-02-29T23:59:59+00:00"),
        (dt.datetime(2024, 5, 1, 10, 0, 0, 500), dt.datetime(2024, 5, 1, 10, tzinfo=UTC), "2024-05-01T10:00:00+00:00"),
        (
            dt.datetime(2024, 5, 1, 10, tzinfo=PLUS2),
            dt.datetime(2024, 5, 1, 10, tzinfo=PLUS2),
            "2024-05-01T10:00:00+02:00",
        ),
        # An offset with seconds has no W3C spelling: written in UTC instead.
        (
            dt.datetime(1900, 1, 1, 12, tzinfo=dt.timezone(dt.timedelta(minutes=9, seconds=21))),
            dt.datetime(1900, 1, 1, 12, tzinfo=dt.timezone(dt.timedelta(minutes=9, seconds=21))),
            "1900-01-01T11:50:39+00:00",
        ),
        ("0999-12-31", dt.date(999, 12, 31), "0999-12-31"),
    ],
)
def test_parse_and_format_w3c(value, parsed, formatted):
    result = parse_lastmod(value)
    assert result == parsed
    assert type(result) is type(parsed)
    if isinstance(result, dt.datetime):
        assert result.utcoffset() == parsed.utcoffset()
    assert format_w3c(value) == formatted
    assert format_w3c(formatted) == formatted  # our output reads back unchanged


@pytest.mark.parametrize(
    ("value", "says"),
    [
        ("", "not a date"),
        ("yesterday", "not a date"),
        ("May 1, 2024", "not a date"),
        ("2024-05", "not a date"),
        ("2024/05/01", "not a date"),
        ("24-05-01", "not a date"),
        ("2024-05-01T10", "not a date"),
        ("2024-05-01T10:00:00+2", "not a date"),
        ("2024-05-01 10:00 CEST", "not a date"),
        ("٢٠٢٤-٠٥-٠١", "not a date"),
        ("2024-13-01", "month must be in 1..12"),
        ("2023-02-29", "day is out of range"),
        ("2024-05-01T24:00:00Z", "hour must be in 0..23"),
        ("2024-05-01T10:00:60Z", "second must be in 0..59"),
        ("2024-05-01T10:00:00+24:00", "offset +24:00 is out of range"),
        (20240501, "is a int, not a date"),
        (None, "is a NoneType, not a date"),
        (True, "is a bool, not a date"),
    ],
)
def test_parse_lastmod_rejects_what_is_not_a_date(value, says):
    with pytest.raises(ValueError, match="lastmod") as raised:
        parse_lastmod(value)
    assert says in str(raised.value)
    assert repr(value) in str(raised.value)
    with pytest.raises(ValueError):
        format_w3c(value)
