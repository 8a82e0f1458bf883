"""The rank index's tables kept between runs, for a store whose loaded files are the very ones they were made from.

Building a ``rankindex.StoreIndex`` reads every memory's facts and gathers
every whenToUse test (a second at 100,000 memories); none of it depends on
the task.  The tables (columns of facts, the pattern index, which memories
throw) are kept per store and profile, beside the parse cache and under its
rules: they are used only when the profile's loader lists the same files, in
the same order, each with the token of the reading the tables were made from
(``cache.file_token``: its stat and when it was read), by the same code.
A store read at a git revision, or as the fold of its entries, keeps nothing.

The pattern index's largest lists (every test, its slots, the sets' patterns)
are kept apart from the tables, in pickled chunks of a file of their own,
and read where used (``KeptList``): a ranking that tests each pattern once
(the *Others* line's, a command's) streams them and holds none of them whole.
"""

from __future__ import annotations

import os
import pickle
import time
import weakref
from array import array

from ..disk import cache

# The source the tables come from: a change to any of them makes kept tables stale.
MODULES = (
    "arbiters/rankcache.py", "arbiters/rankindex.py", "arbiters/decision.py", "arbiters/scoring.py", "arbiters/loaders.py", "js/yaml2.py",
    "arbiters/profiles.py", "arbiters/spec0005.py", "arbiters/patterns.py", "js/regexp.py", "js/values.py", "store/reading.py", "js/jsyaml.py", "disk/cache.py",
)  # fmt: skip


def _key(store, view, profile) -> list | None:
    """What the tables depend on: the profile's reading rules and every loaded file's reading, in order (a digest
    of them: a start reads 64 characters, not 10,000 kept tuples, to learn whether the tables are its own)."""
    if store.view != "spec":
        return None
    readings = cache.readings_digest(view.loaded, store.kept_readings)
    return None if readings is None else [repr((profile.name, profile.loader, profile.scorer, profile.matcher)), readings]


def _gone():
    return None


# (store, view, profile, key), the first two weakly held (the app replaces its store on each reload)
_last_key: tuple = (_gone, _gone, None, None)


def _view_key(store, view, profile) -> list | None:
    """``_key``, computed once for the same store, view and profile (a start asks for the tables, then the points)."""
    global _last_key
    remembered = _last_key
    if remembered[0]() is store and remembered[1]() is view and remembered[2] is profile:
        return remembered[3]
    key = _key(store, view, profile)
    _last_key = (weakref.ref(store), weakref.ref(view), profile, key)
    return key


def _kind(profile) -> str:
    """One kept index per profile (a custom profile's name can be anything: it is hashed)."""
    return cache.named_kind("index", profile.name)


def load(store, view, profile) -> dict | None:
    """The tables kept for this store and profile, when they were made from exactly these files; else None.

    A table's bytes kept apart (``save``'s ``apart``) come back as a ``cache.TextFile``, read where sliced, and the
    pattern index's largest lists as ``KeptList``s.
    """
    if not cache.enabled():
        return None
    key = _view_key(store, view, profile)
    if key is None:
        return None
    kept = cache.load_derived(store.root, _kind(profile), MODULES)
    tables = kept.get("tables")
    if kept.get("key") != key or not isinstance(tables, dict):
        return None
    apart = kept.get("apart")
    if apart is None:
        return tables
    try:
        name, size, field, field_size, parted = apart
        if not isinstance(name, str) or "/" in name or (field is not None and not isinstance(field, str)):
            return None
        blob = cache.open_kept_bytes(_path(store, profile).with_name(name))
        if blob is None or len(blob) != size:
            return None  # missing, or cut
        tables = dict(tables)
        if field is not None:
            tables[field] = blob.head(field_size) if field_size else b""
        if parted is not None:
            state = list(tables["patterns"])
            for at, (start, ends, length, whole) in dict(parted).items():
                if not (isinstance(ends, array) and (not ends or (ends[-1] <= size and start <= ends[0]))):
                    return None
                state[at] = KeptList(blob, start, ends, length, whole, PARTED[at][1])
            tables["patterns"] = tuple(state)
    except (TypeError, ValueError, KeyError, IndexError, AttributeError):
        return None
    return tables


CHUNK = 1024  # items per pickled chunk
# The pattern index's lists kept apart (their place in ``PatternIndex.state``), whether each is read whole on first
# use, and how many items a chunk holds: the sets' patterns are read whole (every query through the sets runs them
# all); the tests and slots are streamed; the pickled regexes are read a few at a time (a first query runs the
# few whose needles the task holds, anywhere in the list).
PARTED = {0: (False, CHUNK), 1: (False, CHUNK), 4: (True, CHUNK), 5: (False, 16)}  # slots, fallbacks, buckets, regexes


def used(tables: dict | None, use) -> bool:
    """Whether ``use(tables)`` took the kept tables: tables of another shape (damaged on disk, another version's)
    raise in it, and are made again by the caller."""
    if tables is None:
        return False
    try:
        use(tables)
    except (KeyError, TypeError, ValueError, IndexError, AttributeError):
        return False
    return True


