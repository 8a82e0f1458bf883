"""A git repository as the rest of the core needs it: running git, where the repository is, what state it is in, files at a revision.

The plumbing under ``history`` (the append-only record), ``writer`` (refusing
to write mid-rebase, committing) and ``store`` (a store at a revision); it
imports nothing else of the core, so none of them imports another through it.
"""

from __future__ import annotations

import os
import stat
import subprocess
from pathlib import Path

from .. import records
from .safeio import MEMORY_LIMIT, read_regular

MEMORIES = ".rawko/memories"
_OPERATIONS = (  # files in the git dir that mean an operation is half done, and what to do
    ("rebase-merge", "a rebase is in progress", "git rebase --continue or --abort"),
    ("rebase-apply", "a rebase or `git am` is in progress", "git rebase --continue or --abort"),
    ("MERGE_HEAD", "a merge is in progress", "commit the merge or git merge --abort"),
    ("CHERRY_PICK_HEAD", "a cherry-pick is in progress", "git cherry-pick --continue or --abort"),
    ("REVERT_HEAD", "a revert is in progress", "git revert --continue or --abort"),
    ("BISECT_LOG", "a bisect is in progress", "git bisect reset"),
)


class GitError(Exception):
    """git could not answer; the message says why in plain words."""


# A store is a stranger's clone, its git config and attributes included. No git command
# rawko-tui runs may start a program they name, so every one runs with these settings
# (given as command-line configuration, which outranks every config file):
#   core.fsmonitor        the hook git asks which files changed (run by any look at the working tree)
#   filter.<d>.clean/smudge/process   every filter driver defined in any config file, emptied (an
#                         empty command is no filter in git's convert.c; required=false, or git
#                         would refuse the file): files are compared as the bytes they are
#   log.showSignature     runs gpg.program / gpg.ssh.program on each signed commit
#   log.follow            (the person's own) makes `git log -- <pathspec>` fail on a glob pathspec
# and in the environment:
#   GIT_ALLOW_PROTOCOL    no transport at all: a partial clone's missing object would otherwise be
#                         fetched through remote.<r>.uploadpack, core.sshCommand or a remote helper
#   GIT_NO_LAZY_FETCH     the same, said directly (git 2.45 and later)
#   GIT_NO_REPLACE_OBJECTS  refs/replace/* (which anyone can push) never stand in for the real history
#   GIT_GRAFT_FILE=/dev/null  nor does a planted .git/info/grafts (which rewrites parents, hiding commits)
#   GIT_OPTIONAL_LOCKS=0  a read never writes the index, so no post-index-change hook
# Patch-making commands (diff, log, show, diff-*) also get --no-ext-diff (diff.external,
# diff.<d>.command), --no-textconv (diff.<d>.textconv, and the smudge it would run first) and
# --ignore-submodules=dirty (no git run inside a submodule, under that submodule's own config).
# Not needed: core.pager (output is captured, never a terminal; --no-pager too), core.hooksPath
# (no reading command runs a hook; a commit runs the repository's hooks on purpose),
# core.sshCommand and credential helpers (no transport is allowed), include.path (it only reads
# more config; the drivers it defines are found like any other), merge drivers (rawko-tui never merges).
_NEUTRAL_CONFIG = (("core.fsmonitor", "false"), ("log.showSignature", "false"), ("log.follow", "false"))
# Commands that never convert a file through a filter (no working tree, no --filters/--textconv):
# the drivers need not be looked up for them (one `git config` process fewer per call).
_NEVER_FILTER = frozenset({"rev-parse", "ls-tree", "log", "diff-tree", "merge-base", "for-each-ref", "symbolic-ref", "config", "var", "cat-file"})
_PATCH_COMMANDS = frozenset({"diff", "diff-index", "diff-files", "diff-tree", "log", "show", "whatchanged"})
_PATCH_FLAGS = ("--no-ext-diff", "--no-textconv", "--ignore-submodules=dirty")


