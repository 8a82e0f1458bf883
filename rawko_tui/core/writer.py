"""The only module that writes memory files: append, create, commit.

Rules it keeps, whoever calls it:

- A memory file is only ever appended to (``O_APPEND``); nothing is truncated
  or rewritten, except that a write which fails half-way (a full disk) takes
  back the part of its own entry that reached the file.
- Before appending it checks that the file still starts with the bytes the
  caller read.  If an agent appended meanwhile, the new entry goes after the
  agent's text (nothing is clobbered); if the file was rewritten, it refuses.
- A new memory gets the kebab-case slug of its title as its name, inside
  ``.rawko/memories/``; no name can point outside it, and an existing file is
  never overwritten (``O_EXCL``).
- Entries are written the way SPEC-0005 appends them: ``existing + "\\n\\n" +
  "---\\n" + YAML + "---\\n\\n" + body``.
"""

from __future__ import annotations

import fcntl
import hashlib
import io
import os
import re
import time
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from .jsregex import JS_WHITESPACE
from .safetext import clean, clean_name
from .store import MEMORIES_DIR, RAWKO_DIR

CHUNK = 1 << 16
LOCK_WAIT_SECONDS = 30.0  # how long a write waits for another rawko-tui write to finish
INDEX_LOCK_WAIT_SECONDS = 2.0  # ... and for another git command's index.lock (a stale one is reported after this)
JOURNAL_DIR = ".write-journal"  # inside .rawko/, beside memories/: never loaded as a memory


class WriteError(Exception):
    """A write that would break the append-only record, or could not be done; nothing was written."""


@dataclass(frozen=True)
class Seen:
    """What the caller read of a file: its length and a digest of those bytes."""

    size: int
    sha256: str

    @classmethod
    def of(cls, data: bytes) -> "Seen":
        return cls(len(data), hashlib.sha256(data).hexdigest())


@dataclass(frozen=True)
class AppendResult:
    path: Path
    offset: int  # where the new entry starts
    written: int
    merged_after: int  # bytes another writer appended since the caller read the file


def slugify(title: str) -> str:
    """The kebab-case file stem for a title (seed 001: ``kebab-case-descriptive-name.md``)."""
    slug = re.sub(r"[^a-z0-9]+", "-", title.lower()).strip("-")
    return slug[:80].rstrip("-") or "memory"


def memories_dir(root: Path) -> Path:
    return Path(root) / RAWKO_DIR / MEMORIES_DIR


def safe_memory_path(root: Path, name: str) -> Path:
    """``.rawko/memories/<name>``, refusing anything that would leave that folder or follow a link."""
    base = memories_dir(root).resolve()
    if not name.endswith(".md") or "\x00" in name:
        raise WriteError(f"{name!r} is not a memory file name (it must end in .md)")
    candidate = (base / name).resolve()
    if base not in candidate.parents:
        raise WriteError(f"{name!r} is outside .rawko/memories")
    current = base
    for part in Path(name).parts:
        current = current / part
        if current.is_symlink():
            raise WriteError(f"{name!r} goes through a symlink; memory files are never written through links")
    return candidate


