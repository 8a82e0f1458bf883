"""Git history of the memory store: the append-only record, shown and enforced.

The invariant lives here once: for every change to a memory file, the old
content is a byte prefix of the new content; no memory file is deleted or
renamed away.  Line counts are not used (``numstat`` deletions == 0 passes an
insertion at the top and fails an append to a file without a final newline).

Speed: one ``git log --raw`` pass lists every change to ``.rawko/memories``
and one persistent ``git cat-file --batch`` process reads the blobs, instead
of a GitPython diff per commit.
"""

from __future__ import annotations

import os
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

from .gitrepo import (  # noqa: F401 - GitError, repository_state and files_at are part of history's interface too
    MEMORIES,
    BlobReader,
    GitError,
    RepositoryState,
    files_at,
    git,
    git_dir,
    locate_repository,
    repo_root,
    repository_state,
    repository_state_in,
    rev_sha,
    store_prefix,
    tree_blobs,
)
from .safeio import MEMORY_LIMIT, read_in_store

ZERO = "0" * 40
_MARK_FILE = "rawko-tui-verified"


@dataclass(frozen=True)
class Violation:
    kind: str  # rewritten | deleted | renamed | type-changed | torn-entry | history-rewritten
    path: str
    commit: str  # a sha, "index" or "working tree"
    message: str
    old_path: str | None = None
    line: int | None = None
    lost: tuple[str, ...] = ()  # lines of the old content that are gone or changed
    added: tuple[str, ...] = ()  # what stands there now

    def to_dict(self) -> dict:
        return {
            "kind": self.kind,
            "path": self.path,
            "commit": self.commit,
            "message": self.message,
            "oldPath": self.old_path,
            "line": self.line,
            "lost": list(self.lost),
            "now": list(self.added),
        }

    def __str__(self) -> str:
        where = self.commit if self.commit in ("index", "working tree") else f"commit {self.commit[:10]}"
        out = f"{where}: {self.path}: {self.message}"
        for line in self.lost:
            out += f"\n    - {line}"
        for line in self.added:
            out += f"\n    + {line}"
        return out


@dataclass
class VerifyReport:
    commits_checked: int = 0
    changes_checked: int = 0
    violations: list[Violation] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    head: str | None = None

    @property
    def ok(self) -> bool:
        return not self.violations

    def to_dict(self) -> dict:
        return {
            "ok": self.ok,
            "head": self.head,
            "commitsChecked": self.commits_checked,
            "changesChecked": self.changes_checked,
            "violations": [v.to_dict() for v in self.violations],
            "notes": self.notes,
        }


@dataclass(frozen=True)
class CommitInfo:
    sha: str
    author: str
    timestamp: int
    subject: str

    def to_dict(self) -> dict:
        return {"sha": self.sha, "author": self.author, "timestamp": self.timestamp, "subject": self.subject}


# --------------------------------------------------------------------------
# Running git
# --------------------------------------------------------------------------


# --------------------------------------------------------------------------
# The invariant
# --------------------------------------------------------------------------


def check_append(old: bytes, new: bytes, path: str, commit: str) -> Violation | None:
    """None when ``new`` starts with every byte of ``old``; otherwise what was lost."""
    if new.startswith(old):
        return None
    # the first byte that differs, and the lines around it
    limit = min(len(old), len(new))
    index = next((i for i in range(limit) if old[i] != new[i]), limit)
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
    return Violation("rewritten", path, commit, message, line=line_number, lost=tuple(lost[:5]), added=tuple(now))


