"""The only module that writes: plan, apply, commit.

Rules it keeps, whoever calls it:

- A write is planned first (``PlannedWrite``) against git and the disk: the
  committed blob of the file, the working copy's bytes, and what lies between
  them.  A person is shown the plan; ``apply_writes`` writes exactly that or
  nothing.
- A commit made here contains exactly the bytes its confirmation showed.  It is
  built with git's plumbing: each new blob is the committed blob plus the bytes
  shown (``hash-object --no-filters``), the tree is HEAD's tree with those blobs
  (``mktree``), and ``update-ref HEAD NEW OLD`` refuses a HEAD that moved.
  Another person's staged changes, ``assume-unchanged``, ``skip-worktree`` and
  clean filters can neither add nor drop a byte.  The commit hooks still run
  (they may refuse, not change the commit), and HEAD is checked to hold the
  blobs before "committed" is said.
- Working copies are compared with their commits in committed form (git's
  line-ending conversion for the path, ``gitrepo.clean_conversions``).  A
  rewrite of committed bytes, in the working copy or the index, is refused
  before any byte is written, naming the lines.  Bytes another writer appended
  since the last commit are shown as such and committed only when the person
  chooses to (``include_foreign``), and the commit message names them.  A file
  that changed after its write was shown is not written (``ChangedSinceShown``):
  it is planned and shown again.
- A memory file is only ever appended to (``O_APPEND``); a new one is created
  with ``O_EXCL``; a settings file is replaced atomically.  Nothing is opened
  through a link: every folder from ``.rawko`` down is opened with
  ``O_NOFOLLOW`` relative to its parent.
- Entries are written the way SPEC-0005 appends them: ``existing + "\\n\\n" +
  "---\\n" + YAML + "---\\n\\n" + body``, and every entry ends with a newline.
- Every write is journaled (one record per write, never overwritten) before
  its first byte, and its record lives until its commit is made (or, outside
  git and with ``--no-commit``, until its bytes are on disk).  A write killed
  half-way leaves a torn write; one killed after its bytes but before its
  commit leaves rawko-tui's own uncommitted entry.  Either is reported until it
  is resolved (taken back, committed as rawko-tui's own, or, for a torn write,
  acknowledged), and the file is not appended to meanwhile.  Records a
  repository brings along (committed ones, or ones describing committed
  bytes) are no evidence of a write on this machine and are ignored.
- What is shown of bytes is exact: bytes that are not UTF-8 are shown as
  escapes (``shown_text``), never replaced; text with no UTF-8 form (a lone
  surrogate) is refused, never written.
"""

from __future__ import annotations

import errno
import fcntl
import hashlib
import io
import json
import os
import re
import secrets
import stat
import subprocess
import threading
import time
from contextlib import contextmanager
from pathlib import Path

from .. import records
from ..records import replace
from ..disk.gitrepo import (
    GitError,
    clean_conversions,
    first_difference,
    git,
    locate_repository,
    repo_root,
    repository_state_in,
    rev_sha,
    rewrite_of,
)
from ..js.regexp import JS_WHITESPACE
from ..text.safetext import clean, clean_name
from ..store.reading import MEMORIES_DIR, NEVER_CLOSED, RAWKO_DIR, MemoryFile, parse_memory_bytes
from .journals import FOLDER_FLAGS as _FOLDER_FLAGS, GIT_JOURNAL_DIR, JOURNAL_DIR, NOFOLLOW as _NOFOLLOW

CHUNK = 1 << 16
LOCK_WAIT_SECONDS = 30.0  # how long a write waits for another rawko-tui write to finish
INDEX_LOCK_WAIT_SECONDS = 2.0  # ... and for another git command's index.lock (a stale one is reported after this)
FILE_LIMIT = 64 << 20  # the largest file rawko-tui appends to (it is read whole to be compared with its commit)
_HOOK_SECONDS = 600


class WriteError(Exception):
    """A write that would break the append-only record, or could not be done; nothing was written."""


class ChangedSinceShown(WriteError):
    """A file changed after its write was shown to the person: nothing was written; plan it and show it again."""

    def __init__(self, rel_path: str, what: str) -> None:
        self.rel_path = rel_path
        self.what = what
        super().__init__(f"{clean_name(rel_path)} changed since it was shown ({what}); nothing was written")


class NotCommitted(WriteError):
    """The bytes are in the files, but they were not committed: never write them again."""

    def __init__(self, paths: list[Path], reason: str, why: str = "git refused the commit", recorded: bool = True) -> None:
        """``recorded``: the write's journal records stay, so its bytes are reported as rawko-tui's own until resolved."""
        self.paths = paths
        self.reason = reason
        names = ", ".join(clean_name(Path(p).name) for p in paths)
        first = clean_name(Path(paths[0]).name) if paths else "MEMORY"
        todo = (
            f"do not write it again: `rawko-tui torn {first}` shows it as rawko-tui's own and commits it (--commit) or takes it back (--take-back)"
            if recorded
            else "commit it with git, do not write it again"
        )
        super().__init__(f"written but not committed: {names} now hold{'s' if len(paths) == 1 else ''} the change, but {why} ({reason}); {todo}")


class _Refused(Exception):
    """The commit could not be made (a hook said no, HEAD moved); the bytes written for it are taken back."""


@records.record(frozen=True)
class Seen:
    """What the caller read of a file: its length and a digest of those bytes."""

    size: int
    sha256: str

    @classmethod
    def of(cls, data: bytes) -> "Seen":
        return cls(len(data), hashlib.sha256(data).hexdigest())


@records.record(frozen=True)
class AppendResult:
    path: Path
    offset: int  # where the new entry starts
    written: int
    merged_after: int  # bytes another writer appended since the caller read the file
    record: "tuple[_Journal, str] | None" = None  # the write's journal record, kept until its commit (``keep_record``)


def shown_text(data: bytes) -> str:
    """Bytes as a person reads them: UTF-8 text, and each byte that is not UTF-8 as a visible escape (``\\xff``).

    Never U+FFFD: a replacement character would show one thing while another is committed.
    """
    return data.decode("utf-8", "backslashreplace")


_SURROGATE = re.compile("[\ud800-\udfff]")


def _no_utf8_form(text: str, at: int) -> str:
    """Where ``text`` holds a code point UTF-8 cannot encode, in a person's words."""
    code = ord(text[at])
    line = text.count("\n", 0, at) + 1
    if 0xDC80 <= code <= 0xDCFF:  # how Python carries a byte of a command-line argument that is not UTF-8
        what = f"\\x{code - 0xDC00:02x}, a byte that is not UTF-8 (or the lone surrogate \\u{code:04x})"
    else:
        what = f"\\u{code:04x}, a lone surrogate (half of a UTF-16 pair)"
    return f"holds {what} on line {line}: it is not text and has no UTF-8 form"


def _utf8(text: str, what: str) -> bytes:
    """The UTF-8 bytes that are written; text without a UTF-8 form is refused (a WriteError saying where), never replaced."""
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise WriteError(f"{what} {_no_utf8_form(text, exc.start)}; nothing was written") from None


def _refuse_non_text(value: object, what: str) -> None:
    """Every string in a field's value (keys included) must have a UTF-8 form: a session's or Claude's \\ud800 escape has none."""
    if isinstance(value, str):
        found = _SURROGATE.search(value)
        if found:
            raise WriteError(f"{what} {_no_utf8_form(value, found.start())}; nothing was written")
    elif isinstance(value, dict):
        for key, item in value.items():
            _refuse_non_text(key, what)
            _refuse_non_text(item, what)
    elif isinstance(value, (list, tuple)):
        for item in value:
            _refuse_non_text(item, what)


def slugify(title: str) -> str:
    """The kebab-case file stem for a title (seed 001: ``kebab-case-descriptive-name.md``)."""
    slug = re.sub(r"[^a-z0-9]+", "-", title.lower()).strip("-")
    return slug[:80].rstrip("-") or "memory"


def memories_dir(root: Path) -> Path:
    return Path(root) / RAWKO_DIR / MEMORIES_DIR


def loadable_fields(frontmatter: dict) -> dict:
    """The fields in the shapes every arbiter profile loads (rawko-sdk's validation gate is the strictest).

    ``tags`` a list of text, ``importance`` lower case, ``whenToUse`` text or a
    list of text (a ``{pattern: …}`` map becomes its pattern), dates as ISO
    text (which both YAML dialects read as text, quoted by the dumper).
    Only the fields present are touched: an appended entry keeps its few.
    """
    import datetime as dt

    from ..js.values import JsDate

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
    for key, value in frontmatter.items():
        _refuse_non_text(key, "a field name of the entry")
        _refuse_non_text(value, f"the entry's {clean_name(str(key))}")
    _refuse_non_text(body, "the entry's text")
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


def ends_with_newline(text: str) -> str:
    """An entry as written: ending with a newline, so the next ``cat >>`` of an agent starts on a line of its own."""
    return text if text.endswith("\n") else text + "\n"


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


# --------------------------------------------------------------------------
# Paths: never outside the store, never through a link
# --------------------------------------------------------------------------

_MEMORIES_PREFIX = f"{RAWKO_DIR}/{MEMORIES_DIR}/"


def _name_parts(name: str) -> list[str]:
    """A memory's name (``x.md``, ``sub/x.md``) as its parts below ``memories/``; anything that could leave it is refused."""
    if not name.endswith(".md") or "\x00" in name:
        raise WriteError(f"{clean_name(name)!r} is not a memory file name (it must end in .md)")
    parts = name.split("/")
    if name.startswith("/") or any(part in ("", ".", "..") for part in parts):
        raise WriteError(f"{clean_name(name)!r} is outside .rawko/memories")
    return parts


def _store_parts(rel_path: str) -> list[str]:
    """A path from the store root (``.rawko/…``) as its parts; only files inside ``.rawko/`` are ever written."""
    parts = rel_path.split("/")
    if "\x00" in rel_path or parts[0] != RAWKO_DIR or len(parts) < 2 or any(part in ("", ".", "..") for part in parts):
        raise WriteError(f"{clean_name(rel_path)!r} is outside .rawko")
    return parts


def safe_memory_path(root: Path, name: str) -> Path:
    """``.rawko/memories/<name>``, refusing anything that would leave that folder or go through a link."""
    parts = _name_parts(name)
    _refuse_links(Path(root), [RAWKO_DIR, MEMORIES_DIR, *parts], name)
    return memories_dir(root).joinpath(*parts)


def safe_store_path(root: Path, rel_path: str) -> Path:
    """A file inside ``.rawko/`` (never through a link, never outside it)."""
    parts = _store_parts(rel_path)
    _refuse_links(Path(root), parts, rel_path)
    return Path(root).joinpath(*parts)


def _refuse_links(root: Path, parts: list[str], shown: str) -> None:
    current = root
    for part in parts:
        current = current / part
        if current.is_symlink():
            raise WriteError(f"{clean_name(shown)!r} goes through a symlink ({clean_name(current.relative_to(root).as_posix())}); rawko-tui never writes through links")


def _open_folder(root: Path, parts: list[str], create: bool = False) -> int:
    """A descriptor for ``root/parts…``, each folder opened relative to its parent without following a link.

    The store root itself may be a link (the person's own choice); ``.rawko``,
    ``memories/`` and everything below are not: a link there could send a write
    anywhere.  ``create`` makes missing folders.
    """
    fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        for i, part in enumerate(parts):
            try:
                child = os.open(part, _FOLDER_FLAGS, dir_fd=fd)
            except FileNotFoundError:
                if not create:
                    raise
                try:
                    os.mkdir(part, 0o755, dir_fd=fd)
                except FileExistsError:
                    pass
                child = os.open(part, _FOLDER_FLAGS, dir_fd=fd)
            except OSError as exc:
                if exc.errno in (errno.ELOOP, errno.ENOTDIR):
                    shown = "/".join(parts[: i + 1])
                    kind = "a symlink" if _is_link(fd, part) else "not a folder"
                    raise WriteError(f"{clean_name(shown)} is {kind}; rawko-tui never writes through links, so nothing was written") from None
                raise
            os.close(fd)
            fd = child
    except BaseException:
        os.close(fd)
        raise
    return fd


