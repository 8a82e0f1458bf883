"""Each memory's term counts kept between runs, so that the queue of a 10,000-memory store opens in a second or two.

Reading the evidence of 10,000 memories takes seconds; it depends only on a
file's text, so it is kept per file, under a digest of that text, in one file
per store beside the parse cache (same folder, same trust rules: only this
user's file, written atomically, ignored when written by other code).
A changed file is read again; the others come from the cache as they are.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from pathlib import Path

from ...disk import cache
from .similarity import TermCounts

FORMAT = 1
_MODULES = ("curation/consolidation/evidence.py", "curation/consolidation/termcache.py")  # named from rawko_tui/core/
_code_key: str | None = None


def code_key() -> str:
    """The evidence reader's source (and the word list it uses): counts from other code are not used."""
    global _code_key
    if _code_key is None:
        digest = hashlib.sha256(f"{FORMAT}".encode())
        here = Path(__file__).resolve().parent.parent.parent
        for name in _MODULES:
            digest.update((here / name).read_bytes())
        digest.update((here / "data" / "english_words.txt").read_bytes())
        _code_key = digest.hexdigest()
    return _code_key


def text_digest(text: str) -> bytes:
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).digest()


def _path(root: Path) -> Path:
    return cache.companion_path(cache.cache_path(root), "terms")


def term_counts(root: Path, texts: list[str], terms_of: Callable[[int], dict[str, float]]) -> TermCounts:
    """The term counts of each memory (``texts[i]`` is its file's text; ``terms_of(i)`` reads its terms when not cached)."""
    import numpy as np

    digests = [text_digest(t) for t in texts]
    stored = cache._read(_path(root)) if cache.enabled() else None
    if not isinstance(stored, dict) or stored.get("code") != code_key() or stored.get("root") != str(Path(root).resolve()):
        stored = None
    if stored is not None and stored["digests"] == digests:
        return TermCounts.of_arrays(stored["data"], stored["indices"], stored["indptr"], stored["vocabulary"])
    index = {term: i for i, term in enumerate(stored["vocabulary"])} if stored is not None else {}
    row_of = {d: i for i, d in enumerate(stored["digests"])} if stored is not None else {}
    indices_parts, data_parts = [], []
    for i, digest in enumerate(digests):
        cached_row = row_of.get(digest)
        if cached_row is not None:
            start, end = stored["indptr"][cached_row], stored["indptr"][cached_row + 1]
            indices_parts.append(stored["indices"][start:end])
            data_parts.append(stored["data"][start:end])
        else:
            terms = terms_of(i)
            indices_parts.append(np.array([index.setdefault(t, len(index)) for t in terms], dtype=np.int64))
            data_parts.append(np.array(list(terms.values()), dtype=np.float64))
    indptr = np.concatenate([[0], np.cumsum([len(part) for part in indices_parts])]).astype(np.int64)
    indices = np.concatenate(indices_parts).astype(np.int64) if indices_parts else np.zeros(0, dtype=np.int64)
    data = np.concatenate(data_parts).astype(np.float64) if data_parts else np.zeros(0)
    vocabulary = list(index)
    used = np.unique(indices)
    if len(vocabulary) > 1000 and len(used) * 2 < len(vocabulary):
        # most terms belong to files that are gone: keep only the terms still used
        vocabulary = [vocabulary[u] for u in used.tolist()]
        indices = np.searchsorted(used, indices).astype(np.int64)
    counts = TermCounts.of_arrays(data, indices, indptr, vocabulary)
    if cache.enabled():
        matrix = counts.matrix
        record = {"digests": digests, "vocabulary": vocabulary, "indptr": matrix.indptr, "indices": matrix.indices, "data": matrix.data}
        cache._write(_path(root), {"code": code_key(), "root": str(Path(root).resolve()), **record})
    return counts
