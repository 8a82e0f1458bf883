"""Which memories are alike, by weighted terms learned from the store itself.

Every memory becomes a vector of its evidence terms weighted by how rare each
term is *in this store* (tf-idf with a smoothed idf, rows of unit length), so a
shared ``src/auth/token.ts`` counts for much and a shared "project" for little.
Candidate pairs come from one sparse product restricted to the rarer terms,
each memory keeping its nearest few: this is what keeps 10,000 memories fast.
scipy's sparse matrices do the arithmetic (scikit-learn's vectoriser would do
the same but takes over a second to import).
"""

from __future__ import annotations

from .evidence import Evidence

NEIGHBOURS = 12  # the nearest memories each memory is compared with in a large store
ALL_PAIRS_UP_TO = 600  # below this many memories every pair is compared
COMMON_TERM_SHARE = 0.05  # a term in more than this share of a large store does not propose pairs


class TermCounts:
    """Every memory's weighted term counts (before idf) as one sparse matrix: what the term cache keeps between runs."""

    def __init__(self, matrix, vocabulary: list[str]) -> None:
        self.matrix = matrix  # scipy CSR, one row per memory, one column per vocabulary term
        self.vocabulary = vocabulary

    @classmethod
    def of_arrays(cls, data, indices, indptr, vocabulary: list[str]) -> TermCounts:
        """From CSR arrays: row ``i``'s terms are ``indices[indptr[i]:indptr[i + 1]]`` (positions in ``vocabulary``)."""
        from scipy import sparse

        return cls(sparse.csr_matrix((data, indices, indptr), shape=(len(indptr) - 1, max(1, len(vocabulary)))), vocabulary)

    @classmethod
    def of(cls, rows: list[dict[str, float]]) -> TermCounts:
        import numpy as np

        index: dict[str, int] = {}
        indptr, cols, weights = [0], [], []
        for terms in rows:
            for term in terms:
                cols.append(index.setdefault(term, len(index)))
            weights.extend(terms.values())
            indptr.append(len(cols))
        return cls.of_arrays(
            np.array(weights, dtype=np.float64), np.array(cols, dtype=np.int64), np.array(indptr, dtype=np.int64), list(index)
        )

    def with_row(self, terms: dict[str, float]) -> TermCounts:
        """These counts with one more row (a draft), its new terms added to the vocabulary."""
        import numpy as np

        index = {term: i for i, term in enumerate(self.vocabulary)}
        cols = np.array([index.setdefault(term, len(index)) for term in terms], dtype=np.int64)
        matrix = self.matrix
        data = np.concatenate([matrix.data, np.array(list(terms.values()), dtype=np.float64)])
        indptr = np.append(matrix.indptr, matrix.indptr[-1] + len(cols))
        return TermCounts.of_arrays(data, np.concatenate([matrix.indices, cols]), indptr, list(index))


class StoreTerms:
    """Term weights of one store (learned from it), and the unit vectors of its memories."""

    def __init__(self, counts: TermCounts) -> None:
        import numpy as np
        from scipy import sparse

        raw = counts.matrix
        self.count = raw.shape[0]
        self.vocabulary = {term: index for index, term in enumerate(counts.vocabulary)}
        self.df_array = np.bincount(raw.indices, minlength=raw.shape[1]).astype(np.float64)
        idf = np.log((1 + self.count) / (1 + self.df_array)) + 1.0
        # sub-linear in the count: the tenth mention of a word adds little
        weight = np.where(raw.data >= 1, 1.0 + np.log(np.maximum(raw.data, 1.0)), raw.data) * idf[raw.indices]
        matrix = sparse.csr_matrix((weight, raw.indices, raw.indptr), shape=raw.shape)
        norms = np.sqrt(np.asarray(matrix.multiply(matrix).sum(axis=1)).ravel())
        norms[norms == 0] = 1.0
        self.matrix = (sparse.diags(1.0 / norms) @ matrix).tocsr()

    @classmethod
    def of(cls, evidences: list[Evidence]) -> StoreTerms:
        return cls(TermCounts.of([e.terms for e in evidences]))

    def df(self, term: str) -> int:
        index = self.vocabulary.get(term)
        return int(self.df_array[index]) if index is not None else 0

    def rarity(self, term: str) -> float:
        """0 for a term every memory has, 1 for a term only one has."""
        if self.count <= 1:
            return 1.0
        return 1.0 - (max(self.df(term), 1) - 1) / (self.count - 1)

    def candidate_pairs(self) -> list[tuple[int, int, float]]:
        """(i, j, cosine) for the pairs worth judging: all pairs in a small store, each memory's nearest in a large one."""
        import numpy as np
        from scipy import sparse

        if self.count < 2:
            return []
        if self.count <= ALL_PAIRS_UP_TO:
            product = (self.matrix @ self.matrix.T).toarray()
            i, j = np.triu_indices(self.count, k=1)
            keep = product[i, j] > 0
            return list(zip(i[keep].tolist(), j[keep].tolist(), product[i, j][keep].tolist()))
        rare = sparse.diags((self.df_array <= max(2, COMMON_TERM_SHARE * self.count)).astype(np.float64))
        narrowed = (self.matrix @ rare).tocsr()
        product = (narrowed @ narrowed.T).tocsr()
        pairs: set[tuple[int, int]] = set()
        for row in range(self.count):
            start, end = product.indptr[row], product.indptr[row + 1]
            columns, scores = product.indices[start:end], product.data[start:end]
            if len(columns) > NEIGHBOURS + 1:
                top = np.argpartition(-scores, NEIGHBOURS)[: NEIGHBOURS + 1]
                columns = columns[top]
            pairs.update((min(row, c), max(row, c)) for c in columns.tolist() if c != row)
        if not pairs:
            return []
        ordered = sorted(pairs)
        left = np.array([p[0] for p in ordered])
        right = np.array([p[1] for p in ordered])
        cosines = np.asarray(self.matrix[left].multiply(self.matrix[right]).sum(axis=1)).ravel()
        return [(a, b, c) for (a, b), c in zip(ordered, cosines.tolist()) if c > 0]

    def similarities_to(self, row: int) -> list[float]:
        """The cosine of one memory with every memory of the store."""
        import numpy as np

        return np.asarray((self.matrix @ self.matrix[row].T).todense()).ravel().tolist()