def loadable_fields(frontmatter: dict) -> dict:
    """The fields in the shapes every arbiter profile loads (rawko-sdk's validation gate is the strictest).

    ``tags`` a list of text, ``importance`` lower case, ``whenToUse`` text or a
    list of text (a ``{pattern: …}`` map becomes its pattern), dates as ISO
    text (which both YAML dialects read as text, quoted by the dumper).
    Only the fields present are touched: an appended entry keeps its few.
    """
    import datetime as dt

    from .jsvalue import JsDate

    fields = dict(frontmatter)
    if "tags" in fields:
        tags = fields["tags"]
        tags = [] if tags is None else tags if isinstance(tags, list) else [tags]
        fields["tags"] = [str(t) for t in tags if t is not None]
    if isinstance(fields.get("importance"), str):
        fields["importance"] = fields["importance"].strip().lower()
    if "whenToUse" in fields:
        when = fields["whenToUse"]
        items = when if isinstance(when, list) else [when]
        patterns = [str(i.get("pattern")) if isinstance(i, dict) and i.get("pattern") is not None else i for i in items]
        patterns = [str(p) for p in patterns if p is not None and not isinstance(p, dict)]
        fields["whenToUse"] = patterns if isinstance(when, list) or len(patterns) != 1 else patterns[0]
    for key, value in fields.items():
        if isinstance(value, JsDate):
            fields[key] = value.iso()
        elif isinstance(value, dt.datetime):
            fields[key] = (value if value.tzinfo else value.replace(tzinfo=dt.timezone.utc)).isoformat().replace("+00:00", "Z")
        elif isinstance(value, dt.date):
            fields[key] = value.isoformat()
    return fields


def format_entry(frontmatter: dict, body: str) -> str:
    """One entry as SPEC-0005's formatMemoryFile writes it: ``---\\n{yaml}---\\n\\n{body}``, loadable by every profile."""
    frontmatter = loadable_fields(frontmatter)
    text = _dump_yaml(frontmatter)
    if any(c in text for c in _YAML11_BREAKS):
        # ruamel folds NEL, LS and PS as YAML 1.1 line breaks, which js-yaml (YAML 1.2)
        # reads as ordinary characters: write them as the escapes \N, \L and \P instead
        text = _dump_yaml(frontmatter, style='"', escape_non_ascii=True)
    elif text.rstrip("\n")[-1:] in JS_WHITESPACE:
        # Deno's extract trims the frontmatter with JavaScript's trim, which also eats a
        # trailing no-break space that YAML keeps in a plain scalar ("0\u00a0" would read
        # back as the number 0): quote every string so nothing sits at the end unquoted
        text = _dump_yaml(frontmatter, style='"')
    body = body.rstrip("\n")
    return f"---\n{text}---\n\n{body}\n"


_YAML11_BREAKS = "\x85\u2028\u2029"


def _dump_yaml(data: dict, style: str | None = None, escape_non_ascii: bool = False) -> str:
    from ruamel.yaml import YAML

    yaml = YAML(typ="safe", pure=True)
    yaml.default_flow_style = False
    yaml.default_style = style
    yaml.allow_unicode = not escape_non_ascii
    yaml.width = 4096
    yaml.representer.sort_base_mapping_type_on_output = False  # the convention's order: title first
    stream = io.StringIO()
    yaml.dump(data, stream)
    return stream.getvalue()


def _journal_path(root: Path, name: str) -> Path:
    return Path(root) / RAWKO_DIR / JOURNAL_DIR / (hashlib.sha256(name.encode()).hexdigest()[:16] + ".json")


def _begin(root: Path, name: str, offset: int, data: bytes) -> Path:
    """Record the write about to happen, so that an interrupted one can be recognised later."""
    import json

    journal = _journal_path(root, name)
    journal.parent.mkdir(parents=True, exist_ok=True)
    temporary = journal.with_suffix(".tmp")
    temporary.write_text(json.dumps({"file": name, "offset": offset, "length": len(data), "sha256": hashlib.sha256(data).hexdigest()}))
    os.replace(temporary, journal)
    return journal


def interrupted_writes(root: Path) -> list[tuple[str, str]]:
    """(memory name, what happened) for every write that began and never finished."""
    import json

    folder = Path(root) / RAWKO_DIR / JOURNAL_DIR
    found = []
    for journal in sorted(folder.glob("*.json")) if folder.is_dir() else []:
        try:
            record = json.loads(journal.read_text())
            name, offset, length = record["file"], int(record["offset"]), int(record["length"])
            data = (memories_dir(root) / name).read_bytes()
        except (OSError, ValueError, KeyError, TypeError):
            continue
        arrived = max(0, min(len(data) - offset, length))
        if arrived == length and hashlib.sha256(data[offset : offset + length]).hexdigest() == record["sha256"]:
            continue  # the write finished; only its journal record was left behind
        line = data[:offset].count(b"\n") + 1
        found.append((name, f"an interrupted write: {arrived:,} of {length:,} bytes of the entry starting at line {line} reached the file"))
    return found


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        written = os.write(fd, view[:CHUNK])
        view = view[written:]