def _is_link(folder: int, name: str) -> bool:
    try:
        return stat.S_ISLNK(os.stat(name, dir_fd=folder, follow_symlinks=False).st_mode)
    except OSError:
        return False


def _open_file(folder: int, name: str, flags: int, shown: str) -> int:
    """A regular file in ``folder``, opened without following a link (a FIFO or device is refused, never waited on)."""
    try:
        fd = os.open(name, flags | _NOFOLLOW | os.O_NONBLOCK, 0o644, dir_fd=folder)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise WriteError(f"{clean_name(shown)} is a symlink; rawko-tui never writes through links, so nothing was written") from None
        raise
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode):
        os.close(fd)
        raise WriteError(f"{clean_name(shown)} is not a regular file; nothing was written")
    return fd


def _open_store_file(root: Path, rel_path: str, flags: int) -> tuple[int, int]:
    """(descriptor of its folder, descriptor of the file) for a path inside ``.rawko/``; the caller closes both."""
    parts = _store_parts(rel_path)
    folder = _open_folder(Path(root), parts[:-1])
    try:
        return folder, _open_file(folder, parts[-1], flags, rel_path)
    except BaseException:
        os.close(folder)
        raise


@contextmanager
def _file(root: Path, rel_path: str, flags: int):
    """(descriptor of its folder, descriptor of the file) for a path inside ``.rawko/``, closed after."""
    folder, fd = _open_store_file(root, rel_path, flags)
    try:
        yield folder, fd
    finally:
        os.close(fd)
        os.close(folder)


def _read_fd(fd: int, limit: int = FILE_LIMIT, shown: str = "the file") -> bytes:
    chunks = []
    offset = 0
    while True:
        chunk = os.pread(fd, 1 << 20, offset)
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)
        offset += len(chunk)
        if offset > limit:
            raise WriteError(f"{clean_name(shown)} holds more than {limit:,} bytes, too many to compare with its commit; nothing was written")


def read_current(root: Path, rel_path: str) -> bytes | None:
    """The file's bytes now (None when it does not exist), read without following a link."""
    try:
        with _file(root, rel_path, os.O_RDONLY) as (_folder, fd):
            return _read_fd(fd, shown=rel_path)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise WriteError(f"{clean_name(rel_path)} cannot be read ({exc.strerror or exc}); nothing was written") from None


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        written = os.write(fd, view[:CHUNK])
        view = view[written:]


# --------------------------------------------------------------------------
# What git holds of a file
# --------------------------------------------------------------------------


@records.record(frozen=True)
class _Repo:
    top: Path
    git_dir: Path
    store: str  # the store root from the top of the work tree: "" or "sub/dir/"

    @classmethod
    def of(cls, root: Path) -> "_Repo | None":
        try:  # the git dir and the work tree's top in one git call (a bare repository has no top: no repository here)
            said = git(Path(root), "rev-parse", "--absolute-git-dir", "--show-toplevel").decode()
        except GitError:
            return None
        except UnicodeDecodeError:
            said = None
        if said is not None and said.count("\n") == 2:
            git_dir, top = (Path(line) for line in said.split("\n")[:2])
        else:  # not a repository, or a path holding a line break: asked one at a time, as ever
            located = locate_repository(Path(root))
            top = repo_root(Path(root)) if located else None
            if located is None or top is None:
                return None
            git_dir = located[0]
        rel = Path(os.path.relpath(Path(root).resolve(), top.resolve())).as_posix()
        return cls(top, git_dir, "" if rel == "." else rel + "/")

    def path(self, rel_path: str) -> str:
        return self.store + rel_path

    def head(self) -> str | None:
        return rev_sha(self.top, "HEAD")


@records.record(frozen=True)
class _Committed:
    blob: str | None  # the file's blob at HEAD (None: not in HEAD)
    mode: str
    data: bytes
    staged: str | None  # why the index does not hold exactly the committed file (None: it does)


def _committed(repo: _Repo, head: str | None, path: str) -> _Committed:
    blob, mode = None, "100644"
    if head is not None:
        for record in git(repo.top, "--literal-pathspecs", "ls-tree", "-z", "--full-tree", head, "--", path).split(b"\x00"):
            meta, _, name = record.partition(b"\t")
            if name.decode("utf-8", "surrogateescape") != path:
                continue
            entry_mode, kind, sha = meta.decode().split(" ")
            if kind != "blob" or entry_mode == "120000":
                what = {"tree": "a folder", "commit": "a submodule"}.get(kind, "a symlink")
                raise WriteError(f"{clean_name(path)} is {what} in the last commit, not a file; nothing was written")
            blob, mode = sha, entry_mode
    entries = []
    for record in git(repo.top, "--literal-pathspecs", "ls-files", "-s", "-z", "--", path).split(b"\x00"):
        meta, _, name = record.partition(b"\t")
        if name.decode("utf-8", "surrogateescape") == path:
            entries.append(meta.decode().split(" "))  # mode, sha, stage
    staged = None
    data = git(repo.top, "cat-file", "blob", blob) if blob else b""
    if any(stage != "0" for _mode, _sha, stage in entries):
        staged = "it has unresolved merge conflicts in the index"
    elif entries and entries[0][1] != blob:
        staged = "its staged version (the index) differs from the last commit"
        rewrite = rewrite_of(data, git(repo.top, "cat-file", "blob", entries[0][1])) if blob else None
        if rewrite is not None:  # name the lines, as for a working copy; committing it would commit the rewrite
            staged = f"its staged version (the index) is not an append of the last commit ({_named_lines(rewrite)}); never commit it"
    elif not entries and blob is not None:
        staged = "it is staged for deletion"
    return _Committed(blob, mode, data, staged)


def _line_span(before: bytes, span: bytes) -> tuple[int, int]:
    """The lines (1-based, inclusive) that ``span`` occupies when it follows ``before``."""
    first = before.count(b"\n") + 1
    return first, first + span.rstrip(b"\n").count(b"\n")


# --------------------------------------------------------------------------
# Planned writes: what a person is shown, confirms, and gets
# --------------------------------------------------------------------------


@records.record(frozen=True)
class PlannedWrite:
    """One write exactly as a person confirms it: the file and the bytes that go into it.

    ``kind`` is ``create`` (a new file), ``append`` (``data`` goes after the
    file's current end), ``replace`` (a settings file, such as
    ``checks.yaml``, rewritten whole; ``data`` is its new content) or
    ``commit`` (``data`` is rawko-tui's own entry, already in the file from a
    write stopped before its commit (``record``): nothing is written, the
    entry is committed).  In git, the plan also records the file's committed
    blob and the bytes another writer appended after it (``foreign``, as git
    would store them): they are committed with ``data`` only when
    ``include_foreign`` is chosen.
    """

    rel_path: str  # from the store root: .rawko/memories/x.md
    kind: str
    data: bytes
    seen: Seen | None = None  # the working copy when planned (None: it did not exist)
    title: str = ""  # a new memory's title
    in_git: bool = False  # planned against a git repository (the fields below are meaningful)
    committed: str | None = None  # the file's blob at HEAD when planned (None: not in HEAD)
    committed_size: int = 0  # its length: where the bytes not yet committed begin
    foreign: bytes = b""  # bytes appended since that commit that are not this write's: another writer's, unless ``own`` says otherwise
    foreign_lines: tuple[int, int] = (0, 0)
    include_foreign: bool = False  # the person chose to commit them with this write
    # byte ranges (start, end, what) of the file, in committed form, inside ``foreign`` that rawko-tui wrote: ``torn``, the torn
    # part of an interrupted write the person acknowledged, or ``no-commit``, an entry written with --no-commit. Never said
    # to be another writer's
    own: tuple[tuple[int, int, str], ...] = ()
    record: str = ""  # kind ``commit``: the journal record of the interrupted write it commits
    line: int = 0  # kind ``commit``: the line its entry starts on

    @property
    def name(self) -> str:
        return self.rel_path.rsplit("/", 1)[-1]

    @property
    def memory_name(self) -> str | None:
        """The name inside ``memories/`` (``sub/x.md``), None for a settings file."""
        return self.rel_path[len(_MEMORIES_PREFIX) :] if self.rel_path.startswith(_MEMORIES_PREFIX) else None

    def describe(self) -> str:
        """One line naming the target and the size, for the confirmation."""
        if self.kind == "create":
            return f"creates {self.rel_path} ({len(self.data):,} bytes)"
        if self.kind == "replace":
            return f"rewrites {self.rel_path} ({len(self.data):,} bytes; it held {self.seen.size if self.seen else 0:,})"
        if self.kind == "commit":
            line = (
                f"commits {len(self.data):,} bytes of {self.rel_path} from line {self.line}: rawko-tui's own entry, already in the file "
                "from a write that was stopped before its commit (nothing is written to the file)"
            )
            if self.foreign:
                line += f"; {len(self.foreign):,} bytes before it are not committed: {self._whose()}"
            return line
        before = self.seen.size if self.seen else 0
        line = f"appends {len(self.data):,} bytes to {self.rel_path}, after its {before:,} bytes"
        if self.foreign:
            line += f" ({len(self.foreign):,} of them not committed: {self._whose()})"
        return line

    def _whose(self) -> str:
        """Who wrote the uncommitted bytes, part by part."""
        said = []
        for whose, parts in self._grouped():
            said.append(f"{_OWN_WORDS.get(whose, 'not written by rawko-tui')}: {'; '.join(self.where(s, e) for s, e in parts)}")
        return "; ".join(said)

    def foreign_parts(self) -> list[tuple[int, int, str]]:
        """``foreign`` cut into byte ranges of the file (committed form), each with whose it is: ``other`` (another
        writer's), or what rawko-tui wrote (``torn``, ``no-commit``)."""
        end = self.committed_size + len(self.foreign)
        at, parts = self.committed_size, []
        for start, stop, whose in sorted(self.own):
            start, stop = max(start, at), min(stop, end)
            if start >= stop:
                continue
            if start > at:
                parts.append((at, start, "other"))
            parts.append((start, stop, whose))
            at = stop
        if at < end:
            parts.append((at, end, "other"))
        return parts

    def _grouped(self) -> list[tuple[str, list[tuple[int, int]]]]:
        """The parts of ``foreign`` by whose they are, in the order they come in the file."""
        grouped: dict[str, list[tuple[int, int]]] = {}
        for start, stop, whose in self.foreign_parts():
            grouped.setdefault(whose, []).append((start, stop))
        return list(grouped.items())

    def others(self) -> list[tuple[int, int]]:
        """The ranges of ``foreign`` another writer appended."""
        return [(start, stop) for start, stop, whose in self.foreign_parts() if whose == "other"]

    def where(self, start: int, end: int) -> str:
        """Bytes ``start`` to ``end`` (exclusive) of ``foreign``'s part of the file, as lines and bytes."""
        offset = start - self.committed_size
        first = self.foreign_lines[0] + self.foreign[:offset].count(b"\n")
        last = first + self.foreign[offset : end - self.committed_size].rstrip(b"\n").count(b"\n")
        lines = f"line {first}" if first == last else f"lines {first}-{last}"
        return f"{lines}, bytes {start:,}-{end - 1:,}"

    def foreign_where(self) -> str:
        return self.where(self.committed_size, self.committed_size + len(self.foreign))

    def foreign_note(self) -> str:
        """What the confirmation says of bytes appended since the last commit that are not this write's."""
        said = f"{self.rel_path} holds {len(self.foreign):,} bytes ({self.foreign_where()}) appended since the last commit"
        grouped = self._grouped()
        if [whose for whose, _ in grouped] == ["other"]:
            return said + " by another writer; rawko-tui did not write them"
        pieces = []
        for whose, parts in grouped:
            size = f"{sum(e - s for s, e in parts):,} of them ({'; '.join(self.where(s, e) for s, e in parts)})"
            pieces.append(f"{size} were appended by another writer, not rawko-tui" if whose == "other" else f"{size} {_OWN_NOTE[whose]}")
        return said + ": " + "; ".join(pieces)


