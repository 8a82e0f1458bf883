"""Lint's findings that depend on the memory files alone, kept whole for the next run on the very same readings.

Each file's own findings, the store-wide ones (``duplicate-title``,
``related-missing``) and what each arbiter profile does with the files are a
function of the files' bytes, the store's settings and agents and the order
the folder lists the files: a run whose files were all read as the last run
read them (the parse cache's trust rule, ``cache.readings_digest``), with the
same settings, agents, listing order and ``--arbiter``, under the same code,
takes them from here. Kept as plain tuples (``marshal``), in parts read one
at a time: loading 17,000 findings this way takes a few milliseconds, as
objects a pickle takes tens.
"""

from __future__ import annotations

import marshal
import pickle

from ..disk import cache
from ..store.reading import Store
from .findings import FileFindings, Finding

_FORMAT = 3
PART = 4096  # findings per marshalled part of the record


def _plain(finding: Finding) -> tuple:
    return (finding.path, finding.severity, finding.code, finding.message, finding.line)


class KeptStoreFindings:
    """The kept findings of this store's very readings (``findings``), or a place to keep them (``keep``)."""

    def __init__(self, store: Store, arbiter: str | None):
        self.root = store.root
        self.key = _key(store, arbiter) if cache.enabled() else None

    def findings(self, now_ms: float | None) -> tuple[list[Finding], list[Finding], list[Finding]] | None:
        """(each file's findings at ``now_ms``, in store order; the store-wide ones; each profile's), or None."""
        if self.key is None:
            return None
        return cache.read_kept(self._path(), lambda handle: self._read(handle, now_ms))

    def _read(self, handle, now_ms: float | None) -> tuple[list[Finding], list[Finding], list[Finding]] | None:
        read = self._parts(handle, _findings_in)
        if read is None:
            return None
        own, futures, together, by_profile = read
        if now_ms is not None and futures:  # each file's discoveredAt finding, where it goes among the files' findings
            coming = [(at, Finding(*plain)) for at, date_ms, plain in marshal.loads(futures) if date_ms > now_ms]
            if coming:  # lint._at: a date still to come
                own = _with_futures(own, coming)
        return own, together, by_profile

    def plain(self) -> tuple[list[tuple], list[tuple], list[tuple], list[tuple]] | None:
        """The kept findings as the plain tuples kept (path, severity, code, message, line): (each file's, in store
        order, with no date still to come; those dates, as (where each goes among them, the date, the finding); the
        store-wide ones; each profile's), or None."""
        if self.key is None:
            return None
        return cache.read_kept(self._path(), self._read_plain)

    def _read_plain(self, handle) -> tuple[list[tuple], list[tuple], list[tuple], list[tuple]] | None:
        read = self._parts(handle, marshal.loads)
        if read is None:
            return None
        own, futures, together, by_profile = read
        return own, marshal.loads(futures) if futures else [], together, by_profile

    def _parts(self, handle, made_of) -> tuple[list, bytes, list, list] | None:
        """The record's parts, one at a time, each part's findings ``made_of`` its marshalled bytes (read whole, the
        file and what it holds were at once 35 MB more than either at 100,000 memories): (each file's, in store
        order; the dates still to come, as kept, read only where a run has a time; the store-wide ones; each
        profile's), or None."""
        try:
            head = marshal.load(handle)
            if not isinstance(head, dict) or head.get("key") != self.key:
                return None
            together = made_of(marshal.load(handle))
            by_profile = made_of(marshal.load(handle))
            own = [finding for _ in range(head["parts"]) for finding in made_of(marshal.load(handle))]
            return own, marshal.load(handle), together, by_profile
        except (KeyError, TypeError, ValueError, IndexError, EOFError):
            return None  # a record of another shape counts as none (it is written again)

    def keep(self, owns: list[FileFindings], together: list[Finding], by_profile: list[Finding]) -> None:
        if self.key is None:
            return
        own = [_plain(f) for file_findings in owns for f in file_findings.findings]
        try:
            parts = [marshal.dumps([_plain(f) for f in together], 4), marshal.dumps([_plain(f) for f in by_profile], 4)]
            parts += [marshal.dumps(own[first : first + PART], 4) for first in range(0, len(own), PART)]
            head = {"key": self.key, "parts": len(parts) - 2}
            data = [marshal.dumps(head, 4), *(marshal.dumps(part, 4) for part in parts), marshal.dumps(_futures(owns), 4)]
        except ValueError:  # a value marshal cannot keep: nothing is kept, the next run lints again
            return
        cache.write_bytes_atomically(self._path(), data)

    def _path(self):
        return cache.companion_path(cache.cache_path(self.root), "lintstore")


def _futures(owns: list[FileFindings]) -> bytes:
    """Each file's finding on a discoveredAt that may be in the future, as (where it goes among every file's findings,
    the date, the finding), marshalled apart: a run with no time (the app's) reads none of them (100,000 at
    100,000 memories)."""
    futures, start = [], 0
    for own in owns:
        if own.future is not None:
            futures.append((start + own.future[0], own.future[1], _plain(own.future[2])))
        start += len(own.findings)
    return marshal.dumps(futures, 4) if futures else b""


def _findings_in(part: bytes) -> list[Finding]:
    return [Finding(*plain) for plain in marshal.loads(part)]


def _with_futures(own: list[Finding], coming: list[tuple[int, Finding]]) -> list[Finding]:
    """``own`` with each (place, finding) of ``coming`` (in order of place) put before the finding at that place."""
    made: list[Finding] = []
    start = 0
    for at, finding in coming:
        made.extend(own[start:at])
        made.append(finding)
        start = at
    made.extend(own[start:])
    return made


def _key(store: Store, arbiter: str | None) -> str | None:
    """What the kept findings were made from; None when a file was not read from the working tree (a git revision)."""
    readings = cache.readings_digest(store.files, store.kept_readings if store.view == "spec" else None)
    if readings is None or store.directory_order is None:
        return None
    agents = sorted((name, agent.path, agent.attrs, agent.error) for name, agent in store.agents.items())
    try:
        settings = pickle.dumps((store.config, agents, store.directory_order, store.skipped, arbiter), protocol=4)
    except (pickle.PicklingError, TypeError, AttributeError, RecursionError):
        return None
    digest = cache.key_hash(f"{_FORMAT}\0{cache.package_key()}\0{readings}\0".encode())
    digest.update(settings)
    return digest.hexdigest()
