"""Git history of the memory store: the append-only record, shown and enforced.

The invariant lives here once: for every change to a memory file, the old
content is a byte prefix of the new content; no memory file is deleted or
renamed away.  Line counts are not used (``numstat`` deletions == 0 passes an
insertion at the top and fails an append to a file without a final newline).
A merge must keep every entry each parent holds (``check_merge``); a push must
lose nothing its ref held, whatever the shape of history (``verify_push``).
Memory files are ``*.md`` under any ``.rawko/memories/`` folder of the
repository: a store at the top or in a subfolder.

Speed: one ``git log --raw`` pass lists every change to memory files, one
``git diff-tree --stdin`` answers for every merge, and one persistent
``git cat-file --batch`` process reads the blobs, instead of a GitPython diff
per commit.
"""

from __future__ import annotations

import errno
import os
import re
import sys
from pathlib import Path

from .. import records
from ..records import field, replace
from ..disk.gitrepo import (
    MEMORIES,
    BlobReader,
    BlobTooLarge,
    GitError,
    clean_conversions,
    first_difference,
    RepositoryState,
    files_at,
    git,
    git_dir,
    locate_repository,
    repo_root,
    repository_state,
    repository_state_in,
    rev_sha,
    rewrite_of,
    store_prefix,
    tree_blobs,
    tree_problem,
    write_git_file,
)
from ..disk.safeio import MEMORY_LIMIT, read_in_store, read_regular
from ..text.safetext import clean_name, plural

_MARK_FILE = "rawko-tui-verified"
# Every memory file of the repository, whatever store holds it: *.md under any .rawko/memories/
# folder, at the top or in a subfolder (app/.rawko/memories/). The .md test is made in Python.
MEMORY_PATHSPEC = ":(glob)**/.rawko/memories/**"
_MEMORY_DIR = ".rawko/memories/"
_MERGE_BUDGET = 50_000_000  # bytes compared while fitting one merged file; past it the merge is refused, not guessed


def is_memory_path(path: str) -> bool:
    """A path from the top of the repository names a memory file (of any store in it)."""
    return path.lower().endswith(".md") and (path.startswith(_MEMORY_DIR) or f"/{_MEMORY_DIR}" in path)


def is_zero(sha: str) -> bool:
    """The all-zero object name a hook is given for a ref that did not exist or is being deleted."""
    return bool(sha) and set(sha) == {"0"}


@records.record(frozen=True)
class Violation:
    kind: str  # rewritten | deleted | renamed | type-changed | torn-entry | history-rewritten | unchecked | malformed-tree
    path: str  # from the top of the repository (a subfolder's store: app/.rawko/memories/x.md)
    commit: str  # a sha, "index" or "working tree"
    message: str
    old_path: str | None = None
    line: int | None = None
    lost: tuple[str, ...] = ()  # lines of the old content that are gone or changed
    added: tuple[str, ...] = ()  # what stands there now
    ref: str | None = None  # the pushed ref, for a push's checks

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
            "ref": self.ref,
        }

    def __str__(self) -> str:
        """The text report: every name and line from the store on one line of its own (a newline in a file
        name is shown as a stand-in, so it cannot forge a line such as a false "OK")."""
        where = self.commit if self.commit in ("index", "working tree") else f"commit {self.commit[:10]}"
        if self.ref:
            where = f"{clean_name(self.ref)}: {where}"
        out = f"{where}: {clean_name(self.path)}: {clean_name(self.message)}"
        for line in self.lost:
            out += f"\n    - {clean_name(line)}"
        for line in self.added:
            out += f"\n    + {clean_name(line)}"
        return out


@records.record
class VerifyReport:
    commits_checked: int = 0
    changes_checked: int = 0
    violations: list[Violation] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    head: str | None = None
    refs_checked: int = 0  # a push's refs (--push, --pre-receive)

    @property
    def ok(self) -> bool:
        return not self.violations

    def to_dict(self) -> dict:
        return {
            "ok": self.ok,
            "head": self.head,
            "commitsChecked": self.commits_checked,
            "changesChecked": self.changes_checked,
            "refsChecked": self.refs_checked,
            "violations": [v.to_dict() for v in self.violations],
            "notes": self.notes,
        }

    def absorb(self, other: VerifyReport) -> None:
        self.commits_checked += other.commits_checked
        self.changes_checked += other.changes_checked
        self.refs_checked += other.refs_checked
        self.violations += other.violations
        self.notes += [note for note in other.notes if note not in self.notes]


@records.record(frozen=True)
class CommitInfo:
    sha: str
    author: str
    timestamp: int
    subject: str

    def to_dict(self) -> dict:
        return {"sha": self.sha, "author": self.author, "timestamp": self.timestamp, "subject": self.subject}


# --------------------------------------------------------------------------
# The invariant
# --------------------------------------------------------------------------


def check_append(old: bytes, new: bytes, path: str, commit: str) -> Violation | None:
    """None when ``new`` starts with every byte of ``old``; otherwise what was lost (``gitrepo.rewrite_of``: the writer names it alike)."""
    rewrite = rewrite_of(old, new)
    if rewrite is None:
        return None
    return Violation("rewritten", path, commit, rewrite.message, line=rewrite.line, lost=rewrite.lost, added=rewrite.now)


def _common_prefix(versions: list[bytes]) -> bytes:
    length = min(len(version) for version in versions)
    for version in versions[1:]:
        length = min(length, first_difference(versions[0][:length], version))
    return versions[0][:length]