def _base_env() -> dict[str, str]:
    return {
        **os.environ,
        "GIT_OPTIONAL_LOCKS": "0",
        "LC_ALL": "C",
        "GIT_ALLOW_PROTOCOL": "none",
        "GIT_NO_LAZY_FETCH": "1",
        "GIT_NO_REPLACE_OBJECTS": "1",
        "GIT_GRAFT_FILE": os.devnull,
        "GIT_TERMINAL_PROMPT": "0",
    }


def _defined_filter_drivers(cwd: Path, env: dict[str, str]) -> list[str]:
    """The name of every filter driver any config file (includes followed) defines for the repository at ``cwd``."""
    try:
        proc = subprocess.run(["git", "--no-pager", "config", "-z", "--get-regexp", r"^filter\."], cwd=cwd, capture_output=True, env=env, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return []
    names = []
    for record in proc.stdout.split(b"\x00"):
        key = record.partition(b"\n")[0].decode("utf-8", "surrogateescape")
        driver = key[len("filter.") : key.rfind(".")] if key.count(".") >= 2 else ""
        if driver and driver not in names:
            names.append(driver)
    return names


def safe_env(cwd: Path, command: str | None = None) -> dict[str, str]:
    """The environment every git command rawko-tui runs in ``cwd`` gets (see above): nothing the repository names is run.

    ``command`` (the git subcommand) may spare the filter drivers' lookup when it never filters.
    """
    env = _base_env()
    settings = list(_NEUTRAL_CONFIG)
    drivers = [] if command in _NEVER_FILTER else _defined_filter_drivers(cwd, env)
    for driver in drivers:
        settings += [(f"filter.{driver}.{key}", "") for key in ("clean", "smudge", "process")]
        settings.append((f"filter.{driver}.required", "false"))
    try:
        first = int(env.get("GIT_CONFIG_COUNT") or 0)  # the user's own settings stay, before ours
    except ValueError:
        first = 0
    for index, (key, value) in enumerate(settings, start=first):
        env[f"GIT_CONFIG_KEY_{index}"] = key
        env[f"GIT_CONFIG_VALUE_{index}"] = value
    env["GIT_CONFIG_COUNT"] = str(first + len(settings))
    return env


_OPTIONS_WITH_A_VALUE = frozenset({"-c", "-C", "--git-dir", "--work-tree", "--namespace", "--config-env"})


def _subcommand_at(args: list[str]) -> int:
    """Where the subcommand stands in ``args``, after git's own options (``--literal-pathspecs``, ``-c k=v``…)."""
    index = 0
    while index < len(args) and args[index].startswith("-"):
        index += 2 if args[index] in _OPTIONS_WITH_A_VALUE else 1
    return index


def git_command(args: tuple[str, ...] | list[str]) -> list[str]:
    """``git …`` with the flags that keep a patch-making command from running the repository's programs."""
    args = list(args)
    at = _subcommand_at(args)
    if at < len(args) and args[at] in _PATCH_COMMANDS:
        args[at + 1 : at + 1] = _PATCH_FLAGS
    return ["git", "--no-pager", *args]


def git(root: Path, *args: str, check: bool = True, input_bytes: bytes | None = None) -> bytes:
    """Run ``git *args`` in ``root`` (never starting a program the repository's config or attributes name); its stdout."""
    if not Path(root).is_dir():
        raise GitError(f"{root} is not a folder")
    try:
        at = _subcommand_at(list(args))
        converts = any(arg in ("--filters", "--textconv") or arg.startswith("--path") for arg in args)
        command = None if converts or at >= len(args) else args[at]
        proc = subprocess.run(git_command(args), cwd=root, capture_output=True, input=input_bytes, env=safe_env(root, command), timeout=600)
    except FileNotFoundError:
        raise GitError("git is not installed") from None
    except subprocess.TimeoutExpired:
        raise GitError(f"git {args[0]} did not finish in time") from None
    if check and proc.returncode != 0:
        raise GitError(proc.stderr.decode("utf-8", "replace").strip() or f"git {args[0]} failed")
    return proc.stdout


def repo_root(path: Path) -> Path | None:
    """The top of the git work tree holding ``path``, or None when it is not in one."""
    try:
        out = git(path, "rev-parse", "--show-toplevel")
    except GitError:
        return None
    return Path(out.decode().strip())


LAST_COMMITS_BY_PATH = 1000  # more files than this are asked about by their folder (an argument list has a limit)


def last_commit_ms(root: Path, rel_paths: list[str]) -> dict[str, float]:
    """When the last commit on HEAD that changed each of these files (paths from ``root``) was made, in ms since the epoch.

    A file no commit holds is left out, as is every file when ``root`` is not in a repository. One ``git log``.
    """
    top = repo_root(root)
    if top is None or not rel_paths:
        return {}
    rel = Path(os.path.relpath(Path(root).resolve(), top.resolve())).as_posix()
    in_repo = {(p if rel == "." else f"{rel}/{p}"): p for p in rel_paths}
    asked = rel_paths if len(rel_paths) <= LAST_COMMITS_BY_PATH else sorted({p.rsplit("/", 1)[0] for p in rel_paths})
    try:
        out = git(root, "--literal-pathspecs", "log", "-z", "--format=%x01%ct", "--name-only", "--no-renames", "HEAD", "--", *asked, check=False)
    except GitError:
        return {}
    found: dict[str, float] = {}
    for record in out.split(b"\x01")[1:]:  # newest first: the first time a file is named is its last commit
        when, _, names = record.partition(b"\0")
        for name in names.lstrip(b"\n").split(b"\0"):
            path = in_repo.get(name.decode("utf-8", "surrogateescape"))
            if path is not None and path not in found and when.strip().isdigit():
                found[path] = int(when) * 1000.0
    return found


@records.record(frozen=True)
class RepositoryState:
    """What the store's repository is in the middle of; anything here makes rawko-tui read-only."""

    in_repo: bool
    operation: str | None = None  # "a rebase is in progress", ...
    finish: str | None = None  # how to end it
    index_locked: bool = False
    detached: bool = False
    shallow: bool = False

    @property
    def write_blocker(self) -> str | None:
        """Why writing now would be unsafe (None: it is safe)."""
        if self.operation:
            return f"{self.operation} ({self.finish} first)"
        if self.index_locked:
            return "the git index is locked (.git/index.lock): another git command is running, or one crashed; remove the lock once none is running"
        if self.detached:
            return "HEAD is detached (no branch is checked out), so a commit could be lost; check out a branch first"
        return None

    def describe(self) -> str | None:
        """One line for a banner, or None when there is nothing to say."""
        if not self.in_repo:
            return "not a git repository: history unavailable"
        blocker = self.write_blocker
        if blocker:
            return f"read-only: {blocker}"
        if self.shallow:
            return "a shallow clone: history before its first commit is not available"
        return None


def locate_repository(path: Path) -> tuple[Path, bool] | None:
    """(the git dir, whether the clone is shallow) of the repository holding ``path``; None outside git."""
    try:
        out = git(path, "rev-parse", "--absolute-git-dir", "--is-shallow-repository").decode().split("\n")
    except GitError:
        return None
    return Path(out[0]), len(out) > 1 and out[1].strip() == "true"


def repository_state(path: Path) -> RepositoryState:
    """The state of the repository holding ``path`` (one git call, then files in its git dir; never takes a lock)."""
    return repository_state_in(locate_repository(path))


def repository_state_in(located: tuple[Path, bool] | None) -> RepositoryState:
    """The state from what ``locate_repository`` gave: a caller that polls locates once (the git dir does not move)."""
    if located is None:
        return RepositoryState(in_repo=False)
    git_dir, shallow = located
    try:
        # a branch (born or not) is "ref: refs/heads/…"; HEAD naming a tag or a remote-tracking ref is as
        # unsafe to commit on as a detached one (the next fetch, or the tag's meaning, loses the commit)
        detached = not read_regular(git_dir / "HEAD", 4096).startswith(b"ref: refs/heads/")
    except OSError:
        detached = False
    operation = next(((what, finish) for name, what, finish in _OPERATIONS if (git_dir / name).exists()), (None, None))
    return RepositoryState(
        in_repo=True,
        operation=operation[0],
        finish=operation[1],
        index_locked=(git_dir / "index.lock").exists(),
        detached=detached,
        shallow=shallow,
    )


def store_prefix(root: Path, top: Path) -> str:
    """The store's memories folder as a path inside the repository (forward slashes)."""
    rel = Path(os.path.relpath(root.resolve(), top.resolve())).as_posix()
    return MEMORIES if rel == "." else f"{rel}/{MEMORIES}"


class BlobTooLarge(GitError):
    """A blob over the size limit: never held in memory (a 12 MB repository can hold a 2.5 GB blob of zeros)."""


class BlobReader:
    """One ``git cat-file --batch`` process for many blobs, each at most ``limit`` bytes (larger: ``BlobTooLarge``)."""

    def __init__(self, top: Path, limit: int = MEMORY_LIMIT):
        self.limit = limit
        self.proc = subprocess.Popen(
            git_command(["cat-file", "--batch"]),
            cwd=top,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=safe_env(top, "cat-file"),  # --batch: no filter, no textconv
        )

    def read(self, sha: str) -> bytes:
        data = self.read_optional(sha)
        if data is None:
            raise GitError(f"object {sha} is missing (a shallow, partial or broken clone? rawko-tui never fetches)")
        return data

    def read_optional(self, name: str) -> bytes | None:
        """The blob ``name`` (a sha, or ``rev:path``) names; None when there is none (or it is not a blob)."""
        found = self.read_object(name)
        return found[2] if found is not None and found[1] == "blob" else None

    def read_object(self, name: str) -> tuple[str, str, bytes] | None:
        """(its sha, its type, its bytes) of the object ``name`` names (a sha, ``rev:path``, ``rev^{tree}``); None when none."""
        assert self.proc.stdin and self.proc.stdout
        try:
            self.proc.stdin.write(name.encode("utf-8", "surrogateescape") + b"\n")
            self.proc.stdin.flush()
        except OSError:
            raise GitError(f"git cat-file stopped before {name} could be read") from None
        header = self.proc.stdout.readline().split()
        if len(header) < 3 or header[-1] == b"missing" or header[-1] == b"ambiguous":
            return None
        size = int(header[-1])
        if size > self.limit:  # read past, a chunk at a time: memory stays bounded whatever the blob
            left = size + 1
            while left:
                chunk = self.proc.stdout.read(min(left, 1 << 20))
                if not chunk:
                    break
                left -= len(chunk)
            raise BlobTooLarge(f"{name} is {size:,} bytes, over the {self.limit:,}-byte limit for a memory file: not read")
        data = self.proc.stdout.read(size)
        self.proc.stdout.read(1)  # the newline after the content
        return header[0].decode(), header[-2].decode(), data

    def close(self) -> None:
        if self.proc.stdin:
            try:
                self.proc.stdin.close()
            except OSError:  # it had stopped already
                pass
        self.proc.wait(timeout=10)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def tree_problem(data: bytes) -> str | None:
    """Why a tree object is malformed in a way that changes what a checkout holds (None: it is not).

    Two entries of one name (fsck's ``duplicateEntries``): git's diff pairs one of them, a checkout
    writes the other, so a history that looks append-only can check out a file without its entries.
    Entries out of git's order (``treeNotSorted``) make the same ambiguity possible.
    """
    names: list[bytes] = []
    at = 0
    while at < len(data):
        space = data.find(b" ", at)
        nul = data.find(b"\x00", space)
        if space < 0 or nul < 0 or nul + 21 > len(data):
            return "a tree object that cannot be read (truncated)"
        mode, name = data[at:space], data[space + 1 : nul]
        names.append(name + b"/" if mode.startswith(b"4") else name)  # git sorts a folder as if its name ended in "/"
        at = nul + 21
    bare = [n.rstrip(b"/") for n in names]
    if len(set(bare)) != len(bare):
        twice = next(n for n in bare if bare.count(n) > 1)
        return f"the tree lists {twice.decode('utf-8', 'replace')!r} twice: a checkout holds one of them, git's diff compares the other"
    if names != sorted(names):
        return "the tree's entries are out of git's order: what a checkout holds and what git's diff compares can differ"
    return None


def write_git_file(path: Path, text: str, what: str, executable: bool = False) -> None:
    """A small file rawko-tui keeps in a git dir (the verified HEAD, a hook), written in place: never through a link
    planted under its name, never blocking on a FIFO (``O_NONBLOCK``), only ever a regular file. ``what`` names it
    in the error."""
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC, 0o755 if executable else 0o644)
    except OSError as exc:
        raise GitError(f"cannot write {what} ({path}): {exc.strerror or exc}") from None
    with os.fdopen(fd, "w") as out:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise GitError(f"cannot write {what} ({path}): it is not a regular file (a FIFO or a device)")
        out.truncate(0)
        out.write(text)
        if executable:
            os.fchmod(fd, os.fstat(fd).st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)