def refuse_when_busy(root: Path) -> None:
    """Raise WriteError when the repository is mid-rebase, mid-merge, locked or on a detached HEAD."""
    from .gitrepo import locate_repository, repository_state_in

    located = locate_repository(Path(root))
    deadline = time.monotonic() + INDEX_LOCK_WAIT_SECONDS
    state = repository_state_in(located)
    # a lock another git command holds for a moment is waited for; a rebase or a stale lock is not
    while state.index_locked and state.operation is None and time.monotonic() < deadline:
        time.sleep(0.05)
        state = repository_state_in(located)
    if state.write_blocker:
        raise WriteError(f"nothing was written: {state.write_blocker}")


def append_entry(root: Path, name: str, entry: str, seen: Seen | None) -> AppendResult:
    """Append ``entry`` to an existing memory file, after everything on disk (a blank line between entries)."""
    path = safe_memory_path(root, name)
    return _append_bytes(root, path, name, lambda current: ("\n\n" + entry if current else entry).encode("utf-8"), seen)


def _append_bytes(root: Path, path: Path, name: str, make_data, seen: Seen | None) -> AppendResult:
    """Append ``make_data(current bytes)`` to ``path`` under an exclusive lock, checking it still starts with what was seen."""
    if not path.is_file():
        raise WriteError(f"{name} does not exist; create it instead")
    refuse_when_busy(root)
    try:
        fd = os.open(path, os.O_RDWR | os.O_APPEND)
    except OSError as exc:
        raise WriteError(f"{name} cannot be opened for appending ({exc.strerror or exc}); nothing was written") from None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        current = _read_fd(fd)
        merged_after = 0
        if seen is not None:
            head = current[: seen.size]
            if len(head) < seen.size or hashlib.sha256(head).hexdigest() != seen.sha256:
                raise WriteError(
                    f"{name} changed on disk since it was read and no longer starts with what was read "
                    "(rewritten or truncated by someone else); nothing was written"
                )
            merged_after = len(current) - seen.size
        data = make_data(current)
        journal = _begin_or_refuse(root, name, len(current), data)
        try:
            _write_all(fd, data)
            os.fsync(fd)
        except OSError as exc:
            raise _undo_partial_append(fd, name, len(current), data, journal, exc) from None
        journal.unlink()
        return AppendResult(path, len(current) + (len(data) - len(data.lstrip(b"\n")) if current else 0), len(data), merged_after)
    finally:
        fcntl.flock(fd, fcntl.LOCK_UN)
        os.close(fd)


def _begin_or_refuse(root: Path, name: str, offset: int, data: bytes) -> Path:
    try:
        return _begin(root, name, offset, data)
    except OSError as exc:
        raise WriteError(f"the write could not be recorded in .rawko/{JOURNAL_DIR} ({exc.strerror or exc}); nothing was written") from None


def _undo_partial_append(fd: int, name: str, offset: int, data: bytes, journal: Path, exc: OSError) -> WriteError:
    """After a failed write (disk full, quota, I/O error): take back the part that reached the file.

    Only when the file ends exactly in a prefix of our entry: bytes someone else
    appended after it are never cut. Otherwise the journal stays, and lint and
    verify report the torn entry.
    """
    reason = exc.strerror or str(exc)
    try:
        tail = _read_fd(fd)[offset:]
        if len(tail) <= len(data) and data.startswith(tail):
            os.ftruncate(fd, offset)
            os.fsync(fd)
            journal.unlink()
            return WriteError(f"{name}: the write failed ({reason}); nothing was written, the file is as it was")
    except OSError:
        pass
    return WriteError(f"{name}: the write failed ({reason}) after part of the entry was written; lint reports it as a torn entry")