def check_merge(parents: list[bytes | None], merged: bytes | None, base: bytes | None, path: str, commit: str) -> Violation | None:
    """None when a merge's version of a memory file keeps every entry each parent's version holds.

    ``parents`` are the file in each parent (None: that parent has no such file), ``merged``
    the merge's, ``base`` the file at the parents' merge base (b"" when it had none; None
    when unknown). Each parent's *addition* is what its version holds beyond the base. The
    rule: the merge's version starts with the base, then holds every addition whole, one
    after another in any order, with nothing but line breaks between them; anything after
    the last is an append. An addition equal to, or a prefix of, another counts once, and
    one may leave out an opening it shares with an addition placed before it when the rest
    starts a new entry (a ``---`` line): the same entry cherry-picked onto both branches is
    kept once.

    The branch a merge is made on keeps its own record as it was: the first parent's version
    must be a byte prefix of the merge's, so the other side's new entries come after the
    branch's own (a push checks the same between the old and the new tip, ``verify_push``).
    So base + A's entries + B's entries passes when A is the branch merged into, as does one
    branch's change the other did not touch (its addition is the only one). Refused: a merge
    that keeps one side's copy (dropping the other's entries), edits or reorders bytes, puts
    anything before an addition or before the branch's own entries, or joins two entries into
    one (deleting the conflict markers between two entries that open alike, as git's
    ``merge=union`` does, leaves one entry's opening out).
    When the base is unknown, or a parent's version does not start with it, the parents'
    common prefix, cut back to where its last entry starts, stands in for it.
    """
    held = [version for version in parents if version is not None]
    if not held:
        return None  # new in the merge
    if merged is None:
        return Violation("deleted", path, commit, "memory file deleted by a merge (a parent holds it)")
    own = parents[0]
    if own is not None and not merged.startswith(own):
        violation = check_append(own, merged, path, commit)
        assert violation is not None
        return replace(violation, message=f"merge: {violation.message} (the branch's own version, its first parent's; the other side's entries go after it)")
    shared = _common_prefix(held)
    if shared in held:
        base = shared  # one parent's version is in every other's: what it holds is all they share
    elif base is None or not all(version.startswith(base) for version in held):
        starts = _entry_starts(shared)
        base = shared[: starts[-1]] if starts else b""
    if not merged.startswith(base):
        violation = check_append(base, merged, path, commit)
        assert violation is not None
        return replace(violation, message=f"merge: {violation.message} (bytes every parent holds)")
    additions = sorted({version[len(base) :] for version in held} - {b""}, key=len, reverse=True)
    additions = [a for i, a in enumerate(additions) if not any(longer.startswith(a) for longer in additions[:i])]
    rest = merged[len(base) :]
    fitted = _fit_additions(rest, additions)
    if fitted:
        return None
    line = merged.count(b"\n", 0, len(base)) + 1
    if fitted is None:
        return Violation("unchecked", path, commit, f"merge: too intricate to check (line {line} on); refused rather than guessed", line=line)
    missing = next((a for a in additions if a not in rest), None)
    if missing is not None:
        lost = tuple(line_ for line_ in missing.decode("utf-8", "replace").split("\n") if line_.strip())[:5]
        message = f"merge drops or changes entries a parent added (line {line} on): keep each side's entries whole"
    else:
        lost = ()
        message = (
            f"merge does not keep each side's entries whole, one after the other (line {line} on): "
            "bytes stand before them, or two entries were joined (conflict markers deleted between entries that open alike)"
        )
    now = tuple(rest.decode("utf-8", "replace").split("\n")[:3])
    return Violation("rewritten", path, commit, message, line=line, lost=lost, added=now)


# an appended entry's opening line (as store.split_entries reads it): "---", then a line of YAML
_ENTRY_OPENING = re.compile(rb"(?m)^---\r?\n(?![\r\n]|---)")


def _entry_starts(data: bytes) -> list[int]:
    """Where an entry may start in ``data``: its ``---`` line, or the start of a blank line before it."""
    found = set()
    for match in _ENTRY_OPENING.finditer(data):
        start = match.start()
        found.add(start)
        while start > 0:
            previous = data.rfind(b"\n", 0, start - 1) + 1  # the line before
            if data[previous : start - 1] not in (b"", b"\r"):
                break
            start = previous
            found.add(start)
    return sorted(found)


def _fit_additions(rest: bytes, additions: list[bytes]) -> bool | None:
    """Whether ``rest`` is the additions one after another (see ``check_merge``); None when the budget ran out."""
    budget = [_MERGE_BUDGET]
    seen: dict[tuple[int, frozenset], bool] = {}
    # for each addition, the openings it may leave out: (length, which addition they repeat)
    skips = [
        [(0, None)]
        + [(j, k) for k, other in enumerate(additions) if k != i for j in starts if 0 < j <= first_difference(addition, other)]
        for i, (addition, starts) in enumerate(zip(additions, map(_entry_starts, additions)))
    ]

    def fits(position: int, placed: frozenset) -> bool:
        if len(placed) == len(additions):
            return True  # the rest is an append
        key = (position, placed)
        if key not in seen:
            seen[key] = False
            run = 0 if not placed else _LINE_BREAKS.match(rest, position).end() - position
            for index in set(range(len(additions))) - placed:
                for skip, repeated in skips[index]:
                    if repeated is not None and repeated not in placed:
                        continue
                    kept = additions[index][skip:]
                    for gap in range(run + 1):
                        budget[0] -= len(kept) + 1
                        if budget[0] < 0:
                            raise _OutOfBudget
                        if rest.startswith(kept, position + gap) and fits(position + gap + len(kept), placed | {index}):
                            seen[key] = True
                            return True
        return seen[key]

    try:
        return fits(0, frozenset())
    except _OutOfBudget:
        return None