def rev_sha(top: Path, rev: str) -> str | None:
    try:
        return git(top, "rev-parse", "--verify", "--quiet", rev + "^{commit}").decode().strip() or None
    except GitError:
        return None


def git_dir(top: Path) -> Path:
    return Path(git(top, "rev-parse", "--absolute-git-dir").decode().strip())


def store_at(root: Path, rev: str) -> tuple[Path, str, str]:
    """(repository top, commit, the store's ``.rawko`` path in the repository) for reading a store at ``rev``;
    GitError naming what is missing."""
    top = repo_root(root)
    if top is None:
        raise GitError(f"{root} is not in a git repository: --at needs history")
    sha = rev_sha(top, rev)
    if sha is None:
        raise GitError(f"{rev!r} is not a commit in this repository")
    return top, sha, store_prefix(root, top)[: -len("/memories")]


def files_at(root: Path, rev: str) -> list[tuple[str, str, bytes | BlobTooLarge]]:
    """(path inside .rawko/, mode, content) of every file under .rawko/ at ``rev``; a blob over the limit is its ``BlobTooLarge``."""
    top, sha, prefix = store_at(root, rev)
    found = []
    with BlobReader(top) as blobs:
        for name, (mode, blob) in tree_blobs(top, sha, prefix).items():
            try:
                data: bytes | BlobTooLarge = blobs.read(blob)
            except BlobTooLarge as exc:
                data = exc
            found.append((name[len(prefix) + 1 :], mode, data))
    return found


