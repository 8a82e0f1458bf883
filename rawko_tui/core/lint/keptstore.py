"""Lint's findings that depend on the memory files alone, kept whole for the next run on the very same readings.

Each file's own findings, the store-wide ones (``duplicate-title``,
``related-missing``) and what each arbiter profile does with the files are a
function of the files' bytes, the store's settings and agents and the order
the folder lists the files: a run whose files were all read as the last run
read them (the parse cache's trust rule, ``cache.readings_digest``), with the
same settings, agents, listing order and ``--arbiter``, under the same code,
takes them from here. Kept as plain tuples (``marshal``): loading 17,000
findings this way takes a few milliseconds, as objects a pickle takes tens.
"""

from __future__ import annotations

import hashlib
import marshal
import pickle

from ..disk import cache
from ..store.reading import Store
from .findings import FileFindings, Finding

_FORMAT = 2


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
        record = cache.read_marshalled(self._path())
        try:
            if not isinstance(record, dict) or record.get("key") != self.key:
                return None
            plains, futures = record["own"], record["futures"]
            own: list[Finding] = []
            start = 0
            # each file's discoveredAt finding, where it goes among the files' findings: read only for a time
            for at, date_ms, future in marshal.loads(futures) if now_ms is not None and futures else ():
                if date_ms > now_ms:  # lint._at: a date still to come
                    own.extend([Finding(*plain) for plain in plains[start:at]])
                    own.append(Finding(*future))
                    start = at
            own.extend([Finding(*plain) for plain in plains[start:]])
            return own, [Finding(*plain) for plain in record["together"]], [Finding(*plain) for plain in record["profile"]]
        except (KeyError, TypeError, ValueError, IndexError, EOFError):
            return None  # a record of another shape counts as none (it is written again)

    def keep(self, owns: list[FileFindings], together: list[Finding], by_profile: list[Finding]) -> None:
        if self.key is None:
            return
        record = {
            "key": self.key,
            "own": [_plain(f) for own in owns for f in own.findings],
            "futures": _futures(owns),
            "together": [_plain(f) for f in together],
            "profile": [_plain(f) for f in by_profile],
        }
        try:
            data = marshal.dumps(record, 4)
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


def _key(store: Store, arbiter: str | None) -> str | None:
    """What the kept findings were made from; None when a file was not read from the working tree (a git revision)."""
    readings = cache.readings_digest(store.files)
    if readings is None or store.directory_order is None:
        return None
    agents = sorted((name, agent.path, agent.attrs, agent.error) for name, agent in store.agents.items())
    try:
        settings = pickle.dumps((store.config, agents, store.directory_order, store.skipped, arbiter), protocol=4)
    except (pickle.PicklingError, TypeError, AttributeError, RecursionError):
        return None
    digest = hashlib.sha256(f"{_FORMAT}\0{cache.package_key()}\0{readings}\0".encode())
    digest.update(settings)
    return digest.hexdigest()