class _OutOfBudget(Exception):
    pass


_LINE_BREAKS = re.compile(rb"[\r\n]*")


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


@records.record(frozen=True)
class _Repository:
    top: Path  # the top of the work tree; the place given, when there is none (bare, or inside a git dir)
    bare: bool  # no work tree here: history only (a server's repository, where its hooks run)
    git_dir: Path
    shallow: bool


def _locate(root: Path) -> _Repository:
    """Where the repository holding ``root`` is, in one ``git rev-parse``."""
    out = git(root, "rev-parse", "--is-bare-repository", "--is-inside-git-dir", "--is-shallow-repository", "--absolute-git-dir", "--show-toplevel", check=False)
    lines = out.decode("utf-8", "surrogateescape").split("\n")  # --show-toplevel fails (and prints nothing) without a work tree
    if len(lines) < 4 or lines[0] not in ("true", "false"):
        raise GitError(f"{root} is not in a git repository: there is no history to verify")
    bare = "true" in lines[:2]
    top = Path(root) if bare or len(lines) < 5 or not lines[4] else Path(lines[4])
    return _Repository(top, bare, Path(lines[3]), lines[2] == "true")


def verify(
    root: Path, since: str | None = None, staged: bool = False, remember: bool = False, rev: str = "HEAD", history_only: bool = False
) -> VerifyReport:
    """Check the append-only rule over history (``since..rev``), the index and the working tree.

    Every memory file of the repository is checked, in every store (``.rawko/memories/`` at the
    top or in any subfolder). Each commit's change must only append (``check_append``); a merge
    must keep what each parent holds (``check_merge``); the whole history is walked, side
    branches included (``--full-history``). ``history_only`` checks commits alone (a bare
    repository, as on a server; there ``verify_push`` checks what a push changes).
    """
    repository = _locate(root)
    top = repository.top
    history_only = history_only or repository.bare
    report = VerifyReport()
    head = rev_sha(top, rev)
    if head is None and rev != "HEAD":
        raise GitError(f"{rev!r} is not a commit in this repository")
    report.head = head
    if repository.shallow:
        report.notes.append("shallow clone: commits before the shallow boundary are not verified")

    with BlobReader(top) as blobs:
        if head is not None and not staged:
            _check_remembered(top, repository.git_dir, head, report)
            if since:
                since_sha = rev_sha(top, since)
                if since_sha is None:
                    raise GitError(f"--since {since!r} is not a commit in this repository")
                _check_commits(top, [f"^{since_sha}", head], blobs, report)
                # whatever lies between (a reset, a force-push, a merge made on another branch): every file at `since` is kept as a prefix
                _check_tips(top, since_sha, head, blobs, report, f"{since_sha[:10]} (--since) -> {head[:10]}")
            else:
                _check_commits(top, [head], blobs, report)
        if head is not None and not history_only:
            merging = [sha for sha in _read_merge_heads(repository.git_dir) if rev_sha(top, sha)]
            _check_against_head(top, head, merging, blobs, report, working_tree=False)
            if not staged:
                _check_against_head(top, head, merging, blobs, report, working_tree=True)
    if not staged and not history_only:
        _check_torn_entries(root, top, report)
    if remember and report.ok and head is not None:
        write_git_file(repository.git_dir / _MARK_FILE, head + "\n", "the verified HEAD")
    return report


def _check_commits(top: Path, revisions: list[str], blobs: BlobReader, report: VerifyReport) -> None:
    """Every commit in ``revisions`` (``git log`` arguments) that touches a memory file: one log pass, then the merges together."""
    out = git(top, "log", "--raw", "-z", "-M", "--no-abbrev", "--full-history", "--diff-merges=off", f"--format={_LOG_FORMAT}", *revisions, "--", MEMORY_PATHSPEC)
    merges = []
    trees_seen: set[str] = set()
    for sha, parents, _author, _stamp, _subject, changes in _parse_raw(out):
        report.commits_checked += 1
        _check_trees(sha, _suspect_paths(changes), blobs, report, trees_seen)
        if len(parents) > 1:
            merges.append((sha, parents))
            continue
        for change in changes:
            _check_change(change, sha, blobs, report)
    if merges:
        pairs = [(sha, parent) for sha, parents in merges for parent in parents]
        out = git(top, "diff-tree", "--stdin", "--always", "-r", "-z", "--raw", "--no-abbrev", "--no-renames", "--", MEMORY_PATHSPEC, input_bytes="".join(f"{sha} {parent}\n" for sha, parent in pairs).encode())
        per_pair = _parse_diff_tree_stdin(out)
        if len(per_pair) != len(pairs):
            raise GitError("git diff-tree answered for fewer merges than asked about")
        position = 0
        for sha, parents in merges:
            _check_merge_changes(top, sha, parents, per_pair[position : position + len(parents)], blobs, report)
            position += len(parents)


def _suspect_paths(changes: list[tuple]) -> list[str]:
    """The memory paths whose trees are worth reading: a tree that lists a name twice (or out of order) shows in git's
    diff as an added or deleted copy of it, or as a path changed twice; an ordinary append shows as one change."""
    seen: set[str] = set()
    suspect = []
    for status, *_modes_and_shas, old_path, new_path in changes:
        for path in {old_path, new_path}:
            if status[0] in "AD" or path in seen:
                suspect.append(path)
            seen.add(path)
    return suspect