def save(store, view, profile, tables: dict, apart: str | None = None) -> None:
    """Keep the tables; ``apart`` names one of them, bytes, written to a file of their own that the next start reads
    only where it is sliced (spec-0005's plans of every memory: most of its tables, and a ranking shows a few), and
    with them the pattern index's largest lists, in chunks (``PARTED``)."""
    if not cache.enabled():
        return
    key = _view_key(store, view, profile)
    if key is None:
        return
    path = _path(store, profile)
    parts: list[bytes] = [tables[apart]] if apart is not None else []
    size = len(parts[0]) if parts else 0
    kept_tables = {k: _shared(v) for k, v in tables.items() if k != apart}
    parted = None
    if "patterns" in tables:
        state, parted = list(tables["patterns"]), {}
        for at, (whole, per_chunk) in PARTED.items():
            items, start, ends = state[at], size, array("q")
            for first in range(0, len(items), per_chunk):
                chunk = pickle.dumps(items[first : first + per_chunk], protocol=pickle.HIGHEST_PROTOCOL)
                parts.append(chunk)
                size += len(chunk)
                ends.append(size)
            parted[at] = (start, ends, len(items), whole)
            state[at] = None
        kept_tables["patterns"] = tuple(state)
    name = f"{path.stem}-{time.time_ns():x}-{os.getpid()}.bin"
    if not cache.write_bytes_atomically(path.with_name(name), parts):
        return
    field_size = len(tables[apart]) if apart is not None else 0
    cache.save_derived(store.root, _kind(profile), MODULES, {"key": key, "tables": kept_tables, "apart": (name, size, apart, field_size, parted)})
    for old in path.parent.glob(f"{path.stem}-*.bin"):  # a process that opened an older one keeps reading it
        if old.name != name:
            old.unlink(missing_ok=True)


def _shared(table):
    """A list's equal strings made one object, so pickled once and read back as one: at 100,000 memories each
    memory's importance and discoverer were a string of its own in every profile's tables, 10 MB each."""
    if not isinstance(table, list):
        return table
    one: dict[str, str] = {}
    return [one.setdefault(value, value) if type(value) is str else value for value in table]


class KeptList:
    """A list of the kept tables read from its chunks of the kept file where used, not held whole.

    ``whole``: read entirely on first use and kept. Else each use reads its chunk of ``size`` items (the last one
    read is kept: a pass in order reads each once), and an item set (a kept regex made once tested) is kept on its own.
    """

    __slots__ = ("_blob", "_ends", "_items", "_last", "_length", "_set", "_size", "_start", "_whole")

    def __init__(self, blob, start: int, ends: array, length: int, whole: bool, size: int = CHUNK):
        self._blob, self._start, self._ends, self._length, self._whole, self._size = blob, start, ends, length, whole, size
        self._items: list | None = None
        self._last: tuple[int, list] = (-1, [])
        self._set: dict[int, object] = {}

    def _held(self) -> list | None:
        """The whole list once read (``whole``), else None."""
        if self._whole and self._items is None:
            self._items = [item for chunk in range(len(self._ends)) for item in self._chunk(chunk)]
        return self._items

    def _chunk(self, chunk: int) -> list:
        start = self._start if chunk == 0 else self._ends[chunk - 1]
        items = pickle.loads(self._blob[start : self._ends[chunk]])
        expected = min(self._size, self._length - chunk * self._size)
        if not isinstance(items, list) or len(items) != expected:
            raise ValueError("a kept chunk of another length than kept")
        return items

    def __len__(self) -> int:
        return self._length

    def __getitem__(self, at: int):
        items = self._held()
        if items is not None:
            return items[at]
        if at < 0:
            at += self._length
        if not 0 <= at < self._length:
            raise IndexError(at)
        if at in self._set:
            return self._set[at]
        chunk = at // self._size
        last = self._last
        if last[0] != chunk:
            last = self._last = (chunk, self._chunk(chunk))
        return last[1][at - chunk * self._size]

    def __setitem__(self, at: int, value) -> None:
        items = self._held()
        if items is not None:
            items[at] = value
        else:
            self._set[at] = value

    def __iter__(self):
        items = self._held()
        if items is not None:
            yield from items
            return
        for chunk in range(len(self._ends)):
            items = self._chunk(chunk)
            if self._set:
                base = chunk * self._size
                items = [self._set.get(base + offset, item) for offset, item in enumerate(items)]
            yield from items


def _path(store, profile):
    return cache.companion_path(cache.cache_path(store.root), _kind(profile))


MAX_KEPT_AGENTS = 16  # per store and profile; past it the points of an agent not kept are made each run


def agent_points(store, view, profile, agent: str, make, count: int) -> list:
    """The points of every scored memory (``count`` of them) that depend on the agent alone (``StoreIndex._agent_points``):
    those an earlier run kept for these very readings of the files, by this code, else ``make()``'s, then kept beside
    the others (a few agents per store and profile: each kept file is small)."""
    key = _view_key(store, view, profile) if cache.enabled() else None
    if key is None:
        return make()
    kind = _kind(profile) + "-points"
    kept = cache.load_derived(store.root, kind, MODULES)
    agents = kept.get("agents") if kept.get("key") == key and isinstance(kept.get("agents"), dict) else {}
    points = agents.get(agent)
    if isinstance(points, list) and len(points) == count:
        return points
    points = make()
    if len(agents) < MAX_KEPT_AGENTS:
        cache.save_derived(store.root, kind, MODULES, {"key": key, "agents": {**agents, agent: points}})
    return points