# what rawko-tui's own uncommitted bytes are, in a confirmation's words
_OWN_WORDS = {"torn": "the torn part of an interrupted rawko-tui write, acknowledged", "no-commit": "rawko-tui's own entry, written with --no-commit"}
_OWN_NOTE = {
    "torn": "are the torn part of an interrupted rawko-tui write, which you acknowledged",
    "no-commit": "are rawko-tui's own entry, written with --no-commit and not committed since",
}


def _store_rel(root: Path, path: Path) -> str:
    return Path(path).relative_to(Path(root)).as_posix()


def plan_append(root: Path, name: str, entry: str) -> PlannedWrite:
    """An entry appended to a memory file: a blank line, then the entry (nothing before it changes).

    Refused when the file holds a torn write, or when its working copy or index
    rewrites what is committed (the lines are named).
    """
    parts = _name_parts(name)
    rel_path = _MEMORIES_PREFIX + "/".join(parts)
    torn = [t for t in torn_writes(root) if t.rel_path == rel_path]
    if torn:
        raise WriteError(f"{torn[0].rel_path} holds {torn[0].describe()}; nothing was written. {torn_hint(torn[0])}")
    entry = ends_with_newline(entry)

    def appended(current: bytes | None) -> bytes:
        unfinished = _unfinished_entry(rel_path, current) if current else None
        if unfinished is not None:
            raise WriteError(
                f"{clean_name(rel_path)}: the entry at line {unfinished} is unfinished: its frontmatter is never closed with '---' "
                "(another writer's interrupted write?), and an entry appended after it would be read as part of it; "
                "nothing was written. Look at those lines (lint names them: torn-entry); remove them if they are not "
                "committed (git restore), or close them with a '---' line yourself if they are"
            )
        return _utf8("\n\n" + entry if current else entry, "the entry")

    return _plan(Path(root), rel_path, "append", appended)


def _unfinished_entry(rel_path: str, current: bytes) -> int | None:
    """The line of an appended entry whose frontmatter is never closed at the end of ``current`` (None: none is).

    Such a block reads to the end of the file: the next ``---`` line, the one an append starts with, would close
    it, and the appended entry would become its body.
    """
    name = rel_path[len(_MEMORIES_PREFIX) :]
    memory = MemoryFile(location=rel_path, rel_path=rel_path, name=name, top_level="/" not in name, size=len(current))
    parse_memory_bytes(memory, current)
    unclosed = [block for block in memory.suspect_blocks if block.reason == NEVER_CLOSED]
    return unclosed[-1].line if unclosed else None


def committed_names(root: Path) -> set[str]:
    """The names under ``.rawko/memories/`` the last commit or the index holds: a new memory may not take one
    (creating it would replace committed content)."""
    repo = _Repo.of(Path(root))
    committed: set[str] = set()
    if repo is not None:
        prefix = repo.path(_MEMORIES_PREFIX)
        for listing in (("ls-tree", "-r", "-z", "--name-only", "--full-tree", "HEAD"), ("ls-files", "-z")):
            out = git(repo.top, "--literal-pathspecs", *listing, "--", prefix.rstrip("/"), check=False)
            committed |= {n.decode("utf-8", "surrogateescape")[len(prefix) :] for n in out.split(b"\x00") if n}
    return committed


def new_memory_name(root: Path, title: str, taken: set[str]) -> str:
    """The first free kebab-case name for a new memory with this title (as ``create_memory`` picks it): none of
    ``taken`` (with ``committed_names``) and no file there."""
    stem = slugify(title)
    for name in free_names(stem):
        if name not in taken and not os.path.lexists(memories_dir(root) / name):
            return name
    raise WriteError(f"no free file name for {stem!r}")


def plan_create(root: Path, title: str, text: str, taken: set[str] | None = None) -> PlannedWrite:
    """A new memory file under the first free kebab-case name for its title (``new_memory_name``)."""
    name = new_memory_name(root, title, (taken or set()) | committed_names(root))
    write = _plan(Path(root), _MEMORIES_PREFIX + name, "create", lambda _current: _utf8(ends_with_newline(text), "the new memory"))
    return replace(write, title=title)


def plan_settings(root: Path, rel_path: str, new: bytes | None = None, addition: bytes | None = None) -> PlannedWrite:
    """A file of ``.rawko/`` other than a memory: an append (``addition``) or its new content (``new``)."""
    if addition is not None:

        def appended(current: bytes | None) -> bytes:
            return (b"\n" + addition) if current and not current.endswith(b"\n") else addition

        return _plan(Path(root), rel_path, "append", appended, may_create=True)
    return _plan(Path(root), rel_path, "replace", lambda _current: new or b"", may_create=True)


def _plan(root: Path, rel_path: str, kind: str, make_data, may_create: bool = False) -> PlannedWrite:
    """The write of ``make_data(current bytes)`` to ``rel_path``, planned against the disk and, in git, against HEAD."""
    try:
        return _plan_against_git(root, rel_path, kind, make_data, may_create)
    except GitError as exc:
        raise WriteError(f"{clean_name(rel_path)}: git could not say what the last commit holds ({_git_reason(exc)}); nothing was written") from None


def _git_reason(exc: GitError) -> str:
    """git's own words, its last line (the one that says what failed), made safe for a terminal."""
    lines = [line.strip() for line in str(exc).splitlines() if line.strip()]
    return clean(lines[-1] if lines else "git failed")


def _plan_against_git(root: Path, rel_path: str, kind: str, make_data, may_create: bool) -> PlannedWrite:
    current = read_current(root, rel_path)
    if kind == "create" and current is not None:
        raise WriteError(f"{rel_path} exists already; nothing was written")
    if kind in ("append", "replace") and current is None:
        if not may_create:
            raise WriteError(f"{rel_path} does not exist; create it instead")
        kind = "create"
    data = make_data(current)
    seen = Seen.of(current) if current is not None else None
    repo = _Repo.of(root)
    if repo is None:
        return PlannedWrite(rel_path, kind, data, seen)
    path = repo.path(rel_path)
    committed = _committed(repo, repo.head(), path)
    shown = clean_name(rel_path)
    if kind == "create":
        if committed.blob is not None or committed.staged:
            raise WriteError(
                f"{shown} is not in the working copy but the last commit or the index holds it: writing it would replace "
                f"committed content; restore it first (git checkout -- {clean_name(path)}); nothing was written"
            )
        return PlannedWrite(rel_path, kind, data, seen, in_git=True)
    if committed.staged:
        until = "it is unstaged" if "not an append" in committed.staged else "that is committed or unstaged"
        raise WriteError(
            f"{shown}: {committed.staged}; rawko-tui commits exactly what it shows, so it writes nothing until {until} "
            f"(git restore --staged {clean_name(path)})"
        )
    conversion = clean_conversions(repo.top, [path])[path]
    if conversion.unsupported:
        raise WriteError(f"{shown} cannot be compared with its last commit: {conversion.unsupported}; nothing was written")
    converted = conversion.to_git(current, committed.data)
    if kind == "replace":
        if committed.blob is None or converted != committed.data:
            state = "is not committed yet" if committed.blob is None else "has changes that are not committed"
            raise WriteError(f"{shown} {state} (the commit would hold them too, unseen); commit or discard them first; nothing was written")
        return PlannedWrite(rel_path, kind, data, seen, in_git=True, committed=committed.blob, committed_size=len(committed.data))
    _refuse_rewrite(shown, path, committed.data, converted, "appending")
    if conversion.to_git(current + data, committed.data) != converted + data:
        raise WriteError(f"{shown}: git would change the line endings of this entry when committing it (its text/eol attributes); nothing was written")
    foreign = converted[len(committed.data) :]
    return PlannedWrite(
        rel_path,
        kind,
        data,
        seen,
        in_git=True,
        committed=committed.blob,
        committed_size=len(committed.data),
        foreign=foreign,
        foreign_lines=_line_span(committed.data, foreign) if foreign else (0, 0),
        own=_own_uncommitted(root, rel_path, current, committed.data, conversion) if foreign and rel_path.startswith(_MEMORIES_PREFIX) else (),
    )


def _refuse_rewrite(shown: str, path: str, committed: bytes, converted: bytes, doing: str) -> None:
    """A working copy (in committed form) that does not start with every committed byte is never committed: the lines are named."""
    rewrite = rewrite_of(committed, converted)
    if rewrite is not None:
        raise WriteError(
            f"{shown}: the working copy is not an append of the last commit ({_named_lines(rewrite)}); "
            f"{doing} would commit that rewrite too, so nothing was written. Restore the committed lines (git restore {clean_name(path)}) first"
        )


def _named_lines(rewrite) -> str:
    """A rewrite in words: where, and the first lines lost and what replaced them."""
    lost = "; ".join(repr(line) for line in rewrite.lost[:2])
    now = "; ".join(repr(line) for line in rewrite.now[:2]) or "nothing"
    return f"{rewrite.message}: {lost} became {now}"


def replan(root: Path, writes: list[PlannedWrite]) -> list[PlannedWrite]:
    """The same writes planned again on the files as they are now (after ``ChangedSinceShown``).

    An append keeps its entry, a new memory its title and text (it may get
    another free name); a settings file's content depends on what it held, so
    its caller plans it again instead (``WriteError``).
    """
    fresh: list[PlannedWrite] = []
    taken: set[str] = set()
    for write in writes:
        name = write.memory_name
        if name is not None and write.kind == "append":
            entry = write.data.decode("utf-8")
            entry = entry[2:] if write.seen and write.seen.size and entry.startswith("\n\n") else entry
            fresh.append(plan_append(root, name, entry))
        elif name is not None and write.kind == "create":
            planned = plan_create(root, write.title or write.name, write.data.decode("utf-8"), taken)
            taken.add(planned.name)
            fresh.append(planned)
        elif write.kind == "commit":
            torn = next((t for t in torn_writes(root) if t.record == write.record), None)
            if torn is None:
                raise WriteError(f"{write.rel_path}: its interrupted write is resolved already; nothing was written")
            fresh.append(plan_commit(root, torn))
        else:
            raise WriteError(f"{write.rel_path} changed since it was shown; nothing was written: make the change again")
    return fresh


def free_names(stem: str):
    """The names a new memory may take, in order: ``stem.md``, then ``stem-2.md``, ``stem-3.md``, …"""
    yield f"{stem}.md"
    for attempt in range(2, 1000):
        yield f"{stem}-{attempt}.md"


# --------------------------------------------------------------------------
# The write journal: one record per write, kept until the write is committed
# --------------------------------------------------------------------------


@records.record(frozen=True)
class _Journal:
    """Where a store's write records are: the git dir when there is one, else ``.rawko/.write-journal``."""

    folder: Path  # the folder that holds the journal folder
    parts: tuple[str, ...]  # the journal folder below it, each part opened without following a link
    prefix: str  # what a record's path starts with for this store: the store's place in the work tree
    owned: bool  # this version writes here (the other place is only read: records of older versions)
    shown: str  # how a message names it