def _check_trees(commit: str, paths: list[str], blobs: BlobReader, report: VerifyReport, seen: set[str]) -> None:
    """The trees on the way to each memory folder ``commit`` changes are well formed (``tree_problem``): a tree that
    lists a memory file twice makes git's diff compare one copy while a checkout holds the other. ``seen``: trees
    already checked (by their sha: most commits share them)."""
    folders = {""}
    for path in paths:
        if is_memory_path(path):
            parts = path.split("/")[:-1]
            folders.update("/".join(parts[:depth]) for depth in range(1, len(parts) + 1))
    if len(folders) == 1:
        return
    for folder in sorted(folders):
        found = blobs.read_object(f"{commit}:{folder}" if folder else f"{commit}^{{tree}}")
        if found is None or found[1] != "tree" or found[0] in seen:
            continue
        seen.add(found[0])
        problem = tree_problem(found[2])
        if problem is not None:
            report.violations.append(Violation("malformed-tree", folder or ".", commit, problem))


def _parse_diff_tree_stdin(out: bytes) -> list[list[tuple]]:
    """``git diff-tree --stdin --always -z`` output: for each line asked, its changes."""
    records: list[list[tuple]] = []
    fields = out.split(b"\x00")
    i = 0
    while i < len(fields):
        field_ = fields[i]
        if field_.startswith(b":") and records:
            old_mode, new_mode, old_sha, new_sha, status = field_[1:].decode().split(" ")
            path = fields[i + 1].decode("utf-8", "surrogateescape")
            records[-1].append((status, old_mode, new_mode, old_sha, new_sha, path, path))
            i += 2
        else:
            if field_.strip():
                records.append([])  # a commit id: the next line's answer
            i += 1
    return records


def _check_merge_changes(
    top: Path, commit: str, parents: list[str], per_parent: list[list[tuple]], blobs: BlobReader, report: VerifyReport, working_tree: bool = False
) -> None:
    """A merge (or the index or working tree while one is concluded): ``per_parent[k]`` is the diff from parent k to the result."""
    merged: dict[str, tuple[str, str]] = {}  # path -> (mode, sha) in the result ("000000": absent)
    before: list[dict[str, tuple[str, str]]] = [{} for _ in parents]
    unmerged: set[str] = set()
    for k, changes in enumerate(per_parent):
        for status, old_mode, new_mode, old_sha, new_sha, path, _ in changes:
            if is_memory_path(path):
                before[k][path] = (old_mode, old_sha)
                merged[path] = (new_mode, new_sha)
                if status == "U":
                    unmerged.add(path)
    base_commit: list[str | None] = []  # found once per merge, when some file needs it
    for path, (mode, sha) in sorted(merged.items()):
        report.changes_checked += 1
        try:
            _check_merged_file(top, commit, parents, path, mode, sha, before, unmerged, base_commit, blobs, report, working_tree)
        except BlobTooLarge as exc:  # never held in memory: said, not guessed
            report.violations.append(Violation("unchecked", path, commit, str(exc)))


def _check_merged_file(
    top: Path, commit: str, parents: list[str], path: str, mode: str, sha: str, before: list[dict], unmerged: set[str],
    base_commit: list[str | None], blobs: BlobReader, report: VerifyReport, working_tree: bool,
) -> None:
    """One memory file of a merge (see ``_check_merge_changes``)."""
    if path in unmerged:
        report.violations.append(Violation("unchecked", path, commit, "a merge conflict in it is not resolved yet"))
        return
    versions = [before[k].get(path, (mode, sha)) for k in range(len(parents))]  # a parent the diff does not name holds the result's version
    present = [(m, s) for m, s in versions if m != "000000"]
    if mode != "000000" and any(_kind(m) != _kind(mode) for m, _ in present):
        report.violations.append(Violation("type-changed", path, commit, f"merge changes the file type ({', '.join(sorted({m for m, _ in present}))} -> {mode})"))
        return
    if _kind(mode) == "gitlink" or any(_kind(m) == "gitlink" for m, _ in present):
        return
    contents = [None if m == "000000" else blobs.read(s) for m, s in versions]
    if mode == "000000":
        result = None
    elif working_tree and is_zero(sha):  # a working-tree file git has not hashed
        try:
            result = _working_copy(top, path, mode, contents[0] or b"")
        except FileNotFoundError:
            result = None
        except OSError as exc:
            report.violations.append(Violation("unchecked", path, commit, f"cannot be read: {exc.strerror}"))
            return
    else:
        result = blobs.read(sha)
    base: bytes | None = None
    held = [c for c in contents if c is not None]
    if result is not None and len(set(held)) > 1 and _common_prefix(held) not in held and "\n" not in path:
        if not base_commit:  # both sides changed the file: where they parted, once per merge
            found = git(top, "merge-base", "--octopus", *parents, check=False).decode().split()
            base_commit.append(found[0] if found else None)
        if base_commit[0]:
            base = blobs.read_optional(f"{base_commit[0]}:{path}")
            base = b"" if base is None else base  # no such file at the merge base: both sides added it
    violation = check_merge(contents, result, base, path, commit)
    if violation is not None:
        report.violations.append(violation)


def _kind(mode: str) -> str:
    return {"120000": "symlink", "160000": "gitlink", "040000": "tree"}.get(mode, "file")