def _read_fd(fd: int) -> bytes:
    chunks = []
    offset = 0
    while True:
        chunk = os.pread(fd, 1 << 20, offset)
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)
        offset += len(chunk)


def free_names(stem: str):
    """The names a new memory may take, in order: ``stem.md``, then ``stem-2.md``, ``stem-3.md``, …"""
    yield f"{stem}.md"
    for attempt in range(2, 1000):
        yield f"{stem}-{attempt}.md"


def create_memory(root: Path, title: str, entry: str, exact_name: str | None = None) -> Path:
    """A new memory file named after its title; a taken name gets -2, -3, …; never overwrites.

    With ``exact_name`` (the name a person was shown) only that name is used: taken, it is refused.
    """
    refuse_when_busy(root)
    directory = memories_dir(root)
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise WriteError(f"{directory} cannot be created ({exc.strerror or exc}); nothing was written") from None
    stem = slugify(title)
    for name in [exact_name] if exact_name else free_names(stem):
        path = safe_memory_path(root, name)
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
        except FileExistsError:
            if exact_name:
                raise WriteError(f"{name} was created by someone else meanwhile; nothing was written") from None
            continue
        except OSError as exc:
            raise WriteError(f"{name} cannot be created ({exc.strerror or exc}); nothing was written") from None
        data = entry.encode("utf-8")
        journal = None
        try:
            journal = _begin(root, name, 0, data)
            _write_all(fd, data)
            os.fsync(fd)
            journal.unlink()
        except OSError as exc:
            # the file is new and ours alone (O_EXCL): remove it whole rather than leave half a memory
            os.unlink(path)
            if journal is not None:
                journal.unlink(missing_ok=True)
            raise WriteError(f"{name}: the write failed ({exc.strerror or exc}); nothing was written") from None
        finally:
            os.close(fd)
        return path
    raise WriteError(f"no free file name for {stem!r}")


def commit(root: Path, paths: list[Path], action: str, summary: str = "") -> str:
    """Commit exactly these files with a structured message; returns the new commit's sha."""
    from git import Repo
    from git.exc import GitCommandError, InvalidGitRepositoryError, NoSuchPathError

    try:
        repo = Repo(root, search_parent_directories=True)
    except (InvalidGitRepositoryError, NoSuchPathError):
        raise WriteError(f"{root} is not in a git repository; the change was written but not committed") from None
    top = Path(repo.working_tree_dir)
    rel = [os.path.relpath(Path(p).resolve(), top.resolve()) for p in paths]
    # names and titles come from memories: a newline or an escape sequence in one must not
    # forge a line of the message or reach the terminal of whoever runs `git log`
    names = ", ".join(clean_name(Path(p).name) for p in paths)
    summary = clean(summary.rstrip())
    message = f"rawko-tui: {action} {names}\n\n" + (summary + "\n\n" if summary else "") + f"Action: {action}\n" + "".join(f"Memory: {clean_name(r)}\n" for r in rel)
    deadline = time.monotonic() + INDEX_LOCK_WAIT_SECONDS
    while True:
        try:
            repo.git.add("--", *rel)
            if not repo.git.status("--porcelain", "--", *rel).strip():
                return repo.head.commit.hexsha  # another commit already holds these bytes
            repo.git.commit("-m", message, "--", *rel)
            return repo.head.commit.hexsha
        except GitCommandError as exc:
            reason = _git_reason(exc)
            # another git process (not rawko-tui: those wait for the write lock) holds the index for a moment
            if "index.lock" in reason and time.monotonic() < deadline:
                time.sleep(0.05)
                continue
            raise NotCommitted([Path(p) for p in paths], reason) from None