def _journals(root: Path, repo: "_Repo | None") -> list[_Journal]:
    in_store = _Journal(Path(root), (RAWKO_DIR, JOURNAL_DIR), "", repo is None, f"{RAWKO_DIR}/{JOURNAL_DIR}")
    if repo is None:
        return [in_store]
    return [_Journal(repo.git_dir, (GIT_JOURNAL_DIR,), repo.store, True, f"{repo.git_dir.name}/{GIT_JOURNAL_DIR} in the git dir"), in_store]


_RECORD = ".write"  # a record: a JSON header line, then the entry's bytes
_ACK = ".ack"  # a person's acknowledgement of a torn write
_LEGACY = ".json"  # older versions' records: one per file, the header only
_HEADER_LIMIT = 1 << 16

TORN = "torn"  # part of an entry reached the file, and the rest never will
UNCOMMITTED = "uncommitted"  # all of rawko-tui's entry reached the file, but the commit it was written for was never made
DEFERRED = "no-commit"  # all of rawko-tui's entry reached the file, written with --no-commit: not a problem, but rawko-tui's own


@records.record(frozen=True)
class _Record:
    journal: _Journal
    file: str  # the record's own file name
    rel_path: str  # the memory, from the store root
    offset: int
    length: int
    sha256: str
    data: bytes | None  # the entry's bytes (None for an older version's record)
    pid: int | None = None  # the process that wrote it (None: an older version's record)
    commit: bool = False  # the write was to be committed: its bytes are unfinished business until HEAD holds them
    create: bool = False  # the write created the file
    deferred: bool = False  # written with --no-commit: rawko-tui's own bytes until HEAD holds them


@records.record(frozen=True)
class TornWrite:
    """A write that began and never finished.

    ``kind`` TORN: part of an entry is in the file, and the rest never will be.
    ``kind`` UNCOMMITTED: all of rawko-tui's entry is in the file (``entry``),
    but the process was stopped before its commit was made.  (``kind``
    DEFERRED, an entry written with --no-commit, is no interrupted write: it is
    never reported, only known as rawko-tui's own until a commit holds it.)
    """

    rel_path: str  # from the store root: .rawko/memories/x.md
    record: str  # the journal record it was recognised by
    offset: int
    length: int
    arrived: int  # bytes of the entry that reached the file
    line: int  # where the entry starts
    removable: bytes | None  # the bytes a take-back removes; None when it cannot (see why_kept)
    why_kept: str = ""
    kind: str = TORN
    entry: bytes | None = None  # UNCOMMITTED: the entry, as it is in the file
    create: bool = False  # the write created the file: taking it back removes the file

    @property
    def name(self) -> str:
        return self.rel_path[len(_MEMORIES_PREFIX) :]

    @property
    def uncommitted(self) -> bool:
        return self.kind == UNCOMMITTED

    def describe(self) -> str:
        if self.uncommitted:
            return (
                f"an interrupted write: rawko-tui's own entry of {self.length:,} bytes starting at line {self.line} is in the file in full, "
                "but the commit it was written for was never made"
            )
        return f"an interrupted write: {self.arrived:,} of {self.length:,} bytes of the entry starting at line {self.line} reached the file"


def torn_hint(torn: TornWrite) -> str:
    """What a person can do about a torn write, in the command line's words."""
    name = clean_name(torn.name)
    if torn.uncommitted:
        hint = f"`rawko-tui torn {name} --commit` commits them as rawko-tui's own (shown first)"
        if torn.removable is not None:
            return hint + f"; `rawko-tui torn {name} --take-back` removes its {len(torn.removable):,} bytes (shown first)"
        return hint + f"; they cannot be taken back ({torn.why_kept})"
    if torn.removable is not None:
        return f"`rawko-tui torn {name} --take-back` removes its {len(torn.removable):,} bytes (shown first); `rawko-tui torn {name} --acknowledge` keeps them"
    return f"Its bytes cannot be taken back ({torn.why_kept}); `rawko-tui torn {name} --acknowledge` records that you have seen it"


def _new_record_name(suffix: str) -> str:
    return f"{time.time_ns():020d}-{os.getpid()}-{secrets.token_hex(4)}{suffix}"


def _begin(root: Path, rel_path: str, offset: int, data: bytes, commit: bool = False, create: bool = False, deferred: bool = False) -> tuple[_Journal, str]:
    """Record the write about to happen, in a record of its own, so an interrupted one is recognised later.

    ``commit``: the write is to be committed, and its record stays until it is (``_settle``).  ``deferred``: written
    with --no-commit; its record stays so that its bytes are known as rawko-tui's own until a commit holds them.
    """
    repo = _Repo.of(Path(root))
    journal = next(j for j in _journals(Path(root), repo) if j.owned)
    header = {
        "v": 3,
        "path": journal.prefix + rel_path,
        "offset": offset,
        "length": len(data),
        "sha256": hashlib.sha256(data).hexdigest(),
        "pid": os.getpid(),
        "at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "commit": commit,
        "create": create,
        "deferred": deferred,
    }
    name = _new_record_name(_RECORD)
    try:
        folder = _open_folder(journal.folder, list(journal.parts), create=True)
        try:
            fd = os.open(name, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW, 0o600, dir_fd=folder)
            try:
                _write_all(fd, json.dumps(header).encode() + b"\n" + data)
                os.fsync(fd)
            except OSError:
                os.unlink(name, dir_fd=folder)
                raise
            finally:
                os.close(fd)
            os.fsync(folder)
        finally:
            os.close(folder)
    except OSError as exc:
        raise WriteError(f"the write could not be recorded in {journal.shown} ({exc.strerror or exc}); nothing was written") from None
    return journal, name


def _finish(journal: _Journal, name: str) -> None:
    """The write is done with (committed, or on disk where nothing commits it, or taken back): its record goes."""
    try:
        folder = _open_folder(journal.folder, list(journal.parts))
        try:
            os.unlink(name, dir_fd=folder)
        finally:
            os.close(folder)
    except (OSError, WriteError):
        pass  # a leftover record of a finished write is recognised as finished and never reported


def _read_records(root: Path, repo: "_Repo | None") -> tuple[list[_Record], set[str], list[tuple[str, str]]]:
    """Every write record of this store, the records acknowledged, and the records ignored (with why)."""
    records: list[_Record] = []
    acknowledged: set[str] = set()
    ignored: list[tuple[str, str]] = []
    for journal in _journals(Path(root), repo):
        try:
            folder = _open_folder(journal.folder, list(journal.parts))
        except FileNotFoundError:
            continue
        except (OSError, WriteError) as exc:
            ignored.append((journal.shown, f"the write journal cannot be read ({clean(str(exc))}): its records are ignored"))
            continue
        try:
            names = sorted(os.listdir(folder))
            # in a repository, the store's own journal folder is only where older versions kept records: one the last
            # commit holds came with the history (a clone), and says nothing of a write on this machine
            came_with_history = _committed_names(repo, journal) if repo is not None and not journal.owned and names else set()
            for name in names:
                if not name.endswith((_RECORD, _ACK, _LEGACY)):
                    continue
                where = f"{journal.shown}/{clean_name(name)}"
                if name in came_with_history:
                    ignored.append((where, "a write-journal record the last commit holds: it came with the repository's history, not from a write on this machine; ignored"))
                    continue
                try:
                    fd = os.open(name, os.O_RDONLY | _NOFOLLOW | os.O_NONBLOCK, dir_fd=folder)
                    try:
                        raw = _read_record_fd(fd)
                    finally:
                        os.close(fd)
                    header_line, _, data = raw.partition(b"\n")
                    header = json.loads(header_line[:_HEADER_LIMIT])
                except (OSError, ValueError, RecursionError, WriteError) as exc:  # a record nested past the parser's depth too
                    reason = "a symlink" if isinstance(exc, OSError) and exc.errno == errno.ELOOP else str(getattr(exc, "strerror", None) or exc)
                    ignored.append((where, f"a write-journal record that cannot be read ({clean(reason)}): ignored"))
                    continue
                if not isinstance(header, dict):
                    ignored.append((where, "a write-journal record that is not a JSON object: ignored"))
                    continue
                if name.endswith(_ACK):
                    if isinstance(header.get("acknowledges"), str):
                        acknowledged.add(header["acknowledges"])
                    continue
                record = _parse_record(journal, name, header, data if name.endswith(_RECORD) else None)
                if isinstance(record, str):
                    ignored.append((where, record))
                else:
                    records.append(record)
        finally:
            os.close(folder)
    return records, acknowledged, ignored


def _committed_names(repo: "_Repo", journal: _Journal) -> set[str]:
    """The names in the journal folder that the last commit holds (a clone brought them)."""
    head = repo.head()
    if head is None:
        return set()
    folder = repo.path("/".join(journal.parts))
    try:
        out = git(repo.top, "--literal-pathspecs", "ls-tree", "-r", "-z", "--name-only", "--full-tree", head, "--", folder)
    except GitError:
        return set()
    names = set()
    for item in out.split(b"\x00"):
        path = item.decode("utf-8", "surrogateescape")
        if path.startswith(folder + "/") and "/" not in path[len(folder) + 1 :]:
            names.add(path[len(folder) + 1 :])
    return names


def _read_record_fd(fd: int) -> bytes:
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode):
        raise WriteError("not a regular file")
    return _read_fd(fd, FILE_LIMIT + _HEADER_LIMIT, "a write-journal record")


def _parse_record(journal: _Journal, name: str, header: dict, data: bytes | None) -> "_Record | str":
    """A record naming a memory file of this store, or why it is ignored (it names something else: ``/dev/zero``, ``../../x``)."""
    named = header.get("path", header.get("file"))  # an older version's record names the memory from memories/
    path = named if "path" in header else (_MEMORIES_PREFIX + named if isinstance(named, str) else None)
    offset, length, digest = header.get("offset"), header.get("length"), header.get("sha256")
    if not isinstance(path, str) or not all(isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in (offset, length)) or not isinstance(digest, str):
        return "a write-journal record without a file, offset, length and digest: ignored"
    shown = clean_name(named)
    if not path.startswith(journal.prefix + _MEMORIES_PREFIX):
        return f"a write-journal record naming {shown!r}, which is not a memory file of this store: ignored"
    try:
        _name_parts(path[len(journal.prefix + _MEMORIES_PREFIX) :])
    except WriteError:
        return f"a write-journal record naming {shown!r}, which is not a memory file of this store: ignored"
    if data is not None and (len(data) != length or hashlib.sha256(data).hexdigest() != digest):
        data = None  # a record cut short itself: the entry's bytes are not known
    pid = header.get("pid")
    pid = pid if isinstance(pid, int) and not isinstance(pid, bool) and 0 < pid < 1 << 31 else None
    # only this version's own journal (the git dir: never cloned, never committed) can ask for a commit, say that the
    # bytes are rawko-tui's to keep, or that the write made the file (a take-back then removes it)
    own = journal.owned and data is not None
    flag = lambda key: own and header.get(key) is True  # noqa: E731
    return _Record(journal, name, path[len(journal.prefix) :], offset, length, digest, data, pid, flag("commit"), flag("create"), flag("deferred"))


@records.record(frozen=True)
class _Survey:
    torn: list[TornWrite]  # interrupted writes not resolved
    acknowledged: list[TornWrite]  # torn writes a person acknowledged, their bytes still uncommitted
    ignored: list[tuple[str, str]]  # (where, why) of records that are no evidence of a write here
    deferred: list[TornWrite]  # entries written with --no-commit, not committed since (kind DEFERRED): no problem, rawko-tui's own