def tree_blobs(top: Path, rev: str, *paths: str) -> dict[str, tuple[str, str]]:
    """Every file under each of ``paths`` (folders or files, taken literally) at ``rev``: its path from the top of the
    repository -> (mode, blob sha); {} when rev has none."""
    if not paths:
        return {}
    found = {}
    out = git(top, "--literal-pathspecs", "ls-tree", "-r", "-z", "--full-tree", rev, "--", *paths, check=False)
    for record in out.split(b"\x00"):
        meta, _, path = record.partition(b"\t")
        if meta.count(b" ") == 2:
            mode, kind, blob = meta.decode().split(" ")
            if kind == "blob":
                found[path.decode("utf-8", "surrogateescape")] = (mode, blob)
    return found



# --------------------------------------------------------------------------
# A working copy in committed form: git's clean conversion of line endings, in Python
# --------------------------------------------------------------------------
#
# Whether an agent's ``>>`` is an append is a question about what git would
# commit, not about the bytes on disk: with ``*.md text eol=crlf`` the working
# copy holds CRLF while the blob holds LF, so the raw bytes never start with the
# committed ones.  ``clean_conversions`` asks git which conversion applies to
# each path (``git check-attr``, ``core.autocrlf``), and ``CleanConversion.to_git``
# applies it as convert.c's ``crlf_to_git`` does.  A path whose conversion runs a
# program (a filter driver) or re-encodes text cannot be compared here: its
# ``unsupported`` says why.