def _check_against_head(top: Path, head: str, merging: list[str], blobs: BlobReader, report: VerifyReport, working_tree: bool) -> None:
    """The index (``working_tree``: the working tree) against HEAD, what the next commit would record; while a merge is
    being concluded (``merging``: its MERGE_HEADs), as that merge."""
    cached = [] if working_tree else ["--cached"]
    where = "working tree" if working_tree else "index"
    if merging:
        parents = [head, *merging]
        per_parent = [list(_parse_diff_index(git(top, "diff-index", *cached, "-z", "--no-renames", "--no-abbrev", parent, "--", MEMORY_PATHSPEC))) for parent in parents]
        _check_merge_changes(top, where, parents, per_parent, blobs, report, working_tree=working_tree)
        return
    out = git(top, "diff-index", *cached, "-z", "-M", "--no-abbrev", "HEAD", "--", MEMORY_PATHSPEC)
    listed = set()
    for change in _parse_diff_index(out):
        listed.add(change[6])
        _check_change(change, where, blobs, report, top=top if working_tree else None)
    if working_tree:
        # git does not look at a file marked assume-unchanged or skip-worktree: rawko-tui does
        hidden = [path for path in flagged_unseen(top, MEMORY_PATHSPEC) if path not in listed]
        for path, (mode, sha) in tree_blobs(top, "HEAD", *hidden).items():
            _check_change(("M", mode, mode, sha, "0" * 40, path, path), where, blobs, report, top=top)


def flagged_unseen(top: Path, pathspec: str) -> list[str]:
    """Memory files the index tells git not to look at in the working tree (``assume-unchanged``, ``skip-worktree``):
    a rewrite of one hides from ``git diff``, never from rawko-tui."""
    out = git(top, "ls-files", "-v", "-z", "--", pathspec, check=False)
    found = []
    for record in out.split(b"\x00"):
        tag, _, path = record.partition(b" ")
        if tag and (tag.islower() or tag == b"S"):  # lower case: assume-unchanged; S: skip-worktree
            name = path.decode("utf-8", "surrogateescape")
            if is_memory_path(name):
                found.append(name)
    return found


def _read_merge_heads(git_dir_: Path) -> list[str]:
    """The other parents of the merge being concluded: MERGE_HEAD (a merge stopped for a conflict), else the
    ``GITHEAD_<sha>`` variables git merge gives its hooks (a merge it concludes by itself runs pre-merge-commit
    before writing MERGE_HEAD)."""
    try:
        return read_regular(git_dir_ / "MERGE_HEAD", 1 << 16).decode("ascii", "replace").split()
    except OSError:
        pass
    return sorted(name[len("GITHEAD_") :] for name in os.environ if re.fullmatch(r"GITHEAD_[0-9a-f]{40}(?:[0-9a-f]{24})?", name))


def verify_push(root: Path, old: str, new: str, ref: str | None = None, updates: dict[str, str] | None = None, in_hook: bool = False) -> VerifyReport:
    """What a push of ``ref`` from ``old`` to ``new`` does to the memory files (as a ``pre-receive`` hook is told).

    Nothing at the old tip may be lost. Every commit the push brings must keep the rule
    (``verify``'s per-commit and merge checks, ``check_merge``), and whatever the shape of
    history between the tips (a force-push of an amended, reset or rebased branch; a
    fast-forward to a merge made on another branch), every memory file at the old tip must
    also be at the new tip, starting with every byte it had (``check_append``): the ref's
    record only grows at its end. A new ref (old all zeros) brings
    only its commits; a deleted ref (new all zeros) may go when no commit that only it holds
    changes a memory file. ``updates`` are all the push's refs (ref -> new), for that test.
    ``in_hook``: the repository's refs are still the old ones (a pre-receive hook), so the
    commits to check are those under no ref; commits already on the server are not judged
    again (a branch accepted before the hook was installed can still be merged).
    """
    top = _locate(root).top
    report = VerifyReport(refs_checked=1)
    updates = dict(updates or {})
    if ref:
        updates.setdefault(ref, new)
    if is_zero(old) and is_zero(new):
        return report
    if is_zero(new) and not ref:
        raise GitError("a deleted ref is checked against the refs that stay: give its name (--ref)")
    if ref and ref.startswith("refs/replace/") and not is_zero(new):
        # whoever fetches replace refs sees the replacement instead of the commit: a way to take an entry out of
        # every checkout without a commit that drops it (rawko-tui itself never honours them)
        report.violations.append(
            Violation("history-rewritten", ref, new, "a replace ref makes git show another object in place of a commit: refused (rawko-tui verifies the real history)", ref=ref)
        )
        return report
    old_sha = None if is_zero(old) else rev_sha(top, old)
    new_sha = None if is_zero(new) else rev_sha(top, new)
    if (not is_zero(old) and old_sha is None) or (not is_zero(new) and new_sha is None):
        report.notes.append(f"{ref or new}: not a commit (a tag of a tree or blob?): nothing of the store to check")
        return report
    report.head = new_sha
    with BlobReader(top) as blobs:
        if new_sha is None:
            assert old_sha is not None
            _check_deletion(top, old_sha, ref, updates, report)
            return report
        if old_sha is None or in_hook:
            # the commits the repository does not hold yet: under no other ref. In a hook the refs are still the
            # old ones; outside one (a CI checkout), HEAD and remote-tracking refs hold what is being pushed, so only
            # the other branches and tags count as held
            if in_hook:
                held = ["--all"]
            else:
                excluded = [f"--exclude={ref}"] if ref else []
                held = [*excluded, "--glob=refs/heads/*", *excluded, "--glob=refs/tags/*"]
            _check_commits(top, [new_sha, "--not", *held], blobs, report)
        else:
            _check_commits(top, [f"^{old_sha}", new_sha], blobs, report)
        if old_sha is not None:
            # whatever lies between (a fast-forward through a merge made on another branch, a force-push), the ref's record only grows at its end
            moves = "moves" if _is_ancestor(top, old_sha, new_sha) else "replaces"
            suffix = "" if moves == "moves" else ", which does not descend from it"
            _check_tips(top, old_sha, new_sha, blobs, report, f"the push {moves} {old_sha[:10]} to {new_sha[:10]}{suffix}")
    if ref:
        report.violations = [replace(v, ref=v.ref or ref) for v in report.violations]
    return report