def _git_reason(exc) -> str:
    """git's own words, first meaningful line only, made safe for a terminal."""
    lines = [line.strip() for line in str(getattr(exc, "stderr", "") or exc).splitlines() if line.strip()]
    lines = [line.removeprefix("stderr: ").strip("'").strip() for line in lines]
    meaningful = [line for line in lines if line and not line.startswith(("cmdline:", "Cmd('git')"))]
    return clean(meaningful[0] if meaningful else "git failed")


class NotCommitted(WriteError):
    """The bytes are in the files, but they were not committed: never write them again."""

    def __init__(self, paths: list[Path], reason: str, why: str = "git refused the commit") -> None:
        self.paths = paths
        self.reason = reason
        names = ", ".join(clean_name(p.name) for p in paths)
        super().__init__(
            f"written but not committed: {names} now hold{'s' if len(paths) == 1 else ''} the change, but {why} ({reason}); "
            "commit it with git, do not write it again"
        )


def commit_if_repo(root: Path, paths: list[Path], action: str, summary: str = "") -> str | None:
    """Commit when the store is in git (the sha); outside git the write stands uncommitted (None)."""
    from .gitrepo import repo_root

    return commit(root, paths, action, summary) if repo_root(root) is not None else None


# --------------------------------------------------------------------------
# Planned writes: what a person is shown, confirms, and gets
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class PlannedWrite:
    """One write exactly as a person confirms it: the file and the bytes that go into it.

    ``kind`` is ``create`` (a new memory file), ``append`` (``data`` goes after
    the file's current end) or ``replace`` (a settings file, such as
    ``checks.yaml``, rewritten whole; ``data`` is its new content).
    """

    rel_path: str  # from the store root: .rawko/memories/x.md
    kind: str
    data: bytes
    seen: Seen | None = None  # what the person saw of the file before (append, replace)
    title: str = ""  # a new memory's title

    @property
    def name(self) -> str:
        return self.rel_path.rsplit("/", 1)[-1]

    def describe(self) -> str:
        """One line naming the target and the size, for the confirmation."""
        if self.kind == "create":
            return f"creates {self.rel_path} ({len(self.data):,} bytes)"
        if self.kind == "replace":
            return f"rewrites {self.rel_path} ({len(self.data):,} bytes; it held {self.seen.size if self.seen else 0:,})"
        before = self.seen.size if self.seen else 0
        return f"appends {len(self.data):,} bytes to {self.rel_path}, after its {before:,} bytes"


def _store_rel(root: Path, path: Path) -> str:
    return Path(path).relative_to(Path(root)).as_posix()


def plan_append(root: Path, name: str, entry: str, current: bytes | None = None) -> PlannedWrite:
    """An entry appended to a memory file: a blank line, then the entry (nothing before it changes)."""
    path = safe_memory_path(root, name)
    if current is None:
        try:
            current = path.read_bytes()
        except OSError as exc:
            raise WriteError(f"{name} cannot be read ({exc.strerror or exc}); nothing was written") from None
    data = ("\n\n" + entry if current else entry).encode("utf-8")
    return PlannedWrite(_store_rel(root, path), "append", data, Seen.of(current))


def plan_create(root: Path, title: str, text: str, taken: set[str] | None = None) -> PlannedWrite:
    """A new memory file under the first free kebab-case name for its title (as ``create_memory`` picks it)."""
    directory = memories_dir(root)
    stem = slugify(title)
    for name in free_names(stem):
        if not (directory / name).exists() and name not in (taken or set()):
            return PlannedWrite(f"{RAWKO_DIR}/{MEMORIES_DIR}/{name}", "create", text.encode("utf-8"), None, title)
    raise WriteError(f"no free file name for {stem!r}")


def plan_settings(root: Path, rel_path: str, new: bytes | None = None, addition: bytes | None = None) -> PlannedWrite:
    """A file of ``.rawko/`` other than a memory: an append (``addition``) or its new content (``new``)."""
    path = safe_store_path(root, rel_path)
    current = path.read_bytes() if path.is_file() else b""
    if addition is not None:
        if current and not current.endswith(b"\n"):
            addition = b"\n" + addition
        return PlannedWrite(rel_path, "append" if path.is_file() else "create", addition, Seen.of(current))
    return PlannedWrite(rel_path, "replace" if path.is_file() else "create", new or b"", Seen.of(current))


