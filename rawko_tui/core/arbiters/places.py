"""Where a file sits in a view's list, by the object or by its path or name: dicts for a small store, arrays for a large one.

A decision looked up by path (the app's *Others* line looks up thousands, one per memory a profile injects)
maps every file of the profile's view by path and name, and by object to its place: at 100,000 memories
about 25 MB of dicts per profile while the comparison runs, and the shown profile's for as long as the store
is shown. From ``COMPACT_FROM`` files the keys' hashes are kept sorted in two arrays and found by bisection
(a few MB); below it a dict, quicker to make, as a command's lookups want.
"""

from __future__ import annotations

from array import array
from bisect import bisect_left, bisect_right

COMPACT_FROM = 20_000


class _SortedKeys:
    """Numbers (hashes, ids) sorted, each with its place: the places of one number, in order."""

    __slots__ = ("_keys", "_places")

    def __init__(self, keys: list[int]):
        order = sorted(range(len(keys)), key=keys.__getitem__)  # stable: equal keys keep their places' order
        self._keys = array("q", [keys[place] for place in order])
        self._places = array("q", order)

    def places(self, key: int) -> array:
        start = bisect_left(self._keys, key)
        return self._places[start : bisect_right(self._keys, key, start)]


class PlacesById:
    """``{id(item): place for place, item in enumerate(items)}`` (a later place over an earlier one), as arrays."""

    __slots__ = ("_sorted",)

    def __init__(self, items: list):
        self._sorted = _SortedKeys([id(item) for item in items])

    def get(self, key: int, default=None):
        places = self._sorted.places(key)
        return places[-1] if places else default

    def __getitem__(self, key: int) -> int:
        place = self.get(key)
        if place is None:
            raise KeyError(key)
        return place


def places_by_id(items: list) -> dict[int, int] | PlacesById:
    """Each item's place by its id (the last place of an item listed twice)."""
    if len(items) < COMPACT_FROM:
        return {id(item): place for place, item in enumerate(items)}
    return PlacesById(items)


class FilesByKey:
    """``decision.files_by_path`` as arrays: each file by its path in the store and by its name, later files over
    earlier ones on an equal key."""

    __slots__ = ("_files", "_sorted")

    def __init__(self, files: list):
        self._files = files
        keys: list = [None] * (2 * len(files))  # a file's path at 2i, its name at 2i + 1
        keys[0::2] = [hash(memory.rel_path) for memory in files]
        keys[1::2] = [hash(memory.name) for memory in files]
        self._sorted = _SortedKeys(keys)

    def get(self, key: str, default=None):
        files = self._files
        for place in reversed(self._sorted.places(hash(key))):
            memory = files[place >> 1]
            if (memory.name if place & 1 else memory.rel_path) == key:
                return memory
        return default