_CONVERSION_ATTRIBUTES = ("text", "eol", "crlf", "ident", "filter", "working-tree-encoding")
# the bytes gather_stats counts as non-printable: controls other than BS, HT, LF, FF, CR, ESC; and DEL
_NON_PRINTABLE = bytes(c for c in range(32) if c not in (8, 9, 10, 12, 13, 27)) + b"\x7f"


@records.record(frozen=True)
class CleanConversion:
    """What ``git add`` does to one path's working copy before storing it (the clean direction).

    ``action``: ``none`` (stored as it is), ``text`` (CRLF becomes LF) or ``auto``
    (the same, unless the bytes look binary or the committed blob holds CRLF
    already: git's "safer autocrlf").  ``unsupported``: why git's conversion of
    this path cannot be reproduced without running a program or re-encoding it.
    """

    action: str = "none"
    unsupported: str | None = None

    def to_git(self, data: bytes, committed: bytes = b"") -> bytes:
        """``data`` as git would store it; ``committed``: the blob git compares against (for ``auto``)."""
        if self.action == "none" or b"\r\n" not in data:
            return data
        if self.action == "auto" and (_looks_binary(data) or _has_crlf_text(committed)):
            return data
        return data.replace(b"\r\n", b"\n")  # only a CR before an LF goes, as in crlf_to_git