def safe_store_path(root: Path, rel_path: str) -> Path:
    """A file inside ``.rawko/`` (not through a link, never outside it)."""
    base = (Path(root) / RAWKO_DIR).resolve()
    candidate = (Path(root) / rel_path).resolve()
    if base not in candidate.parents or "\x00" in rel_path:
        raise WriteError(f"{rel_path!r} is outside .rawko")
    if (Path(root) / rel_path).is_symlink():
        raise WriteError(f"{rel_path!r} is a symlink; rawko-tui never writes through links")
    return candidate


@contextmanager
def write_lock(root: Path):
    """One rawko-tui write (and its commit) at a time per repository; waits a bounded time for the others.

    Gives the repository it locked (``locate_repository``), None outside git.

    Two writers that each append and then commit would otherwise race for git's
    index: one commit takes the other's bytes, and the other is told it failed.
    """
    from .gitrepo import locate_repository

    located = locate_repository(Path(root))
    folder = located[0] if located else Path(root) / RAWKO_DIR / JOURNAL_DIR
    try:
        folder.mkdir(parents=True, exist_ok=True)
        fd = os.open(folder / "rawko-tui-write.lock", os.O_RDWR | os.O_CREAT, 0o644)
    except OSError as exc:
        raise WriteError(f"the write lock in {folder} cannot be taken ({exc.strerror or exc}); nothing was written") from None
    try:
        deadline = time.monotonic() + LOCK_WAIT_SECONDS
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() > deadline:
                    raise WriteError(f"another rawko-tui write to this repository has not finished in {LOCK_WAIT_SECONDS:g} s; nothing was written") from None
                time.sleep(0.02)
        yield located
    finally:
        os.close(fd)  # releases the lock


@dataclass(frozen=True)
class Written:
    paths: list[Path]
    sha: str | None  # the commit; None when not committed (see ``why_uncommitted``)
    why_uncommitted: str = ""

    def describe(self, root: Path) -> str:
        names = ", ".join(clean_name(_store_rel(root, p)) for p in self.paths)
        if self.sha:
            return f"Wrote {names} and committed {self.sha[:10]}."
        return f"Wrote {names} (not committed: {self.why_uncommitted})."


def apply_writes(root: Path, writes: list[PlannedWrite], action: str, summary: str = "", and_commit: bool = True) -> Written:
    """Write exactly the planned bytes, then commit them all at once, holding the write lock throughout.

    Appends check that each file still starts with what was seen. A failure
    before any byte is written is a ``WriteError``; written but not committed is
    a ``NotCommitted`` naming the files.
    """
    with write_lock(root) as located:
        for write in writes:
            _precheck(root, write)  # every target as the person saw it, before the first byte is written
        paths: list[Path] = []
        for write in writes:
            try:
                paths.append(_apply_one(root, write))
            except WriteError as exc:
                if not paths:
                    raise
                raise NotCommitted(paths, f"{write.rel_path}: {exc}", "the next file could not be written, so nothing was committed") from None
        if not and_commit:
            return Written(paths, None, "--no-commit")
        if located is None:
            return Written(paths, None, "not a git repository")
        return Written(paths, commit(root, paths, action, summary))


_MEMORIES_PREFIX = f"{RAWKO_DIR}/{MEMORIES_DIR}/"


def _target(root: Path, write: PlannedWrite) -> Path:
    """The file a planned write goes to: a memory through ``safe_memory_path`` (no link anywhere on the way)."""
    if write.rel_path.startswith(_MEMORIES_PREFIX):
        return safe_memory_path(root, write.rel_path[len(_MEMORIES_PREFIX) :])
    return safe_store_path(root, write.rel_path)


