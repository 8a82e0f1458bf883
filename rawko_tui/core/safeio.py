"""Reading a store's files as hostile input: regular files only, never through a link, never without a size limit.

A store comes with a clone from anyone. A file it commits can be a symlink to
``/dev/zero`` (reading never ends), ``/dev/tty`` or a FIFO (opening blocks), or
``~/.ssh/id_rsa``; every file rawko-tui reads under ``.rawko/`` goes through
``read_regular`` so that none of these is ever opened for reading, and nothing
is read past a limit.

``UnsafeFile`` is an ``OSError`` (its ``strerror`` says why in plain words),
so the callers' existing "cannot be read" handling reports it.
"""

from __future__ import annotations

import errno
import os
import stat

# Limits, in bytes. A memory may be large (the hostile catalogue holds 30 MB bodies);
# a settings, checks, session or journal file never needs more than a few kilobytes.
MEMORY_LIMIT = 64 << 20
SETTINGS_LIMIT = 4 << 20
SESSION_LIMIT = 16 << 20

_READ_FLAGS = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)


class UnsafeFile(OSError):
    """A file rawko-tui refuses to read (a link, a device, a FIFO, too large)."""

    def __init__(self, reason: str) -> None:
        super().__init__(errno.EPERM, reason)


def read_regular(path: str | os.PathLike, limit: int) -> bytes:
    """The bytes of a regular file that is not a symlink, at most ``limit`` of them (more is refused).

    ``O_NOFOLLOW`` refuses a link at the last component; ``O_NONBLOCK`` keeps a
    FIFO from blocking the open; the ``fstat`` of the opened descriptor (not of
    the name, which could be swapped) decides whether it is a regular file.
    """
    try:
        fd = os.open(path, _READ_FLAGS)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise UnsafeFile("a symlink: never followed (it could point anywhere)") from None
        raise
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise UnsafeFile("not a regular file (a device, FIFO or socket): never read")
        if info.st_size > limit:
            raise UnsafeFile(f"{info.st_size:,} bytes, over the {limit:,}-byte limit for this kind of file: not read")
        chunks, total = [], 0
        while total <= limit:
            chunk = os.read(fd, min(1 << 20, limit + 1 - total))
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
        if total > limit:  # it grew while being read
            raise UnsafeFile(f"grew past the {limit:,}-byte limit for this kind of file while being read: not read")
        return b"".join(chunks)
    finally:
        os.close(fd)


def read_regular_text(path: str | os.PathLike, limit: int) -> str:
    """``read_regular`` decoded as UTF-8 (a ``UnicodeDecodeError`` for bytes that are not)."""
    return read_regular(path, limit).decode("utf-8")