def _survey(root: Path) -> _Survey:
    """The store's interrupted writes, resolved or not, and the journal records ignored."""
    root = Path(root)
    repo = _Repo.of(root)
    records, acknowledged, ignored = _read_records(root, repo)
    found: list[TornWrite] = []
    seen: list[TornWrite] = []
    deferred: list[TornWrite] = []
    busy: bool | None = None
    for record in records:
        judged = _judge(root, repo, record)
        if isinstance(judged, str):
            if not record.journal.owned:  # in this version's own journal, a record of committed bytes is simply settled
                ignored.append((f"{record.journal.shown}/{clean_name(record.file)}", judged))
            continue
        if judged is None:
            continue
        if judged.kind == DEFERRED:
            deferred.append(judged)
            continue
        if record.file in acknowledged:
            seen.append(judged)
            continue
        if record.pid is not None:
            busy = _locked_by_another(root) if busy is None else busy
            if busy and _alive(record.pid):
                continue  # a write under way (its commit, and its hooks, still to come), not an interrupted one
        found.append(judged)
    return _Survey(found, seen, ignored, deferred)


def _own_uncommitted(root: Path, rel_path: str, current: bytes, committed: bytes, conversion) -> tuple[tuple[int, int, str], ...]:
    """The ranges of the file (committed form) that rawko-tui wrote and no commit holds: the torn parts of interrupted
    writes a person acknowledged (``torn``), and entries written with --no-commit (``no-commit``)."""
    survey = _survey(root)
    spans = []
    for torn in [t for t in survey.acknowledged if t.kind == TORN] + survey.deferred:
        if torn.rel_path == rel_path:
            start = len(conversion.to_git(current[: torn.offset], committed))
            spans.append((start, len(conversion.to_git(current[: torn.offset + torn.arrived], committed)), torn.kind))
    return tuple(sorted(spans))


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)  # signal 0: only asks whether it exists
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # it exists, as another user's
    except (OSError, OverflowError):
        return False
    return True


def _locked_by_another(root: Path) -> bool:
    """Whether another process (or another thread of this one) holds the write lock: a rawko-tui write is under way."""
    located = locate_repository(Path(root))
    try:
        folder = os.open(located[0], os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC) if located else _open_folder(Path(root), [RAWKO_DIR, JOURNAL_DIR])
    except (OSError, WriteError):
        return False
    try:
        info = os.fstat(folder)
        if (info.st_dev, info.st_ino) in (getattr(_held, "keys", None) or set()):
            return False  # this thread's own write: its records are judged as they are
        try:
            fd = os.open("rawko-tui-write.lock", os.O_RDONLY | os.O_NONBLOCK | _NOFOLLOW, dir_fd=folder)
        except OSError:
            return False
        try:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                return False
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
            return False  # nobody writes (the shared lock goes when the file is closed)
        except BlockingIOError:
            return True
        except OSError:
            return False
        finally:
            os.close(fd)
    finally:
        os.close(folder)


_COMMITTED_RECORD = "a write-journal record of bytes the last commit holds: not a write left unfinished on this machine; ignored"


def _judge(root: Path, repo: "_Repo | None", record: _Record) -> "TornWrite | str | None":
    """What a record stands for now: a torn or uncommitted write; None when the write finished (and, if it was to be, was
    committed) or nothing of it reached the file; or why it is no evidence of a write on this machine (it describes
    bytes the last commit holds)."""
    try:
        current = read_current(root, record.rel_path)
    except WriteError:
        current = None
    if current is None or len(current) <= record.offset:
        return None  # nothing of it is in the file (or the file is gone: verify reports that)
    committed, conversion = None, None
    if repo is not None:
        path = repo.path(record.rel_path)
        try:
            committed = _committed(repo, repo.head(), path)
            conversion = clean_conversions(repo.top, [path])[path]
        except (GitError, WriteError):
            committed = None
        if committed is not None and not conversion.unsupported:
            before = conversion.to_git(current[: record.offset], committed.data)
            if len(committed.data) > len(before) and committed.data.startswith(before):
                return _COMMITTED_RECORD
    tail = current[record.offset : record.offset + record.length]
    complete = len(tail) == record.length and hashlib.sha256(tail).hexdigest() == record.sha256
    if complete and record.deferred and repo is not None:
        line = current[: record.offset].count(b"\n") + 1
        return TornWrite(record.rel_path, record.file, record.offset, record.length, record.length, line, None, "", DEFERRED, tail, record.create)
    if complete and not (record.commit and repo is not None):
        return None  # it finished, and nothing was to commit it; only its record was left behind
    if complete:
        arrived = record.length
    elif record.data is not None:
        arrived = first_difference(tail, record.data)
        if arrived == 0:
            return None  # killed before its first byte: what follows the offset is someone else's
    else:
        arrived = min(len(current) - record.offset, record.length)
    line = current[: record.offset].count(b"\n") + 1
    removable, why = _removable(repo, record, current, committed, conversion)
    kind = UNCOMMITTED if complete else TORN
    return TornWrite(record.rel_path, record.file, record.offset, record.length, arrived, line, removable, why, kind, tail if complete else None, record.create)


def _removable(repo: "_Repo | None", record: _Record, current: bytes, committed: "_Committed | None", conversion) -> tuple[bytes | None, str]:
    """The bytes a take-back would remove: rawko-tui's own, never committed, and the very end of the file."""
    if record.data is None:
        return None, "an older rawko-tui recorded only their digest, so they cannot be told from other bytes"
    tail = current[record.offset :]
    if not record.data.startswith(tail):
        return None, "other bytes follow them or stand in their place; removing them would remove someone else's"
    if repo is not None:
        if committed is None:
            return None, "git could not say what the last commit holds"
        if committed.staged:
            return None, f"the index holds another version of the file ({committed.staged})"
        if conversion.unsupported or not conversion.to_git(current[: record.offset], committed.data).startswith(committed.data):
            return None, "they are committed: taking them back would rewrite history"
    return tail, ""


def _forget_settled(root: Path, repo: "_Repo | None") -> None:
    """Under the write lock: the records of writes that finished, or never began, go (only the unresolved ones stay)."""
    records, _acknowledged, _ignored = _read_records(root, repo)
    for record in records:
        if record.journal.owned and not isinstance(_judge(root, repo, record), TornWrite):
            _finish(record.journal, record.file)


def torn_writes(root: Path) -> list[TornWrite]:
    """Every write that began and never finished (torn, or written but never committed), and is not resolved."""
    return _survey(root).torn


def interrupted_writes(root: Path) -> list[tuple[str, str]]:
    """(memory name, what happened) for every torn write that is not resolved (lint and verify report them)."""
    return [(torn.name, torn.describe()) for torn in torn_writes(root)]


def journal_problems(root: Path) -> list[tuple[str, str]]:
    """(where, why) for every write-journal record that was ignored: unreadable, naming no memory file of this store,
    committed to the repository, or describing bytes the last commit holds."""
    return _survey(root).ignored


def journal_report(root: Path) -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
    """``interrupted_writes`` and ``journal_problems`` from one survey of the journals (lint says both)."""
    survey = _survey(root)
    return [(torn.name, torn.describe()) for torn in survey.torn], survey.ignored


def take_back(root: Path, torn: TornWrite) -> bytes:
    """Remove a torn or uncommitted write's bytes from the end of its file (rawko-tui's own, never committed); returns them.

    Done under the write lock and the file's lock, after checking again that the
    file ends exactly in those bytes; its record then goes.  A file the write
    created, holding nothing else, is removed.
    """
    with write_lock(root):
        fresh = next((t for t in torn_writes(root) if t.record == torn.record), None)
        if fresh is None:
            raise WriteError(f"{torn.rel_path}: that interrupted write is resolved already; nothing was changed")
        if fresh.removable is None or fresh.removable != torn.removable:
            raise WriteError(f"{torn.rel_path}: its bytes cannot be taken back ({fresh.why_kept or 'the file changed since they were shown'}); nothing was changed")
        with _file(root, torn.rel_path, os.O_RDWR) as (folder, fd):
            fcntl.flock(fd, fcntl.LOCK_EX)
            current = _read_fd(fd, shown=torn.rel_path)
            if current != current[: torn.offset] + torn.removable or len(current) != torn.offset + len(torn.removable):
                raise WriteError(f"{torn.rel_path} changed since its torn write was shown; nothing was changed")
            if fresh.create and torn.offset == 0:
                os.unlink(torn.rel_path.rsplit("/", 1)[-1], dir_fd=folder)  # it held nothing but the interrupted write
            else:
                os.ftruncate(fd, torn.offset)
                os.fsync(fd)
        repo = _Repo.of(Path(root))
        for journal in _journals(Path(root), repo):
            _finish(journal, torn.record)
    return torn.removable


def acknowledge(root: Path, torn: TornWrite, by: str) -> str:
    """Record that a person has seen a torn write whose bytes stay (the file may then be appended to again); returns where.

    Not for rawko-tui's own complete entry left uncommitted: kept unresolved, it
    would later be committed as bytes another writer appended; it is committed
    (``plan_commit``) or taken back instead.
    """
    if torn.uncommitted:
        raise WriteError(
            f"{torn.rel_path} holds rawko-tui's own entry, complete but never committed: commit it as rawko-tui's (--commit) "
            "or take it back (--take-back); acknowledged, it would later be committed as bytes another writer appended. Nothing was recorded"
        )
    repo = _Repo.of(Path(root))
    journal = next(j for j in _journals(Path(root), repo) if j.owned)
    record = {
        "v": 2,
        "acknowledges": torn.record,
        "path": torn.rel_path,
        "by": by,
        "at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "what": torn.describe(),
    }
    name = _new_record_name(_ACK)
    with write_lock(root):
        try:
            folder = _open_folder(journal.folder, list(journal.parts), create=True)
            try:
                fd = os.open(name, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW, 0o600, dir_fd=folder)
                try:
                    _write_all(fd, json.dumps(record).encode() + b"\n")
                    os.fsync(fd)
                finally:
                    os.close(fd)
            finally:
                os.close(folder)
        except OSError as exc:
            raise WriteError(f"the acknowledgement could not be recorded in {journal.shown} ({exc.strerror or exc})") from None
    return f"{journal.shown}/{name}"


def plan_commit(root: Path, torn: TornWrite) -> PlannedWrite:
    """The commit of rawko-tui's own entry that a write stopped before its commit left in the file: nothing is written.

    Bytes another writer appended before it, not committed, are shown as theirs
    (``foreign``) and committed only when chosen, as for an append.
    """
    root = Path(root)
    shown = clean_name(torn.rel_path)
    if not torn.uncommitted or torn.entry is None:
        raise WriteError(f"{shown} holds {torn.describe()}: only part of the entry is there, so it is never committed; nothing was written. {torn_hint(torn)}")
    repo = _Repo.of(root)
    if repo is None:
        raise WriteError(f"{shown}: the store is not in a git repository, so there is nothing to commit")
    current = read_current(root, torn.rel_path)
    if current is None or current[torn.offset : torn.offset + torn.length] != torn.entry:
        raise WriteError(f"{shown} changed since its interrupted write was found; nothing was written")
    path = repo.path(torn.rel_path)
    try:
        committed = _committed(repo, repo.head(), path)
        conversion = clean_conversions(repo.top, [path])[path]
    except GitError as exc:
        raise WriteError(f"{shown}: git could not say what the last commit holds ({_git_reason(exc)}); nothing was written") from None
    if committed.staged:
        raise WriteError(f"{shown}: {committed.staged}; rawko-tui commits exactly what it shows, so it commits nothing until that is committed or unstaged (git restore --staged {clean_name(path)})")
    if conversion.unsupported:
        raise WriteError(f"{shown} cannot be compared with its last commit: {conversion.unsupported}; nothing was written")
    before = conversion.to_git(current[: torn.offset], committed.data)
    _refuse_rewrite(shown, path, committed.data, before, "committing the entry")
    if conversion.to_git(current[: torn.offset + torn.length], committed.data) != before + torn.entry:
        raise WriteError(f"{shown}: git would change the line endings of this entry when committing it (its text/eol attributes); nothing was written")
    foreign = before[len(committed.data) :]
    return PlannedWrite(
        torn.rel_path,
        "commit",
        torn.entry,
        Seen.of(current),
        in_git=True,
        committed=committed.blob,
        committed_size=len(committed.data),
        foreign=foreign,
        foreign_lines=_line_span(committed.data, foreign) if foreign else (0, 0),
        own=_own_uncommitted(root, torn.rel_path, current, committed.data, conversion) if foreign else (),
        record=torn.record,
        line=torn.line,
    )