def _precheck(root: Path, write: PlannedWrite) -> None:
    path = _target(root, write)
    if write.kind == "create" and path.exists():
        raise WriteError(f"{write.rel_path} was created by someone else meanwhile; nothing was written")
    if write.kind in ("append", "replace") and write.seen is not None:
        try:
            head = path.read_bytes()[: write.seen.size]
        except OSError as exc:
            raise WriteError(f"{write.rel_path} cannot be read ({exc.strerror or exc}); nothing was written") from None
        if Seen.of(head) != write.seen or (write.kind == "replace" and path.stat().st_size != write.seen.size):
            raise WriteError(f"{write.rel_path} changed on disk since it was shown; nothing was written")


def _apply_one(root: Path, write: PlannedWrite) -> Path:
    path = _target(root, write)
    if write.kind == "create" and write.rel_path.startswith(_MEMORIES_PREFIX):
        return create_memory(root, write.title or write.name, write.data.decode("utf-8"), exact_name=write.rel_path[len(_MEMORIES_PREFIX) :])
    if write.kind == "append":
        _append_bytes(root, path, write.name, lambda _current: write.data, write.seen)
        return path
    return replace_file(root, write)


def replace_file(root: Path, write: PlannedWrite) -> Path:
    """A settings file rewritten whole, atomically, only if it still holds what was seen."""
    refuse_when_busy(root)
    path = safe_store_path(root, write.rel_path)
    current = path.read_bytes() if path.is_file() else b""
    if write.seen is not None and Seen.of(current) != write.seen:
        raise WriteError(f"{write.rel_path} changed on disk since it was read; nothing was written")
    temporary = path.with_name(f".{path.name}.rawko-tui.tmp")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(temporary, "wb") as handle:
            handle.write(write.data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temporary, path)
    except OSError as exc:
        temporary.unlink(missing_ok=True)
        raise WriteError(f"{write.rel_path} cannot be written ({exc.strerror or exc}); it is as it was") from None
    return path


def person_name(root: Path) -> str:
    """Who is writing: ``author`` in the person's own settings, else the author git would record, else the login name.

    Never a store's ``author:``: a store cannot sign the person's entries with another name (settings.py).
    """
    from .settings import person_author

    configured = person_author()
    if configured:
        return configured
    from .gitrepo import GitError, git

    try:
        # the author git would record ("Name <email> time zone"): GIT_AUTHOR_NAME, then user.name
        ident = git(Path(root), "var", "GIT_AUTHOR_IDENT").decode("utf-8", "replace")
        name = ident.split(" <", 1)[0].strip()
    except GitError:
        name = ""
    return name or os.environ.get("USER") or "unknown"


STARTER_SETTINGS = """# rawko-tui's settings for this store (all optional).
# author: Your Name          # who appended entries are signed by (default: git's author)
# recursive: false           # preview an arbiter that also reads subfolders of memories/
# now: 2026-01-24T12:00:00Z  # pin "now" (recency) for reproducible reviews; default: the clock
# theme: textual-dark
# keymap: {memories-sort: f5}  # remap a key by its binding id (? lists them)
"""


def init_store(root: Path) -> list[Path]:
    """A new store: ``.rawko/memories/`` and a commented ``.rawko/rawko-tui.yaml``; what exists is left alone."""
    created = []
    directory = memories_dir(root)
    if not directory.is_dir():
        try:
            directory.mkdir(parents=True)
        except OSError as exc:
            raise WriteError(f"{directory} cannot be created ({exc.strerror or exc}); nothing was written") from None
        created.append(directory)
    settings = Path(root) / RAWKO_DIR / "rawko-tui.yaml"
    if not settings.exists():
        try:
            with open(settings, "x", encoding="utf-8") as handle:
                handle.write(STARTER_SETTINGS)
        except OSError as exc:
            raise WriteError(f"{settings} cannot be created ({exc.strerror or exc})") from None
        created.append(settings)
    return created
