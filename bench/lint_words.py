"""Precision and recall of lint's common-word rule on the labelled whenToUse alternatives.

    python bench/lint_words.py            # the figures at the cut-off in use
    python bench/lint_words.py --sweep    # every cut-off: how the one in use was chosen

A flagged alternative is a prediction of "generic"; the labels are in
bench/data/pattern_alternatives.tsv.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from rawko_tui.core.text.commonwords import COMMON_WORD_RANK, is_common_word  # noqa: E402

LABELS = Path(__file__).parent / "data" / "pattern_alternatives.tsv"


def labelled() -> list[tuple[str, bool]]:
    rows = []
    for line in LABELS.read_text(encoding="utf-8").splitlines():
        if line.startswith("#") or line.startswith("alternative\t") or not line.strip():
            continue
        word, label = line.split("\t")
        rows.append((word, label == "generic"))
    return rows


def measure(cutoff: int = COMMON_WORD_RANK) -> dict:
    rows = labelled()
    flagged = [(w, generic) for w, generic in rows if is_common_word(w, cutoff)]
    true_positive = sum(1 for _, generic in flagged if generic)
    generic_total = sum(1 for _, generic in rows if generic)
    return {
        "cutoff": cutoff,
        "labelled": len(rows),
        "generic": generic_total,
        "flagged": len(flagged),
        "precision": true_positive / len(flagged) if flagged else 1.0,
        "recall": true_positive / generic_total if generic_total else 1.0,
        "false_positives": sorted(w for w, generic in flagged if not generic),
        "missed": sorted(w for w, generic in rows if generic and not is_common_word(w, cutoff)),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sweep", action="store_true")
    args = parser.parse_args()
    cutoffs = [100, 200, 300, 500, 700, 1000, 1300, 1500, 2000, 3000] if args.sweep else [COMMON_WORD_RANK]
    print(f"{'cut-off':>8} {'flagged':>8} {'precision':>10} {'recall':>7}  false positives")
    for cutoff in cutoffs:
        m = measure(cutoff)
        print(f"{cutoff:>8} {m['flagged']:>8} {m['precision']:>10.3f} {m['recall']:>7.3f}  {', '.join(m['false_positives'])}")
    m = measure()
    print(f"\nIn use: {COMMON_WORD_RANK} ({m['labelled']} labelled, {m['generic']} generic). Missed generic words: {', '.join(m['missed'])}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