# --------------------------------------------------------------------------
# Writing bytes
# --------------------------------------------------------------------------


def refuse_when_busy(root: Path) -> None:
    """Raise WriteError when the repository is mid-rebase, mid-merge, locked or on a detached HEAD."""
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
    """Append ``entry`` to an existing memory file, after everything on disk (a blank line between entries).

    The working copy only: nothing is committed, and bytes another writer
    appended since ``seen`` are kept (the entry goes after them).
    """
    rel_path = _MEMORIES_PREFIX + "/".join(_name_parts(name))
    entry = ends_with_newline(entry)
    refuse_when_busy(root)
    return _append(Path(root), rel_path, lambda current: _utf8("\n\n" + entry if current else entry, "the entry"), seen, exact=False)


def _append(root: Path, rel_path: str, make_data, seen: Seen | None, exact: bool, keep_record: bool = False, deferred: bool = False) -> AppendResult:
    """Append ``make_data(current bytes)`` under the file's lock.

    ``exact``: the file must hold exactly what was seen (a planned write);
    otherwise it must only start with it (bytes appended since are kept).
    ``keep_record``: the bytes are to be committed; their journal record stays
    (``AppendResult.record``) until the commit is made.
    """
    try:
        folder, fd = _open_store_file(root, rel_path, os.O_RDWR | os.O_APPEND)
    except FileNotFoundError:
        raise WriteError(f"{rel_path} does not exist; create it instead") from None
    except OSError as exc:
        raise WriteError(f"{rel_path} cannot be opened for appending ({exc.strerror or exc}); nothing was written") from None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        current = _read_fd(fd, shown=rel_path)
        merged_after = 0
        if seen is not None:
            if exact and Seen.of(current) != seen:
                raise ChangedSinceShown(rel_path, _what_changed(current, seen))
            head = current[: seen.size]
            if len(head) < seen.size or hashlib.sha256(head).hexdigest() != seen.sha256:
                raise WriteError(
                    f"{rel_path} changed on disk since it was read and no longer starts with what was read "
                    "(rewritten or truncated by someone else); nothing was written"
                )
            merged_after = len(current) - seen.size
        data = make_data(current)
        journal, record = _begin(root, rel_path, len(current), data, commit=keep_record and not deferred, deferred=keep_record and deferred)
        try:
            _write_all(fd, data)
            os.fsync(fd)
        except OSError as exc:
            raise _undo_partial_append(fd, rel_path, len(current), data, journal, record, exc) from None
        after = _read_fd(fd, shown=rel_path) if exact else current + data
        if not after.startswith(current + data):
            # another writer's bytes landed between the check and this write: ours are not where they were shown
            if after.endswith(data) and len(after) > len(current) + len(data):
                os.ftruncate(fd, len(after) - len(data))
                os.fsync(fd)
                _finish(journal, record)
                raise ChangedSinceShown(rel_path, f"another writer appended {len(after) - len(current) - len(data):,} bytes at the same moment; the entry was taken back")
            _finish(journal, record)
            raise NotCommitted([Path(root) / rel_path], "another writer appended at the same moment, so the entry is not where it was shown", "its place changed", recorded=False)
        if not keep_record:
            _finish(journal, record)
        start = len(current) + (len(data) - len(data.lstrip(b"\n")) if current else 0)
        return AppendResult(Path(root) / rel_path, start, len(data), merged_after, (journal, record) if keep_record else None)
    finally:
        os.close(fd)  # releases the file's lock
        os.close(folder)


def _what_changed(current: bytes, seen: Seen) -> str:
    """How a file differs from what was shown of it, in a person's words."""
    if len(current) > seen.size and Seen.of(current[: seen.size]) == seen:
        return f"{len(current) - seen.size:,} bytes were appended to it by another writer"
    if len(current) < seen.size:
        return f"it was cut to {len(current):,} of the {seen.size:,} bytes shown"
    return "it was rewritten"


def _undo_partial_append(fd: int, rel_path: str, offset: int, data: bytes, journal: _Journal, record: str, exc: OSError) -> WriteError:
    """After a failed write (disk full, quota, I/O error): take back the part that reached the file.

    Only when the file ends exactly in a prefix of our entry: bytes someone else
    appended after it are never cut. Otherwise the record stays, and lint and
    verify report the torn write.
    """
    reason = exc.strerror or str(exc)
    name = rel_path.rsplit("/", 1)[-1]
    try:
        tail = _read_fd(fd)[offset:]
        if len(tail) <= len(data) and data.startswith(tail):
            os.ftruncate(fd, offset)
            os.fsync(fd)
            _finish(journal, record)
            return WriteError(f"{name}: the write failed ({reason}); nothing was written, the file is as it was")
    except OSError:
        pass
    return WriteError(f"{name}: the write failed ({reason}) after part of the entry was written; lint reports it as a torn entry")


def create_memory(root: Path, title: str, entry: str, exact_name: str | None = None) -> Path:
    """A new memory file named after its title; a taken name gets -2, -3, …; never overwrites.

    With ``exact_name`` (the name a person was shown) only that name is used: taken, it is refused.
    """
    refuse_when_busy(root)
    stem = slugify(title)
    for name in [exact_name] if exact_name else free_names(stem):
        rel_path = _MEMORIES_PREFIX + "/".join(_name_parts(name))
        try:
            return _create(Path(root), rel_path, _utf8(ends_with_newline(entry), "the new memory"))[0]
        except FileExistsError:
            if exact_name:
                raise WriteError(f"{name} was created by someone else meanwhile; nothing was written") from None
    raise WriteError(f"no free file name for {stem!r}")


def _create(root: Path, rel_path: str, data: bytes, keep_record: bool = False, deferred: bool = False) -> "tuple[Path, tuple[_Journal, str] | None]":
    """A new file holding ``data`` (``O_EXCL``: an existing file or link is never written); FileExistsError when taken.

    Gives the path and, with ``keep_record`` (the file is to be committed), its journal record, kept until the commit.
    """
    name = rel_path.rsplit("/", 1)[-1]
    parts = _store_parts(rel_path)
    try:
        folder = _open_folder(root, parts[:-1], create=True)
    except OSError as exc:
        raise WriteError(f"{'/'.join(parts[:-1])} cannot be created ({exc.strerror or exc}); nothing was written") from None
    try:
        # recorded before the file exists: a write stopped at any point after is recognised
        record = _begin(root, rel_path, 0, data, commit=keep_record and not deferred, create=True, deferred=keep_record and deferred)
        try:
            fd = os.open(parts[-1], os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW, 0o644, dir_fd=folder)
        except FileExistsError:
            _finish(*record)
            raise
        except OSError as exc:
            _finish(*record)
            raise WriteError(f"{name} cannot be created ({exc.strerror or exc}); nothing was written") from None
        try:
            _write_all(fd, data)
            os.fsync(fd)
        except OSError as exc:
            # the file is new and ours alone (O_EXCL): remove it whole rather than leave half a memory
            os.unlink(parts[-1], dir_fd=folder)
            _finish(*record)
            raise WriteError(f"{name}: the write failed ({exc.strerror or exc}); nothing was written") from None
        finally:
            os.close(fd)
    finally:
        os.close(folder)
    if not keep_record:
        _finish(*record)
        return root / rel_path, None
    return root / rel_path, record


def replace_file(root: Path, write: PlannedWrite) -> Path:
    """A settings file rewritten whole, atomically, only if it still holds what was seen.

    The new content goes to a temporary file of a fresh random name (``O_EXCL``:
    never a link or file that is there already), which then replaces the file.
    """
    refuse_when_busy(root)
    parts = _store_parts(write.rel_path)
    try:
        folder = _open_folder(Path(root), parts[:-1], create=True)
    except OSError as exc:
        raise WriteError(f"{write.rel_path} cannot be written ({exc.strerror or exc}); it is as it was") from None
    temporary = f".{parts[-1]}.{secrets.token_hex(6)}.rawko-tui.tmp"
    try:
        try:
            fd = _open_file(folder, parts[-1], os.O_RDONLY, write.rel_path)
            try:
                current = _read_fd(fd, shown=write.rel_path)
            finally:
                os.close(fd)
        except FileNotFoundError:
            current = None
        if write.seen is not None and (current is None or Seen.of(current) != write.seen) or write.seen is None and current is not None:
            raise WriteError(f"{write.rel_path} changed on disk since it was read; nothing was written")
        try:
            fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW, 0o644, dir_fd=folder)
            try:
                _write_all(fd, write.data)
                os.fsync(fd)
            finally:
                os.close(fd)
            os.replace(temporary, parts[-1], src_dir_fd=folder, dst_dir_fd=folder)
        except OSError as exc:
            try:
                os.unlink(temporary, dir_fd=folder)
            except OSError:
                pass
            raise WriteError(f"{write.rel_path} cannot be written ({exc.strerror or exc}); it is as it was") from None
    finally:
        os.close(folder)
    return Path(root) / write.rel_path


# --------------------------------------------------------------------------
# One write at a time
# --------------------------------------------------------------------------

_held = threading.local()