def _looks_binary(data: bytes) -> bool:
    """convert.c's ``convert_is_binary`` on ``gather_stats``: a lone CR, a NUL, or too many control bytes."""
    crlf = data.count(b"\r\n")
    if data.count(b"\r") > crlf or b"\x00" in data:
        return True
    non_printable = len(data) - len(data.translate(None, _NON_PRINTABLE))
    if data.endswith(b"\x1a"):  # a final Ctrl-Z (DOS end of file) is not counted
        non_printable -= 1
    printable = len(data) - non_printable - data.count(b"\r") - data.count(b"\n")
    return (printable >> 7) < non_printable


def _has_crlf_text(blob: bytes) -> bool:
    """convert.c's ``has_crlf_in_index``: the committed text holds CRLF, so ``auto`` leaves CRs alone."""
    return b"\r\n" in blob and not _looks_binary(blob)


def _attribute_action(text: str, crlf: str, eol: str, autocrlf: str) -> str:
    """convert.c's ``convert_attrs``, reduced to what the clean direction does: none, text or auto."""

    def check(value: str) -> str | None:
        return {"set": "text", "unset": "none", "input": "text", "auto": "auto"}.get(value)

    action = check(text) or check(crlf)
    if action is None and eol in ("lf", "crlf"):
        action = "text"  # eol=... on a path whose text attribute is unspecified makes it text
    if action is None:
        action = "auto" if autocrlf in ("true", "input") else "none"
    return action


def _autocrlf(top: Path) -> str:
    value = git(top, "config", "--get", "core.autocrlf", check=False).decode("utf-8", "replace").strip().lower()
    if value == "input":
        return "input"
    return "true" if value in ("true", "yes", "on", "1") or value.isdigit() and int(value) != 0 else "false"