def _parse_raw(out: bytes):
    """Yield (sha, parents, author, timestamp, subject, changes) from ``git log --raw -z``."""
    records = (b"\x00" + out).split(b"\x00\x01")  # each record starts "\x01<sha>"; the first has no NUL before it
    for record in records:
        if not record.strip(b"\x00\n"):
            continue
        head, _, rest = record.partition(b"\x00\x02")
        sha, parents, author, stamp, subject = head.decode("utf-8", "replace").lstrip("\n").split("\x00", 4)
        fields = rest.split(b"\x00")
        changes = []
        i = 0
        while i < len(fields):
            meta = fields[i].lstrip(b"\n")
            if not meta.startswith(b":"):
                i += 1
                continue
            parts = meta[1:].split(b" ")
            old_mode, new_mode, old_sha, new_sha, status = parts[0], parts[1], parts[2], parts[3], parts[4]
            status = status.decode()
            if status[0] in "RC":
                old_path, new_path = fields[i + 1].decode("utf-8", "surrogateescape"), fields[i + 2].decode("utf-8", "surrogateescape")
                i += 3
            else:
                old_path = new_path = fields[i + 1].decode("utf-8", "surrogateescape")
                i += 2
            changes.append((status, old_mode.decode(), new_mode.decode(), old_sha.decode(), new_sha.decode(), old_path, new_path))
        yield sha, parents.split(), author, int(stamp or 0), subject, changes


_LOG_FORMAT = "%x01%H%x00%P%x00%an%x00%at%x00%s%x00%x02"


def _is_memory(path: str, prefix: str) -> bool:
    return path.startswith(prefix + "/") and path.endswith(".md")


def _is_bare(path: Path) -> bool:
    try:
        return git(path, "rev-parse", "--is-bare-repository").strip() == b"true"
    except GitError:
        return False


def verify(
    root: Path, since: str | None = None, staged: bool = False, remember: bool = False, rev: str = "HEAD", history_only: bool = False
) -> VerifyReport:
    """Check the append-only rule over history (``since..rev``), the index and the working tree.

    ``history_only`` checks commits alone (a bare repository, as in a server's pre-receive hook).
    """
    bare = _is_bare(root)
    top = root if bare else repo_root(root)
    if top is None:
        raise GitError(f"{root} is not in a git repository: there is no history to verify")
    prefix = MEMORIES if bare else store_prefix(root, top)
    history_only = history_only or bare
    report = VerifyReport()
    head = rev_sha(top, rev)
    if head is None and rev != "HEAD":
        raise GitError(f"{rev!r} is not a commit in this repository")
    report.head = head
    if git(top, "rev-parse", "--is-shallow-repository").strip() == b"true":
        report.notes.append("shallow clone: commits before the shallow boundary are not verified")

    if head is not None and not staged:
        _check_remembered(top, head, report)
        rev_range = [f"{since}..{head}"] if since else [head]
        out = git(top, "log", "--raw", "-z", "-M", "--no-abbrev", "--diff-merges=first-parent", f"--format={_LOG_FORMAT}", *rev_range, "--", prefix)
        with BlobReader(top) as blobs:
            for sha, _parents, _author, _stamp, _subject, changes in _parse_raw(out):
                report.commits_checked += 1
                for change in changes:
                    _check_change(change, sha, prefix, blobs, report)
    if head is not None and not history_only:
        # the index against HEAD (what the next commit would record)
        out = git(top, "diff-index", "--cached", "-z", "-M", "--no-abbrev", "HEAD", "--", prefix)
        with BlobReader(top) as blobs:
            for change in _parse_diff_index(out):
                _check_change(change, "index", prefix, blobs, report)
            if not staged:
                # the working tree against HEAD
                out = git(top, "diff-index", "-z", "-M", "--no-abbrev", "HEAD", "--", prefix)
                for change in _parse_diff_index(out):
                    _check_change(change, "working tree", prefix, blobs, report, top=top)
    if not staged and not history_only:
        _check_torn_entries(root, report)
    if remember and report.ok and head is not None:
        mark = git_dir(top) / _MARK_FILE
        mark.write_text(head + "\n")
    return report


def _check_remembered(top: Path, head: str, report: VerifyReport) -> None:
    mark = git_dir(top) / _MARK_FILE
    if not mark.is_file():
        return
    previous = mark.read_text().strip()
    if not previous:
        return
    exists = rev_sha(top, previous) is not None
    is_ancestor = exists and subprocess.run(["git", "merge-base", "--is-ancestor", previous, head], cwd=top).returncode == 0
    if not is_ancestor:
        report.violations.append(
            Violation(
                "history-rewritten",
                MEMORIES,
                previous,
                f"the last verified HEAD {previous[:10]} is no longer in the history of HEAD: history was rewritten "
                "(a force-push or rebase dropped or changed commits); verified memory history may have been lost",
            )
        )