@contextmanager
def write_lock(root: Path):
    """One rawko-tui write (and its commit) at a time per repository; waits a bounded time for the others.

    Gives the repository it locked (``locate_repository``), None outside git.
    Taken again by the same thread (a command that plans under the lock, then
    applies), it is already held.

    Two writers that each append and then commit would otherwise race for git's
    index: one commit takes the other's bytes, and the other is told it failed.
    """
    located = locate_repository(Path(root))
    try:
        if located:
            folder = os.open(located[0], os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
        else:
            folder = _open_folder(Path(root), [RAWKO_DIR, JOURNAL_DIR], create=True)
    except OSError as exc:
        raise WriteError(f"the write lock cannot be taken ({exc.strerror or exc}); nothing was written") from None
    try:
        info = os.fstat(folder)
        key = info.st_dev, info.st_ino
        held = getattr(_held, "keys", None)
        if held is None:
            held = _held.keys = set()
        if key in held:
            yield located
            return
        try:
            fd = os.open("rawko-tui-write.lock", os.O_RDWR | os.O_CREAT | _NOFOLLOW, 0o644, dir_fd=folder)
        except OSError as exc:
            raise WriteError(f"the write lock cannot be taken ({exc.strerror or exc}); nothing was written") from None
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
            held.add(key)
            try:
                yield located
            finally:
                held.discard(key)
        finally:
            os.close(fd)  # releases the lock
    finally:
        os.close(folder)


# --------------------------------------------------------------------------
# Applying planned writes, and committing exactly them
# --------------------------------------------------------------------------


@records.record(frozen=True)
class Written:
    paths: list[Path]
    sha: str | None  # the commit; None when not committed (see ``why_uncommitted``)
    why_uncommitted: str = ""
    note: str = ""  # something the person should know (the index could not be updated)
    wrote: bool = True  # False: only committed bytes already in the files (an interrupted write's entry)

    def describe(self, root: Path) -> str:
        names = ", ".join(clean_name(_store_rel(root, p)) for p in self.paths)
        if self.sha and not self.wrote:
            return f"Committed {names} ({self.sha[:10]}): rawko-tui's own entry, already in the file, is in HEAD now." + (f" {self.note}" if self.note else "")
        if self.sha:
            return f"Wrote {names} and committed {self.sha[:10]}." + (f" {self.note}" if self.note else "")
        return f"Wrote {names} (not committed: {self.why_uncommitted})."


@records.record(frozen=True)
class _Applied:
    write: PlannedWrite
    before: bytes | None  # the file before (None: it did not exist)
    record: "tuple[_Journal, str] | None" = None  # its journal record, kept until the commit is made

    @property
    def after(self) -> bytes:
        if self.write.kind == "append":
            return (self.before or b"") + self.write.data
        if self.write.kind == "commit":
            return self.before or b""
        return self.write.data


def apply_writes(root: Path, writes: list[PlannedWrite], action: str, summary: str = "", and_commit: bool = True) -> Written:
    """Write exactly the planned bytes, then commit exactly them, holding the write lock throughout.

    Every target is checked against its plan before the first byte is written:
    a file that changed is ``ChangedSinceShown``; bytes another writer appended
    are committed only when the plan includes them (``include_foreign``).  A
    failure before the commit takes back what was written (``WriteError``:
    nothing was written); written but not committed is ``NotCommitted``.
    """
    root = Path(root)
    with write_lock(root) as located:
        refuse_when_busy(root)
        repo = _Repo.of(root) if located else None
        _forget_settled(root, repo)
        committing = and_commit and repo is not None
        if not committing and any(write.kind == "commit" for write in writes):
            raise WriteError("an interrupted write's entry is only ever committed, and this write makes no commit; nothing was written")
        befores = [_precheck(root, repo, write, committing) for write in writes]
        if committing:
            _check_identity(repo)
        applied: list[_Applied] = []
        for write, before in zip(writes, befores):
            try:
                # a memory's bytes that are to be committed keep their journal record until HEAD holds them:
                # a write stopped before its commit is then rawko-tui's own uncommitted entry, never another writer's bytes
                # (with --no-commit, kept so that they are known as rawko-tui's own bytes until a commit holds them)
                record = _apply_one(root, write, keep_record=repo is not None and write.memory_name is not None, deferred=not and_commit)
            except WriteError as exc:
                if applied and not _take_back_all(root, applied):
                    raise NotCommitted([root / a.write.rel_path for a in applied], f"{write.rel_path}: {exc}", "the next file could not be written") from None
                raise
            applied.append(_Applied(write, before, record))
        paths = [root / write.rel_path for write in writes]
        if not and_commit:
            return Written(paths, None, "--no-commit")
        if repo is None:
            return Written(paths, None, "not a git repository")
        try:
            made = _make_commit(repo, root, applied, action, summary)
            _record_commit(repo, made)
        except _Refused as exc:
            if _take_back_all(root, applied):
                raise WriteError(f"nothing was written: {exc}") from None
            raise NotCommitted(paths, str(exc)) from None
        # "committed" is said only once HEAD is seen to hold exactly these blobs
        try:
            missing = _not_held(repo, made)
        except GitError as exc:
            missing = f"HEAD could not be read ({_git_reason(exc)})"
        if missing:
            raise NotCommitted(paths, missing, "HEAD does not hold the commit that was made")
        _settle(repo, root, applied)
        note = _update_index(repo, made.changes)
        _run_hook(repo, "post-commit", [], None, check=False)
        return Written(paths, made.sha, note=note, wrote=any(write.kind != "commit" for write in writes))


def _precheck(root: Path, repo: "_Repo | None", write: PlannedWrite, committing: bool) -> bytes | None:
    """The file is as planned (else ``ChangedSinceShown``), and may be committed as planned; gives its bytes now."""
    current = read_current(root, write.rel_path)
    if write.kind == "create":
        if current is not None:
            raise ChangedSinceShown(write.rel_path, "it was created by someone else")
    elif current is None:
        raise ChangedSinceShown(write.rel_path, "it was deleted")
    elif write.seen is not None and Seen.of(current) != write.seen:
        raise ChangedSinceShown(write.rel_path, _what_changed(current, write.seen))
    if write.in_git != (repo is not None):
        raise ChangedSinceShown(write.rel_path, "the store was " + ("put in" if repo is not None else "taken out of") + " a git repository")
    if write.kind != "create" and write.memory_name is not None:
        torn = [t for t in torn_writes(root) if t.rel_path == write.rel_path]
        own = [t for t in torn if t.record == write.record] if write.kind == "commit" else []
        if write.kind == "commit" and not own:
            raise WriteError(f"{write.rel_path}: its interrupted write is resolved already; nothing was written")
        others = [t for t in torn if t not in own]
        if others:
            raise WriteError(f"{write.rel_path} holds {others[0].describe()}; nothing was written. {torn_hint(others[0])}")
    if repo is not None:
        if write.kind == "commit":
            fresh = plan_commit(root, own[0])
        else:
            fresh = _plan(root, write.rel_path, write.kind, lambda _current: write.data, may_create=write.memory_name is None)
        if fresh.committed != write.committed:
            raise ChangedSinceShown(write.rel_path, "a commit changed it since (HEAD moved)")
        if fresh.foreign != write.foreign:
            raise ChangedSinceShown(write.rel_path, "git now reads its uncommitted bytes differently")
        if fresh.own != write.own:
            raise ChangedSinceShown(write.rel_path, "which of its uncommitted bytes rawko-tui wrote is known differently now")
        if committing and write.foreign and not write.include_foreign:
            raise WriteError(
                f"{write.foreign_note()}: committed only when you choose to include them; nothing was written"
            )
    return current


def _apply_one(root: Path, write: PlannedWrite, keep_record: bool = False, deferred: bool = False) -> "tuple[_Journal, str] | None":
    """Write one planned write's bytes; gives its journal record when it is kept (``keep_record``) until the commit
    (``deferred``: a commit someone makes later, --no-commit)."""
    if write.kind == "create":
        try:
            return _create(root, write.rel_path, write.data, keep_record, deferred)[1]
        except FileExistsError:
            raise ChangedSinceShown(write.rel_path, "it was created by someone else") from None
    if write.kind == "append":
        return _append(root, write.rel_path, lambda _current: write.data, write.seen, exact=True, keep_record=keep_record, deferred=deferred).record
    if write.kind == "commit":
        return None  # its bytes are in the file already: only the commit is made
    replace_file(root, write)
    return None


def _settle(repo: _Repo, root: Path, applied: list["_Applied"]) -> None:
    """HEAD holds the writes: their journal records go (an interrupted write's, once its entry is committed, too)."""
    for item in applied:
        if item.record is not None:
            _finish(*item.record)
        if item.write.kind == "commit":
            for journal in _journals(root, repo):
                _finish(journal, item.write.record)
    _forget_settled(root, repo)  # and those of earlier bytes this commit took in (an entry written with --no-commit)


def _take_back_all(root: Path, applied: list[_Applied]) -> bool:
    """Undo writes that were made for a commit that will not happen; True when every file is as it was.

    The record of a write taken back goes; one that could not be taken back stays, so its bytes are
    reported as rawko-tui's own, uncommitted, until they are committed or taken back.
    """
    done = []
    for item in reversed(applied):
        undone = _take_back_one(root, item)
        if undone and item.record is not None:
            _finish(*item.record)
        done.append(undone)
    return all(done)


def _take_back_one(root: Path, applied: _Applied) -> bool:
    write = applied.write
    if write.kind == "commit":
        return True  # nothing was written for it
    try:
        if write.kind == "create":
            parts = _store_parts(write.rel_path)
            folder = _open_folder(root, parts[:-1])
            try:
                fd = _open_file(folder, parts[-1], os.O_RDONLY, write.rel_path)
                try:
                    if _read_fd(fd) != write.data:
                        return False
                finally:
                    os.close(fd)
                os.unlink(parts[-1], dir_fd=folder)
            finally:
                os.close(folder)
            return True
        if write.kind == "append":
            with _file(root, write.rel_path, os.O_RDWR) as (_folder, fd):
                fcntl.flock(fd, fcntl.LOCK_EX)
                if _read_fd(fd) != applied.after:
                    return False  # someone appended after it: their bytes are never cut
                os.ftruncate(fd, len(applied.before or b""))
                os.fsync(fd)
            return True
        restored = replace(write, data=applied.before or b"", seen=Seen.of(write.data))
        replace_file(root, restored)
        return True
    except (OSError, WriteError):
        return False


def _check_identity(repo: _Repo) -> None:
    """The commit's author and committer must be known before a byte is written (else git refuses only after)."""
    for ident in ("GIT_AUTHOR_IDENT", "GIT_COMMITTER_IDENT"):
        try:
            git(repo.top, "var", ident)
        except GitError as exc:
            reason = next((line for line in str(exc).splitlines() if line.startswith("fatal:")), "git does not know who you are")
            raise WriteError(f"nothing was written: git cannot name the commit's author ({clean(reason)}); set user.name and user.email") from None


@records.record(frozen=True)
class _Commit:
    sha: str
    parent: str | None  # the HEAD it was made on (None: the first commit)
    subject: str
    changes: list[tuple[str, str, str]]  # (path in the repository, mode, blob) of each file


def _make_commit(repo: _Repo, root: Path, applied: list[_Applied], action: str, summary: str) -> _Commit:
    """The commit of the planned bytes and nothing else, not yet on any branch.

    Each blob is the committed blob plus the bytes shown (another writer's
    only when included), and is checked to be what the working copy now holds
    in committed form.
    """
    try:
        head = repo.head()
        changes: list[tuple[str, str, str]] = []
        for item in applied:
            write = item.write
            path = repo.path(write.rel_path)
            committed = _committed(repo, head, path)
            if committed.blob != write.committed:
                raise _Refused(f"{write.rel_path} was committed by someone else while it was written")
            blob_bytes = write.data if write.kind not in ("append", "commit") else committed.data + (write.foreign if write.include_foreign else b"") + write.data
            conversion = clean_conversions(repo.top, [path])[path]
            if not conversion.to_git(read_current(root, write.rel_path) or b"", committed.data).startswith(blob_bytes):
                raise _Refused(f"{write.rel_path} does not hold the planned bytes after writing them")
            blob = git(repo.top, "hash-object", "-w", "--no-filters", "--stdin", input_bytes=blob_bytes).decode().strip()
            changes.append((path, committed.mode, blob))
        tree = _tree_with(repo, f"{head}^{{tree}}" if head else None, {path: (mode, blob) for path, mode, blob in changes})
        message = _run_commit_hooks(repo, tree, _message(repo, applied, action, summary))
        parents = ["-p", head] if head else []
        # commit-tree reads no commit.gpgSign (git commit does): a repository that signs its commits gets this one signed too
        signed = git(repo.top, "config", "--type=bool", "--get", "commit.gpgSign", check=False).strip() == b"true"
        sha = git(repo.top, "commit-tree", tree, *parents, *(["-S"] if signed else []), "-F", "-", input_bytes=message.encode("utf-8")).decode().strip()
    except (GitError, WriteError) as exc:
        raise _Refused(f"git could not make the commit ({_git_reason(exc) if isinstance(exc, GitError) else exc})") from None
    return _Commit(sha, head, message.split("\n", 1)[0], changes)


def _record_commit(repo: _Repo, made: _Commit) -> None:
    """HEAD's branch moves to the commit only from the one it was made on: a HEAD that moved meanwhile is never overwritten."""
    try:
        git(repo.top, "update-ref", "-m", f"commit{'' if made.parent else ' (initial)'}: {made.subject}", "HEAD", made.sha, made.parent or "")
    except GitError as exc:
        raise _Refused(f"HEAD moved while writing (another commit was made), so the commit was not recorded ({_git_reason(exc)})") from None


def _not_held(repo: _Repo, made: _Commit) -> str:
    """Why HEAD does not hold exactly the commit and its blobs ("" when it does)."""
    changes = made.changes
    if repo.head() != made.sha:
        return f"HEAD is not {made.sha[:10]} after it was recorded"
    listed = {}
    for record in git(repo.top, "--literal-pathspecs", "ls-tree", "-z", "--full-tree", "HEAD", "--", *(p for p, _m, _b in changes)).split(b"\x00"):
        meta, _, name = record.partition(b"\t")
        if meta:
            listed[name.decode("utf-8", "surrogateescape")] = meta.decode().split(" ")[2]
    missing = [clean_name(p) for p, _m, blob in changes if listed.get(p) != blob]
    return f"HEAD does not hold the written bytes of {', '.join(missing)}" if missing else ""


def _tree_with(repo: _Repo, base: str | None, changes: dict[str, tuple[str, str]]) -> str:
    """``base`` (a tree) with each path set to (mode, blob), built with ``mktree``: no index, so nothing else comes along."""
    entries: dict[bytes, bytes] = {}
    if base is not None:
        for record in git(repo.top, "ls-tree", "-z", base).split(b"\x00"):
            if record:
                entries[record.partition(b"\t")[2]] = record
    below: dict[str, dict[str, tuple[str, str]]] = {}
    for path, (mode, blob) in changes.items():
        first, sep, rest = path.partition("/")
        if sep:
            below.setdefault(first, {})[rest] = (mode, blob)
        else:
            entries[first.encode("utf-8", "surrogateescape")] = f"{mode} blob {blob}\t".encode() + first.encode("utf-8", "surrogateescape")
    for folder, inner in below.items():
        key = folder.encode("utf-8", "surrogateescape")
        existing = entries.get(key)
        subtree = None
        if existing is not None:
            mode, kind, sha = existing.partition(b"\t")[0].decode().split(" ")
            if kind != "tree":
                raise _Refused(f"{folder} is a file in the last commit, not a folder")
            subtree = sha
        entries[key] = f"040000 tree {_tree_with(repo, subtree, inner)}\t".encode() + key
    return git(repo.top, "mktree", "-z", "--missing", input_bytes=b"".join(e + b"\x00" for e in entries.values())).decode().strip()


def _message(repo: _Repo, applied: list[_Applied], action: str, summary: str) -> str:
    """The structured commit message; bytes rawko-tui did not write are named in its body and its trailers."""
    # names and titles come from memories: a newline or an escape sequence in one must not
    # forge a line of the message or reach the terminal of whoever runs `git log`
    names = ", ".join(clean_name(a.write.name) for a in applied)
    summary = clean(summary.rstrip())
    body = summary + "\n\n" if summary else ""
    foreign = [a.write for a in applied if a.write.include_foreign and a.write.foreign]
    for write in foreign:
        path = clean_name(repo.path(write.rel_path))
        for whose, parts in write._grouped():
            where = f"{sum(e - s for s, e in parts):,} bytes ({'; '.join(write.where(s, e) for s, e in parts)})"
            if whose == "other":
                body += f"{path}: {where} were appended since the last commit by another writer, not by rawko-tui; the person committing chose to include them.\n\n"
            else:
                body += f"{path}: {where} {_OWN_NOTE[whose].replace('you acknowledged', 'the person acknowledged')}; the person committing chose to include them.\n\n"
    trailers = f"Action: {action}\n" + "".join(f"Memory: {clean_name(repo.path(a.write.rel_path))}\n" for a in applied)
    # one trailer per range another writer appended (history credits those entries to no one who did not write them)
    trailers += "".join(f"Not-written-by-rawko-tui: {clean_name(repo.path(w.rel_path))} {w.where(s, e)}\n" for w in foreign for s, e in w.others())
    return f"rawko-tui: {action} {names}\n\n{body}{trailers}"


def _hook(repo: _Repo, name: str) -> Path | None:
    """The hook git would run (``core.hooksPath`` honoured), when there is one."""
    found = git(repo.top, "rev-parse", "--git-path", f"hooks/{name}").decode("utf-8", "surrogateescape").strip()
    path = Path(found) if os.path.isabs(found) else repo.top / found
    return path if path.is_file() and os.access(path, os.X_OK) else None


def _run_hook(repo: _Repo, name: str, args: list[str], index: Path | None, check: bool = True) -> None:
    """Run one of the repository's commit hooks as ``git commit`` would; a refusal is ``_Refused`` (with ``check``)."""
    hook = _hook(repo, name)
    if hook is None:
        return
    env = {**os.environ, "GIT_EDITOR": ":"}
    if index is not None:
        env["GIT_INDEX_FILE"] = str(index)
    try:
        proc = subprocess.run([str(hook), *args], cwd=repo.top, env=env, stdin=subprocess.DEVNULL, capture_output=True, timeout=_HOOK_SECONDS)
    except (OSError, subprocess.TimeoutExpired) as exc:
        if check:
            raise _Refused(f"the {name} hook could not be run ({exc})") from None
        return
    if check and proc.returncode != 0:
        said = [line.strip() for line in (proc.stderr + proc.stdout).decode("utf-8", "replace").splitlines() if line.strip()]
        raise _Refused(f"the {name} hook refused the commit" + (f" ({clean(said[0])})" if said else ""))


def _run_commit_hooks(repo: _Repo, tree: str, message: str) -> str:
    """pre-commit, prepare-commit-msg and commit-msg, on an index holding exactly the commit's tree; gives the message they leave.

    They may refuse (``_Refused``) or edit the message; what they do to an index
    or a file does not reach the commit, which is ``tree``.
    """
    if not any(_hook(repo, name) for name in ("pre-commit", "prepare-commit-msg", "commit-msg")):
        return message
    token = f"{os.getpid()}-{secrets.token_hex(4)}"
    index = repo.git_dir / f"rawko-tui-index-{token}"
    message_file = repo.git_dir / f"RAWKO_TUI_EDITMSG-{token}"
    try:
        git(repo.top, "read-tree", f"--index-output={index}", tree)
        _run_hook(repo, "pre-commit", [], index)
        message_file.write_text(message, encoding="utf-8")
        _run_hook(repo, "prepare-commit-msg", [str(message_file), "message"], index)
        _run_hook(repo, "commit-msg", [str(message_file)], index)
        edited = _whitespace_cleanup(message_file.read_text(encoding="utf-8", errors="replace"))
    except GitError as exc:
        raise _Refused(f"the commit's index for the hooks could not be made ({_git_reason(exc)})") from None
    finally:
        index.unlink(missing_ok=True)
        message_file.unlink(missing_ok=True)
    if not edited.strip():
        raise _Refused("a commit hook left the commit message empty")
    return edited


def _whitespace_cleanup(message: str) -> str:
    """git's ``--cleanup=whitespace``: trailing spaces, repeated and surrounding blank lines go."""
    lines = [line.rstrip() for line in message.replace("\r\n", "\n").split("\n")]
    out: list[str] = []
    for line in lines:
        if line or (out and out[-1]):
            out.append(line)
    while out and not out[-1]:
        out.pop()
    return "\n".join(out) + "\n"


def _update_index(repo: _Repo, changes: list[tuple[str, str, str]]) -> str:
    """The index entries of the committed files, set to the committed blobs (their assume-unchanged and skip-worktree kept).

    Gives what the person should know when that could not be done.
    """
    paths = [p for p, _m, _b in changes]
    flags = {}
    for record in git(repo.top, "--literal-pathspecs", "ls-files", "-v", "-t", "-z", "--", *paths, check=False).split(b"\x00"):
        if len(record) > 2:
            flags[record[2:].decode("utf-8", "surrogateescape")] = record[:1].decode()
    info = b"".join(f"{mode} {blob}\t".encode() + path.encode("utf-8", "surrogateescape") + b"\x00" for path, mode, blob in changes)
    deadline = time.monotonic() + INDEX_LOCK_WAIT_SECONDS
    while True:
        try:
            git(repo.top, "update-index", "-z", "--index-info", input_bytes=info)
            break
        except GitError as exc:
            if "index.lock" in str(exc) and time.monotonic() < deadline:
                time.sleep(0.05)
                continue
            names = " ".join(clean_name(p) for p in paths)
            return f"The index could not be updated ({_git_reason(exc)}): `git reset -q -- {names}` makes it match the commit."
    for path, tag in flags.items():
        if tag in ("h", "s"):
            git(repo.top, "update-index", "--assume-unchanged", "--", path, check=False)
        if tag in ("S", "s"):
            git(repo.top, "update-index", "--skip-worktree", "--", path, check=False)
    git(repo.top, "update-index", "-q", "--refresh", check=False)
    return ""


# --------------------------------------------------------------------------
# Who writes, and a new store
# --------------------------------------------------------------------------


def person_name(root: Path) -> str:
    """Who is writing: ``author`` in the person's own settings, else the author git would record, else the login name.

    Never a store's ``author:``: a store cannot sign the person's entries with another name (settings.py).
    """
    from ..store.settings import person_author

    configured = person_author()
    if configured:
        return configured
    from ..disk.gitrepo import GitError, git

    try:
        # the author git would record ("Name <email> time zone"): GIT_AUTHOR_NAME, then user.name
        ident = git(Path(root), "var", "GIT_AUTHOR_IDENT").decode("utf-8", "replace")
        name = ident.split(" <", 1)[0].strip()
    except GitError:
        name = ""
    return name or os.environ.get("USER") or "unknown"


STARTER_SETTINGS = """# rawko-tui's settings for this store, committed with it: every key, commented out, with its default or an example.
# They describe the store; your own keymap, theme, author and model go in ~/.config/rawko-tui/config.yaml.
# arbiter: spec-0007         # the arbiter whose code decides injection here: spec-0007, rawko-sdk, spec-0005 or one of arbiters:
# arbiters:                  # the store's own profiles, each a built-in with changes (`rawko-tui arbiters` lists what they may set)
#   ours: {base: rawko-sdk, maxMemories: 8}
# recursive: false           # preview arbiters that read subfolders of memories/ as reading them
# now: 2026-01-24T12:00:00Z  # pin "now" (recency) for reproducible reviews; default: the clock
# staleDays: 180             # days without a dated entry before consolidation offers a memory as stale
# budgets:                   # token budgets per agent: the preview says when the injected block is over one
#   developer: 2000
"""


def init_store(root: Path) -> list[Path]:
    """A new store: ``.rawko/memories/`` and a commented ``.rawko/rawko-tui.yaml``; what exists is left alone (never through a link)."""
    created = []
    directory = memories_dir(root)
    existed = directory.is_dir() and not directory.is_symlink()
    try:
        Path(root).mkdir(parents=True, exist_ok=True)  # the folder the person named (itself may be a link: their choice)
        os.close(_open_folder(Path(root), [RAWKO_DIR, MEMORIES_DIR], create=True))
    except OSError as exc:
        raise WriteError(f"{directory} cannot be created ({exc.strerror or exc}); nothing was written") from None
    if not existed:
        created.append(directory)
    settings = Path(root) / RAWKO_DIR / "rawko-tui.yaml"
    try:
        folder = _open_folder(Path(root), [RAWKO_DIR])
        try:
            fd = os.open(settings.name, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW, 0o644, dir_fd=folder)
        finally:
            os.close(folder)
    except FileExistsError:
        return created
    except OSError as exc:
        raise WriteError(f"{settings} cannot be created ({exc.strerror or exc})") from None
    try:
        _write_all(fd, STARTER_SETTINGS.encode("utf-8"))
    finally:
        os.close(fd)
    created.append(settings)
    return created