def clean_conversions(top: Path, paths: list[str]) -> dict[str, CleanConversion]:
    """The clean conversion of each path (from the top of the work tree): one ``git check-attr`` for all of them."""
    if not paths:
        return {}
    names = b"".join(p.encode("utf-8", "surrogateescape") + b"\x00" for p in paths)
    out = git(top, "check-attr", "-z", "--stdin", *_CONVERSION_ATTRIBUTES, input_bytes=names).split(b"\x00")
    attributes: dict[str, dict[str, str]] = {}
    for i in range(0, len(out) - 2, 3):
        path, name, value = (part.decode("utf-8", "surrogateescape") for part in out[i : i + 3])
        attributes.setdefault(path, {})[name] = value
    autocrlf = _autocrlf(top)
    drivers = _filter_drivers(top) if any(a.get("filter", "unspecified") not in ("unspecified", "unset") for a in attributes.values()) else set()
    found = {}
    for path in paths:
        attrs = attributes.get(path, {})
        get = lambda name: attrs.get(name, "unspecified")  # noqa: E731
        action = _attribute_action(get("text"), get("crlf"), get("eol"), autocrlf)
        unsupported = None
        if get("filter") not in ("unspecified", "unset") and get("filter") in drivers:
            unsupported = f"git runs the filter driver {get('filter')!r} (filter.{get('filter')}.clean) on it, a program rawko-tui cannot reproduce"
        elif get("working-tree-encoding") not in ("unspecified", "unset", "set"):
            unsupported = f"git re-encodes it from {get('working-tree-encoding')} (working-tree-encoding), which rawko-tui does not reproduce"
        elif get("ident") == "set":
            unsupported = "git rewrites its $Id$ keywords (the ident attribute), which rawko-tui does not reproduce"
        found[path] = CleanConversion("none" if unsupported else action, unsupported)
    return found


def _filter_drivers(top: Path) -> set[str]:
    """The filter drivers configured with a program (``filter.<name>.clean`` or ``.process``); an unconfigured one does nothing."""
    out = git(top, "config", "-z", "--get-regexp", r"^filter\.", check=False).decode("utf-8", "surrogateescape")
    drivers = set()
    for item in out.split("\x00"):
        key = item.split("\n", 1)[0]
        if key.startswith("filter.") and key.endswith((".clean", ".process")):
            drivers.add(key[len("filter.") : key.rfind(".")])
    return drivers


# --------------------------------------------------------------------------
# Naming what a change lost
# --------------------------------------------------------------------------


@records.record(frozen=True)
class Rewrite:
    """Where ``new`` stops keeping ``old`` as a prefix, in a person's terms: the line, what is gone, what stands there now."""

    line: int
    message: str
    lost: tuple[str, ...]
    now: tuple[str, ...]

    def lines(self) -> str:
        return "".join(f"\n    - {line}" for line in self.lost) + "".join(f"\n    + {line}" for line in self.now)


def rewrite_of(old: bytes, new: bytes) -> Rewrite | None:
    """None when ``new`` starts with every byte of ``old``; otherwise the lines lost (as ``history.check_append`` names them)."""
    if new.startswith(old):
        return None
    index = first_difference(old, new)
    line_start = old.rfind(b"\n", 0, index) + 1
    line_number = old.count(b"\n", 0, line_start) + 1
    old_lines = old[line_start:].decode("utf-8", "replace").split("\n")
    new_lines = new[line_start:].decode("utf-8", "replace").split("\n")
    lost = [line for line in old_lines[:5] if line not in new_lines[:50]] or old_lines[:1]
    now = ([line for line in new_lines[:10] if line not in old_lines[:10]] or new_lines[:1])[:3] if index < len(new) else []
    if len(new) < len(old) and new_lines == old_lines[: len(new_lines)]:
        message = f"truncated: {len(old) - len(new)} bytes cut from the end (line {line_number} on)"
    else:
        message = f"rewritten at line {line_number}: old content is not kept as a prefix"
    return Rewrite(line_number, message, tuple(lost[:5]), tuple(now))


def first_difference(old: bytes, new: bytes) -> int:
    """The index of the first byte where the two differ (the shorter one's length when one is a prefix of the other).

    Halves compared in C (memcmp), not a Python step per byte."""
    low, high = 0, min(len(old), len(new))
    while low < high:
        middle = (low + high + 1) // 2
        if old[low:middle] == new[low:middle]:
            low = middle
        else:
            high = middle - 1
    return low
