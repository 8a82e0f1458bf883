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
from dataclasses import dataclass
from pathlib import Path

from .jsregex import JS_WHITESPACE
from .safetext import clean, clean_name
from .store import MEMORIES_DIR, RAWKO_DIR

CHUNK = 1 << 16
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


def format_entry(frontmatter: dict, body: str) -> str:
    """One entry as SPEC-0005's formatMemoryFile writes it: ``---\\n{yaml}---\\n\\n{body}``."""
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
    from .history import repository_state

    blocker = repository_state(Path(root)).write_blocker
    if blocker:
        raise WriteError(f"nothing was written: {blocker}")


def append_entry(root: Path, name: str, entry: str, seen: Seen | None) -> AppendResult:
    """Append ``entry`` to an existing memory file, after everything on disk."""
    path = safe_memory_path(root, name)
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
        data = ("\n\n" + entry if current else entry).encode("utf-8")
        journal = _begin_or_refuse(root, name, len(current), data)
        try:
            _write_all(fd, data)
            os.fsync(fd)
        except OSError as exc:
            raise _undo_partial_append(fd, name, len(current), data, journal, exc) from None
        journal.unlink()
        return AppendResult(path, len(current) + (2 if current else 0), len(data), merged_after)
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


def create_memory(root: Path, title: str, entry: str) -> Path:
    """A new memory file named after its title; a taken name gets -2, -3, …; never overwrites."""
    refuse_when_busy(root)
    directory = memories_dir(root)
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise WriteError(f"{directory} cannot be created ({exc.strerror or exc}); nothing was written") from None
    stem = slugify(title)
    for attempt in range(1, 1000):
        name = f"{stem}.md" if attempt == 1 else f"{stem}-{attempt}.md"
        path = safe_memory_path(root, name)
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
        except FileExistsError:
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
    try:
        repo.git.add("--", *rel)
        repo.git.commit("-m", message, "--", *rel)
    except GitCommandError as exc:
        raise WriteError(f"git refused the commit: {exc.stderr.strip() or exc}") from None
    return repo.head.commit.hexsha


def commit_if_repo(root: Path, paths: list[Path], action: str, summary: str = "") -> str | None:
    """Commit when the store is in git (the sha); outside git the write stands uncommitted (None)."""
    from .history import repo_root

    return commit(root, paths, action, summary) if repo_root(root) is not None else None
