"""Reading a store's files as hostile input: regular files only, never through a link, never without a size limit.

A store comes with a clone from anyone. A file it commits can be a symlink to
``/dev/zero`` (reading never ends), ``/dev/tty`` or a FIFO (opening blocks), or
``~/.ssh/id_rsa``; a folder it commits (``.rawko``, ``.rawko/memories``, …) can
be a symlink to ``/`` or to a place outside the store. Every file rawko-tui
reads under ``.rawko/`` goes through ``read_in_store`` (a path inside the store,
no symlinked folder on the way) and ``read_regular`` (a regular file, at most a
limit), so that none of these is ever opened for reading, and nothing is read
past a limit. ``refusal`` says, from an ``lstat`` alone, what either would refuse
(lint names every such file), and ``linked_part`` which folder of the store is a link.

``UnsafeFile`` is an ``OSError`` (its ``strerror`` says why in plain words),
so the callers' existing "cannot be read" handling reports it.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

# Limits, in bytes. A memory may be large (the hostile catalogue holds 30 MB bodies);
# a settings, checks, session or journal file never needs more than a few kilobytes.
MEMORY_LIMIT = 64 << 20
SETTINGS_LIMIT = 4 << 20
SESSION_LIMIT = 16 << 20
NAMED_LIMIT = 16 << 20  # a file a person names on the command line (--body-file, extract --from)
# Limits for a kind of file in all: a clone can hold any number of files, each under its own limit.
SESSIONS_TOTAL = 32 << 20  # every session file together (ruamel reads 16 MB in about 40 s, holding 800 MB meanwhile)
CHECKS_TOTAL = 4 << 20  # every saved-tasks file together

LINK = "a symlink: never followed (it could point anywhere)"
NOT_REGULAR = "not a regular file (a device, FIFO or socket): never read"
NOT_A_FILE = "not a regular file (a folder): never read"
OUTSIDE = "names a place outside the store: never read"

_READ_FLAGS = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)


class UnsafeFile(OSError):
    """A file rawko-tui refuses to read (a link, a device, a FIFO, too large)."""

    def __init__(self, reason: str) -> None:
        super().__init__(errno.EPERM, reason)


def read_regular(path: str | os.PathLike, limit: int, real_path: str | None = None) -> bytes:
    """The bytes of a regular file that is not a symlink, at most ``limit`` of them (more is refused).

    ``O_NOFOLLOW`` refuses a link at the last component; ``O_NONBLOCK`` keeps a
    FIFO from blocking the open; the ``fstat`` of the opened descriptor (not of
    the name, which could be swapped) decides whether it is a regular file.
    ``real_path``, when given, is where the opened file must be: a folder on the
    way that was checked and then swapped for a link is caught after the open,
    from the descriptor itself (``opened_elsewhere``).
    """
    try:
        fd = os.open(path, _READ_FLAGS)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise UnsafeFile(LINK) from None
        raise
    try:
        info = os.fstat(fd)
        problem = _kind_problem(info, limit) or (opened_elsewhere(fd, real_path) if real_path is not None else None)
        if problem is not None:
            raise UnsafeFile(problem)
        return _read_at_most(fd, limit)
    finally:
        os.close(fd)


SWAPPED = "reached through a folder that became a link as it was read (it could point anywhere): never read"


def opened_elsewhere(fd: int, real_path: str) -> str | None:
    """Why the file open on ``fd`` is not the one at ``real_path`` (a resolved path), or None.

    The kernel names an open descriptor's file by its real path in
    ``/proc/self/fd``; where there is no such folder, nothing is checked (the
    checks made before the open still hold).
    """
    try:
        actual = os.readlink(f"/proc/self/fd/{fd}")
    except OSError:
        return None
    return None if actual == real_path else SWAPPED


def _kind_problem(info: os.stat_result, limit: int) -> str | None:
    if stat.S_ISDIR(info.st_mode):
        return NOT_A_FILE
    if not stat.S_ISREG(info.st_mode):
        return NOT_REGULAR
    if info.st_size > limit:
        return _over(info.st_size, limit)
    return None


def _over(size: int, limit: int) -> str:
    return f"{size:,} bytes, over the {limit:,}-byte limit for this kind of file: not read"


def _read_at_most(fd: int, limit: int) -> bytes:
    chunks, total = [], 0
    while total <= limit:
        chunk = os.read(fd, min(1 << 20, limit + 1 - total))
        if not chunk:
            break
        chunks.append(chunk)
        total += len(chunk)
    if total > limit:  # it grew while being read, or it is a stream that never ends
        raise UnsafeFile(f"more than the {limit:,}-byte limit for this kind of file: not read")
    return b"".join(chunks)


def _parts(rel: str) -> list[str]:
    """The parts of a path inside the store (forward slashes); UnsafeFile for one that leaves it or is absolute."""
    parts = rel.split("/")
    if any(part in ("", ".", "..") or "\0" in part for part in parts):
        raise UnsafeFile(OUTSIDE)
    return parts


def linked_part(root: str | os.PathLike, rel: str) -> str | None:
    """The first part of ``rel`` (a path below ``root``, forward slashes) that is a symlink, as a path from
    ``root``; None when none is (or the path stops existing before one).

    ``root`` itself may be reached through links (a person's own choice); what
    the store commits below it may not lead elsewhere.
    """
    parts = _parts(rel)
    path = Path(root)
    for index, part in enumerate(parts):
        path = path / part
        try:
            if stat.S_ISLNK(os.lstat(path).st_mode):
                return "/".join(parts[: index + 1])
        except OSError:
            return None
    return None


def read_in_store(root: str | os.PathLike, rel: str, limit: int) -> bytes:
    """``read_regular`` of ``root/rel``, a file inside the store reached through no symlinked folder.

    A record or setting naming ``/dev/zero``, ``../../.ssh/id_rsa`` or a file in
    a symlinked folder is refused (``UnsafeFile``) before anything is opened.
    """
    parts = _parts(rel)
    linked = linked_part(root, "/".join(parts[:-1])) if len(parts) > 1 else None
    if linked is not None:
        raise UnsafeFile(f"inside {linked}/, a symlinked folder: never followed (it could point anywhere)")
    # the folders were no links a moment ago; the descriptor says whether they still were at the open
    return read_regular(Path(root).joinpath(*parts), limit, os.path.join(os.path.realpath(root), *parts))


class ReadBudget:
    """Bytes a group of files may hold together, each also within its own limit: past the total, a file and every
    one after it is refused (``UnsafeFile``), so what is read never depends on how many files a clone holds."""

    def __init__(self, total: int, what: str) -> None:
        self.total, self.left, self.what = total, total, what

    def read_in_store(self, root: str | os.PathLike, rel: str, limit: int) -> bytes:
        if self.left > 0:
            data = read_in_store(root, rel, limit)
            if len(data) <= self.left:
                self.left -= len(data)
                return data
            self.left = 0
        raise UnsafeFile(f"past the {self.total:,} bytes rawko-tui reads of {self.what} in all: not read")


def refusal(path: str | os.PathLike, limit: int) -> str | None:
    """Why ``read_regular`` would refuse ``path``, from an ``lstat`` alone (nothing is opened); None when it would
    read it or the file does not exist."""
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return None
    except OSError as exc:
        return f"cannot be read ({exc.strerror or exc})"
    return LINK if stat.S_ISLNK(info.st_mode) else _kind_problem(info, limit)


def read_named(path: str | os.PathLike, limit: int = NAMED_LIMIT) -> bytes:
    """A file a person named on the command line, at most ``limit`` bytes of it (more is refused).

    Their own choice, so it may be a link, a pipe or ``/dev/stdin`` (``--body-file
    <(make-notes)``); only the size is bounded, so ``/dev/zero`` fails at once
    instead of filling the memory.
    """
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_CLOEXEC", 0))
    try:
        if stat.S_ISDIR(os.fstat(fd).st_mode):
            raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR))
        return _read_at_most(fd, limit)
    finally:
        os.close(fd)


def read_regular_text(path: str | os.PathLike, limit: int) -> str:
    """``read_regular`` decoded as UTF-8 (a ``UnicodeDecodeError`` for bytes that are not)."""
    return read_regular(path, limit).decode("utf-8")