def _parse_diff_index(out: bytes):
    fields = out.split(b"\x00")
    i = 0
    while i < len(fields):
        meta = fields[i]
        if not meta.startswith(b":"):
            i += 1
            continue
        old_mode, new_mode, old_sha, new_sha, status = meta[1:].decode().split(" ")
        if status[0] in "RC":
            old_path, new_path = fields[i + 1].decode("utf-8", "surrogateescape"), fields[i + 2].decode("utf-8", "surrogateescape")
            i += 3
        else:
            old_path = new_path = fields[i + 1].decode("utf-8", "surrogateescape")
            i += 2
        yield status, old_mode, new_mode, old_sha, new_sha, old_path, new_path


def _check_change(change, commit: str, prefix: str, blobs: BlobReader, report: VerifyReport, top: Path | None = None) -> None:
    status, old_mode, new_mode, old_sha, new_sha, old_path, new_path = change
    kind = status[0]
    if not (_is_memory(old_path, prefix) or _is_memory(new_path, prefix)):
        return
    report.changes_checked += 1
    shown = new_path[len(prefix) - len(MEMORIES) :] if prefix != MEMORIES else new_path
    shown_old = old_path[len(prefix) - len(MEMORIES) :] if prefix != MEMORIES else old_path
    if kind == "A":
        return
    if kind == "D":
        if _is_memory(old_path, prefix):
            report.violations.append(Violation("deleted", shown_old, commit, "memory file deleted"))
        return
    if kind == "R":
        if _is_memory(old_path, prefix):
            report.violations.append(Violation("renamed", shown_old, commit, f"memory file renamed away to {shown}", old_path=shown_old))
        return
    if kind == "T" or old_mode != new_mode and "120000" in (old_mode, new_mode):
        report.violations.append(Violation("type-changed", shown, commit, f"file type changed ({old_mode} -> {new_mode})"))
        return
    if kind == "M":
        old = blobs.read(old_sha)
        if new_sha == ZERO and top is not None:  # a working-tree file git has not hashed
            try:
                new = read_in_store(top, new_path, MEMORY_LIMIT)  # never through a link (to /dev/zero, a FIFO)
            except OSError as exc:
                report.violations.append(Violation("deleted", shown, commit, f"cannot be read: {exc.strerror}"))
                return
        else:
            new = blobs.read(new_sha)
        violation = check_append(old, new, shown, commit)
        if violation is not None:
            report.violations.append(violation)


def _check_torn_entries(root: Path, report: VerifyReport) -> None:
    from .store import load_store
    from .writer import interrupted_writes

    for memory in load_store(root).files:
        for suspect in memory.suspect_blocks:
            report.violations.append(Violation("torn-entry", memory.rel_path, "working tree", suspect.reason, line=suspect.line))
    for name, what in interrupted_writes(root):
        report.violations.append(Violation("torn-entry", f"{MEMORIES}/{name}", "working tree", what))


# --------------------------------------------------------------------------
# Per-file history and provenance
# --------------------------------------------------------------------------


@dataclass
class FileHistory:
    path: str
    commits: list[CommitInfo]  # oldest first
    entry_commits: list[CommitInfo | None]  # for each entry of the current file: the commit that added it
    badge: str  # verified | violated | uncommitted-append | uncommitted-rewrite | untracked | not-a-repo
    detail: str

    def to_dict(self) -> dict:
        return {
            "path": self.path,
            "badge": self.badge,
            "detail": self.detail,
            "commits": [c.to_dict() for c in self.commits],
            "entries": [c.sha if c else None for c in self.entry_commits],
        }