def _is_ancestor(top: Path, old: str, new: str) -> bool:
    return git(top, "merge-base", old, new, check=False).decode().strip() == old


def _check_tips(top: Path, old: str, new: str, blobs: BlobReader, report: VerifyReport, shown: str) -> None:
    """Every memory file at ``old`` is at ``new``, starting with the same bytes (no rename, no type change); ``shown`` says what the two are."""
    out = git(top, "diff-tree", "-r", "-z", "--raw", "--no-abbrev", "--no-renames", old, new, "--", MEMORY_PATHSPEC)
    for status, old_mode, new_mode, old_sha, new_sha, path, _ in _parse_diff_index(out):
        if not is_memory_path(path) or status == "A":
            continue
        report.changes_checked += 1
        if status == "D":
            report.violations.append(Violation("deleted", path, new, f"{shown}, which has no such memory file"))
        elif _kind(old_mode) != _kind(new_mode):
            report.violations.append(Violation("type-changed", path, new, f"{shown}: file type changed ({old_mode} -> {new_mode})"))
        elif _kind(old_mode) != "gitlink":
            try:
                violation = check_append(blobs.read(old_sha), blobs.read(new_sha), path, new)
            except BlobTooLarge as exc:
                violation = Violation("unchecked", path, new, str(exc))
            if violation is not None:
                report.violations.append(replace(violation, message=f"{shown}: {violation.message}"))


def _check_deletion(top: Path, old: str, ref: str | None, updates: dict[str, str], report: VerifyReport) -> None:
    """A ref may go when no commit only it holds changes a memory file (every other commit is under a ref that stays)."""
    staying = [f"--exclude={name}" for name in updates] + ["--all"] + [sha for sha in updates.values() if not is_zero(sha)]
    out = git(top, "log", "--raw", "-z", "--no-abbrev", "--no-renames", "--full-history", f"--format={_LOG_FORMAT}", old, "--not", *staying, "--", MEMORY_PATHSPEC)
    lost = [(sha, path) for sha, _parents, _author, _stamp, _subject, changes in _parse_raw(out) for *_, path in changes if is_memory_path(path)]
    if lost:
        commits = sorted({sha for sha, _ in lost})
        report.violations.append(
            Violation(
                "deleted",
                lost[0][1],
                lost[0][0],
                f"deleting {ref or 'the ref'} would lose {plural(len(commits), 'commit')} changing memory files that no ref that stays holds; merge them first",
                ref=ref,
            )
        )


def verify_pre_receive(root: Path, lines: str) -> VerifyReport:
    """A ``pre-receive`` hook's input ("old new ref" per line): ``verify_push`` for each ref, knowing the others."""
    updates = []
    for line in lines.splitlines():
        parts = line.split()
        if len(parts) == 3:
            updates.append((parts[0], parts[1], parts[2]))
        elif line.strip():
            raise GitError(f"not a pre-receive line (old new ref): {line!r}")
    new_of = {ref: new for _old, new, ref in updates}
    report = VerifyReport()
    for old, new, ref in updates:
        report.absorb(verify_push(root, old, new, ref, new_of, in_hook=True))
    return report


def _check_remembered(top: Path, git_dir_: Path, head: str, report: VerifyReport) -> None:
    try:
        previous = read_regular(git_dir_ / _MARK_FILE, 4096).decode("ascii", "replace").strip()
    except OSError:  # none yet; or a link, a FIFO: never read
        return
    if not previous:
        return
    exists = rev_sha(top, previous) is not None
    if not (exists and _is_ancestor(top, previous, head)):
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


def _check_change(change, commit: str, blobs: BlobReader, report: VerifyReport, top: Path | None = None) -> None:
    try:
        _check_one_change(change, commit, blobs, report, top)
    except BlobTooLarge as exc:  # never held in memory: said, not guessed
        report.violations.append(Violation("unchecked", change[6], commit, str(exc)))


def _check_one_change(change, commit: str, blobs: BlobReader, report: VerifyReport, top: Path | None = None) -> None:
    status, old_mode, new_mode, old_sha, new_sha, old_path, new_path = change
    kind = status[0]
    if not (is_memory_path(old_path) or is_memory_path(new_path)):
        return
    report.changes_checked += 1
    if kind == "A":
        return
    if kind == "U":
        report.violations.append(Violation("unchecked", new_path, commit, "a conflict in it is not resolved yet"))
        return
    if kind == "D":
        if is_memory_path(old_path):
            report.violations.append(Violation("deleted", old_path, commit, "memory file deleted"))
        return
    if kind == "R":
        if is_memory_path(old_path):
            report.violations.append(Violation("renamed", old_path, commit, f"memory file renamed away to {new_path}", old_path=old_path))
        return
    if kind == "T" or _kind(old_mode) != _kind(new_mode):
        report.violations.append(Violation("type-changed", new_path, commit, f"file type changed ({old_mode} -> {new_mode})"))
        return
    if kind == "M" and _kind(old_mode) != "gitlink":
        old = blobs.read(old_sha)
        if is_zero(new_sha) and top is not None:  # a working-tree file git has not hashed
            try:
                new = _working_copy(top, new_path, new_mode, old)
            except FileNotFoundError:
                report.violations.append(Violation("deleted", new_path, commit, "memory file deleted"))
                return
            except OSError as exc:  # a link, a FIFO, past the size limit: not read, so not shown to be kept
                report.violations.append(Violation("unchecked", new_path, commit, f"cannot be read: {exc.strerror}"))
                return
        else:
            new = blobs.read(new_sha)
        violation = check_append(old, new, new_path, commit)
        if violation is not None:
            report.violations.append(violation)


