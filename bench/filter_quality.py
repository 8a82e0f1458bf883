"""The memory list's filter against what people expect it to find: precision and recall on a labelled set.

The set (bench/data/filter_queries.json) was written by a person who never read the filter's code: 181
memories (8 from each real-world store, the demo store's 11), 60 queries typed as someone narrowing the list
would (words, prefixes, two words, typos, a tag or file name, things that are not there), and every memory
they would call a hit. Each memory is searched on what the labeller saw: title, tags, file name.

    python bench/filter_quality.py
"""

from __future__ import annotations

import json
import sys
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from rawko_tui.core.store.memoryfilter import FilterIndex  # noqa: E402

DATA = Path(__file__).parent / "data" / "filter_queries.json"


def filters(texts: list[str]):
    """name -> query -> the rows it keeps: today's filter, and the fuzzy one it replaced (rapidfuzz partial_ratio >= 70)."""
    from rapidfuzz import fuzz, process

    index = FilterIndex(texts)
    return {
        "words (today)": lambda q: set(index.scores(q)),
        "fuzzy partial_ratio>=70 (before)": lambda q: {i for _, _, i in process.extract(q.lower(), texts, scorer=fuzz.partial_ratio, score_cutoff=70, limit=None)},
    }


def measure() -> dict[str, dict[str, tuple[int, int, int]]]:
    """filter -> kind of query (and "all") -> (true positives, false positives, false negatives)."""
    data = json.loads(DATA.read_text(encoding="utf-8"))
    memories, queries = data["memories"], data["queries"]
    texts = [f"{m['title']} {' '.join(m['tags'])} {m['file']}".lower() for m in memories]
    counts: dict[str, dict[str, list[int]]] = {}
    for name, keep in filters(texts).items():
        per = defaultdict(lambda: [0, 0, 0])
        for q in queries:
            got, want = keep(q["query"]), set(q["matches"])
            for kind in (q["kind"], "all"):
                per[kind][0] += len(got & want)
                per[kind][1] += len(got - want)
                per[kind][2] += len(want - got)
        counts[name] = {k: tuple(v) for k, v in per.items()}
    return counts


def main() -> None:
    for name, per in measure().items():
        print(name)
        for kind, (tp, fp, fn) in sorted(per.items()):
            precision = tp / (tp + fp) if tp + fp else 1.0
            recall = tp / (tp + fn) if tp + fn else 1.0
            print(f"  {kind:12} precision {precision:6.1%}  recall {recall:6.1%}  ({tp} found, {fp} wrong, {fn} missed)")


if __name__ == "__main__":
    main()