def file_history(root: Path, rel_path: str, entry_offsets: list[int]) -> FileHistory:
    """Commits of one memory file, which commit added each entry, and its append-only badge.

    ``entry_offsets`` are the byte offsets where the current file's entries start.
    """
    top = repo_root(root)
    if top is None:
        return FileHistory(rel_path, [], [None] * len(entry_offsets), "not-a-repo", "not in a git repository: history is not available")
    path = root / rel_path
    path_in_repo = Path(os.path.relpath(path.parent.resolve() / path.name, top.resolve())).as_posix()  # a memory that is a link: its own history
    out = git(top, "log", "--raw", "-z", "--no-abbrev", "--no-renames", "--diff-merges=first-parent", f"--format={_LOG_FORMAT}", "--", path_in_repo)
    commits: list[CommitInfo] = []
    sizes: list[tuple[CommitInfo, int]] = []
    badge, detail = "verified", "every commit only appended to this file"
    with BlobReader(top) as blobs:
        for sha, _parents, author, stamp, subject, changes in reversed(list(_parse_raw(out))):
            info = CommitInfo(sha, author, stamp, subject)
            commits.append(info)
            for status, _om, _nm, old_sha, new_sha, _op, new_path in changes:
                if new_path != path_in_repo:
                    continue
                if status == "M":
                    old, new = blobs.read(old_sha), blobs.read(new_sha)
                    if not new.startswith(old) and badge == "verified":
                        badge, detail = "violated", f"commit {sha[:10]} rewrote it: {check_append(old, new, rel_path, sha).message}"
                    sizes.append((info, len(new)))
                elif status == "A":
                    sizes.append((info, len(blobs.read(new_sha))))
        if not commits:
            return FileHistory(rel_path, [], [None] * len(entry_offsets), "untracked", "not committed yet")
        head_blob = git(top, "rev-parse", f"HEAD:{path_in_repo}", check=False).decode().strip()
        try:
            current = read_in_store(top, path_in_repo, MEMORY_LIMIT)
        except OSError:
            current = b""
        committed = blobs.read(head_blob) if head_blob and " " not in head_blob else b""
    if current != committed:
        if current.startswith(committed):
            if badge == "verified":
                badge, detail = "uncommitted-append", f"{len(current) - len(committed)} bytes appended since the last commit"
        else:
            badge, detail = "uncommitted-rewrite", "the working copy rewrites committed content"
    entry_commits = []
    for offset in entry_offsets:
        found = next((info for info, size in sizes if size > offset), None)
        entry_commits.append(found)
    return FileHistory(rel_path, commits, entry_commits, badge, detail)


def uncommitted_rewrites(root: Path) -> set[str]:
    """Memory files (paths from the store root) whose working copy no longer starts with their committed bytes.

    One ``git diff`` names the changed files; only those are compared. Outside
    git, or before the first commit, nothing is called rewritten.
    """
    root = Path(root)
    top = repo_root(root)
    if top is None:
        return set()
    prefix = store_prefix(root, top)
    changed = git(top, "diff", "HEAD", "--name-only", "--no-renames", "-z", "--", prefix, check=False)
    names = [n for n in changed.decode("utf-8", "surrogateescape").split("\0") if n]
    found: set[str] = set()
    if not names:
        return found
    store_rel = Path(os.path.relpath(root.resolve(), top.resolve())).as_posix()
    committed = tree_blobs(top, "HEAD", prefix)  # every memory file in HEAD, in one git call
    with BlobReader(top) as blobs:
        for name in names:
            if name not in committed:
                continue  # new since HEAD: nothing committed to rewrite
            sha = committed[name][1]
            try:
                current = read_in_store(top, name, MEMORY_LIMIT)
            except OSError:
                current = b""  # deleted: every committed byte is gone
            if not current.startswith(blobs.read(sha)):
                found.add(name if store_rel == "." else os.path.relpath(name, store_rel))
    return found


def commit_diff(root: Path, sha: str, rel_path: str | None = None) -> str:
    """The patch of one commit (limited to one file when given)."""
    top = repo_root(root) or root
    args = ["show", "--format=%H%n%an <%ae>%n%ad%n%n%s%n%n%b", "--no-color", sha]
    if rel_path:
        args += ["--", Path(os.path.relpath((root / rel_path).resolve(), top.resolve())).as_posix()]
    return git(top, *args).decode("utf-8", "replace")


# --------------------------------------------------------------------------
# A store as it was at a revision
# --------------------------------------------------------------------------