def _working_copy(top: Path, path: str, mode: str, committed: bytes) -> bytes:
    """A working-tree file's bytes as git would record them: a link's target, never what it points to; a file in
    committed form (git's line-ending conversion for its path: an ``eol=crlf`` checkout with an LF append is an append).

    ``committed``: the blob it is compared with (git's "safer autocrlf" looks at it). A path whose conversion
    cannot be reproduced without running a program is an ``OSError`` saying so (reported unchecked).
    """
    if mode == "120000":
        return os.fsencode(os.readlink(top / path))
    data = read_in_store(top, path, MEMORY_LIMIT)  # never through a link (to /dev/zero, a FIFO), nor a linked folder
    conversion = clean_conversions(top, [path])[path]
    if conversion.unsupported and not data.startswith(committed):
        # git would run a program to know what it commits: the raw bytes are an append, or this is said
        raise OSError(errno.EPERM, f"{conversion.unsupported}, and its bytes as they are do not start with the committed ones")
    return data if conversion.unsupported else conversion.to_git(data, committed)


def _check_torn_entries(root: Path, top: Path, report: VerifyReport) -> None:
    """Entries an interrupted write left half written, in every store of the working tree."""
    from ..store.loading import load_store
    from .writer import interrupted_writes

    stores = {root.resolve()} if (root / ".rawko").is_dir() else set()
    listed = git(top, "ls-files", "-z", "--", MEMORY_PATHSPEC).decode("utf-8", "surrogateescape").split("\x00")
    for path in listed:
        if is_memory_path(path):
            folder = path[: path.index(_MEMORY_DIR)] if path.startswith(_MEMORY_DIR) else path[: path.index(f"/{_MEMORY_DIR}") + 1]
            stores.add((top / folder).resolve())
    changed: list[set[str] | None] = []  # asked of git once, and only if some file holds a suspect block
    for store in sorted(stores):
        if not (store / ".rawko").is_dir():
            continue
        where = Path(os.path.relpath(store, top.resolve())).as_posix()
        prefix = "" if where == "." else f"{where}/"
        for memory in load_store(store).files:
            suspects = memory.suspect_blocks
            if suspects:
                if not changed:
                    changed.append(_uncommitted_memory_paths(top))
                committed_lines = _committed_line_count(top, prefix + memory.rel_path, changed[0])
                for suspect in suspects:
                    if suspect.line > committed_lines:  # a committed one is history's, and lint's error: not a pending write
                        report.violations.append(Violation("torn-entry", prefix + memory.rel_path, "working tree", suspect.reason, line=suspect.line))
        for name, what in interrupted_writes(store):
            report.violations.append(Violation("torn-entry", f"{prefix}{MEMORIES}/{name}", "working tree", what))


def changed_since_head(top: Path, pathspec: str, untracked: bool = False) -> list[str]:
    """Files under ``pathspec`` (paths from the top) whose working copy may not be HEAD's: those ``git diff HEAD``
    names, those the index hides from it (``flagged_unseen``), and with ``untracked`` those git does not track."""
    out = git(top, "diff", "HEAD", "--name-only", "--no-renames", "-z", "--", pathspec, check=False)
    if untracked:
        out += b"\x00" + git(top, "ls-files", "-z", "--others", "--exclude-standard", "--", pathspec, check=False)
    names = list(dict.fromkeys(n for n in out.decode("utf-8", "surrogateescape").split("\0") if n))
    return names + [n for n in flagged_unseen(top, pathspec) if n not in names]  # hidden from git diff, not from rawko-tui


def _uncommitted_memory_paths(top: Path) -> set[str] | None:
    """Memory files (paths from the top) whose working copy is not HEAD's; None when there is no commit yet
    (every file is uncommitted)."""
    if not git(top, "rev-parse", "-q", "--verify", "HEAD^{commit}", check=False).strip():
        return None
    return set(changed_since_head(top, MEMORY_PATHSPEC, untracked=True))


def _committed_line_count(top: Path, path: str, changed: set[str] | None) -> int:
    """How many lines of ``path`` HEAD holds (all of them when unchanged; 0 when HEAD has no such file)."""
    if changed is None:
        return 0
    if path not in changed:
        return sys.maxsize
    try:
        committed = git(top, "cat-file", "blob", f"HEAD:{path}")
    except GitError:
        return 0
    return committed.count(b"\n") + (not committed.endswith(b"\n") and bool(committed))


# --------------------------------------------------------------------------
# Per-file history and provenance
# --------------------------------------------------------------------------


@records.record
class FileHistory:
    path: str
    commits: list[CommitInfo]  # oldest first
    entry_commits: list[CommitInfo | None]  # for each entry of the current file: the commit that added it
    badge: str  # verified | violated | uncommitted-append | uncommitted-rewrite | untracked | not-a-repo
    detail: str
    # for each entry: whether the commit that added it says it did not write it (another writer's bytes,
    # committed by rawko-tui at the person's explicit choice: its Not-written-by-rawko-tui trailer)
    entry_not_written_by_committer: list[bool] = field(default_factory=list)

    def to_dict(self) -> dict:
        return {
            "path": self.path,
            "badge": self.badge,
            "detail": self.detail,
            "commits": [c.to_dict() for c in self.commits],
            "entries": [c.sha if c else None for c in self.entry_commits],
            "entriesNotWrittenByCommitter": list(self.entry_not_written_by_committer),
        }


def file_history(root: Path, rel_path: str, entry_offsets: list[int], at: str | None = None) -> FileHistory:
    """Commits of one memory file, which commit added each entry, and its append-only badge.

    ``entry_offsets`` are the byte offsets where the file's entries start.  With
    ``at`` (a revision, as ``--at``) the file is the one in that commit and its
    history the commits up to it; else the working copy, compared with HEAD too.
    """
    top = repo_root(root)
    if top is None:
        return FileHistory(rel_path, [], [None] * len(entry_offsets), "not-a-repo", "not in a git repository: history is not available")
    tip = "HEAD"
    if at is not None:
        from ..disk.gitrepo import store_at

        top, tip, prefix = store_at(root, at)  # the store's folder in that commit, its commit resolved once
        path_in_repo = f"{prefix}/{rel_path.split('/', 1)[1]}" if prefix else rel_path.split("/", 1)[1]
    else:
        path = root / rel_path
        path_in_repo = Path(os.path.relpath(path.parent.resolve() / path.name, top.resolve())).as_posix()  # a memory that is a link: its own history
    out = git(top, "log", "--raw", "-z", "--no-abbrev", "--no-renames", "--diff-merges=first-parent", f"--format={_LOG_FORMAT}", tip, "--", path_in_repo)
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
        if at is None:
            head_blob = git(top, "rev-parse", f"HEAD:{path_in_repo}", check=False).decode().strip()
            try:
                current = read_in_store(top, path_in_repo, MEMORY_LIMIT)
            except OSError:
                current = b""
            committed = blobs.read(head_blob) if head_blob and " " not in head_blob else b""
    if at is not None:
        detail = f"{detail} (history up to {at}, commit {tip[:10]})"
    else:
        # compared as git would commit it: an eol=crlf checkout is not a rewrite of its LF blob
        current = clean_conversions(top, [path_in_repo])[path_in_repo].to_git(current, committed)
        if current != committed:
            rewrite = rewrite_of(committed, current)
            if rewrite is None:
                if badge == "verified":
                    badge, detail = "uncommitted-append", f"{len(current) - len(committed)} bytes appended since the last commit"
            else:
                badge, detail = "uncommitted-rewrite", f"the working copy rewrites committed content ({rewrite.message})"
    entry_commits = []
    for offset in entry_offsets:
        found = next((info for info, size in sizes if size > offset), None)
        entry_commits.append(found)
    foreign = _not_written_by_committer(top, path_in_repo, tip)
    not_theirs = [commit is not None and any(first <= offset <= last for first, last in foreign.get(commit.sha, ())) for commit, offset in zip(entry_commits, entry_offsets)]
    return FileHistory(rel_path, commits, entry_commits, badge, detail, not_theirs)


_NOT_WRITTEN_TRAILER = "Not-written-by-rawko-tui"  # the writer's trailer: "<path in repo> lines A-B, bytes X-Y"
_BYTE_RANGE = re.compile(r" bytes ([\d,]+)-([\d,]+)$")


def _not_written_by_committer(top: Path, path_in_repo: str, tip: str = "HEAD") -> dict[str, list[tuple[int, int]]]:
    """commit -> the byte ranges of ``path_in_repo`` its message says its committer did not write (commits up to ``tip``)."""
    out = git(top, "log", f"--format=%H%x00%(trailers:key={_NOT_WRITTEN_TRAILER},valueonly,separator=%x1e)%x01", tip, "--", path_in_repo, check=False)
    found: dict[str, list[tuple[int, int]]] = {}
    for record in out.decode("utf-8", "surrogateescape").split("\x01"):
        sha, _, values = record.strip("\n").partition("\x00")
        for value in filter(None, values.strip().split("\x1e")):
            match = _BYTE_RANGE.search(value.strip())
            if match and value.strip().startswith(path_in_repo + " "):
                found.setdefault(sha, []).append((int(match.group(1).replace(",", "")), int(match.group(2).replace(",", ""))))
    return found


def uncommitted_rewrites(root: Path) -> set[str]:
    """Memory files (paths from the store root) whose working copy no longer starts with their committed bytes.

    One ``git diff`` names the changed files; only those are compared, in
    committed form (git's line-ending conversion for each path: an ``eol=crlf``
    checkout with an agent's LF append is an append). Outside git, or before
    the first commit, nothing is called rewritten.
    """
    root = Path(root)
    top = repo_root(root)
    if top is None:
        return set()
    prefix = store_prefix(root, top)
    names = changed_since_head(top, prefix)
    found: set[str] = set()
    if not names:
        return found
    store_rel = Path(os.path.relpath(root.resolve(), top.resolve())).as_posix()
    committed = tree_blobs(top, "HEAD", prefix)  # every memory file in HEAD, in one git call
    conversions = clean_conversions(top, [name for name in names if name in committed])
    with BlobReader(top) as blobs:
        for name in names:
            if name not in committed:
                continue  # new since HEAD: nothing committed to rewrite
            try:
                old = blobs.read(committed[name][1])
            except BlobTooLarge:
                continue  # never held in memory: lint and verify say so
            try:
                current = conversions[name].to_git(read_in_store(top, name, MEMORY_LIMIT), old)  # never through a link
            except OSError:
                current = b""  # deleted: every committed byte is gone
            if not current.startswith(old):
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


