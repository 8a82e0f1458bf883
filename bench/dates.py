"""``new Date(string)`` against node on a large sample: generated strings and every date of a corpus.

    python bench/dates.py [--strings 500000] [--zone UTC] [--corpus tests/data/realworld]

The generated strings are tests/dategen.py's (the CI test runs 20,000 of them in two zones). With
``--corpus``, every ``discoveredAt`` and date-like field value of every memory file under the
directory is compared too, as written (plain and quoted). Prints the counts and each difference;
exits 1 on any difference.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from dategen import date_strings, differences, node_times  # noqa: E402

_DATE_FIELD = re.compile(r"^(?:discoveredAt|date|pubDate|created|updated|lastmod|published|modified)\s*:[ \t]*(.+?)[ \t\r]*$", re.MULTILINE)


def corpus_dates(root: Path) -> list[str]:
    found: dict[str, None] = {}
    for path in sorted(root.rglob("*.md")):
        text = path.read_text(encoding="utf-8", errors="replace")
        for match in _DATE_FIELD.finditer(text.split("\n---", 1)[0]):
            raw = match.group(1)
            found.setdefault(raw.strip("'\""), None)
    return list(found)


def compare(strings: list[str], zone: str) -> list[tuple[str, object, object]]:
    want = node_times("node", strings, zone)
    os.environ["TZ"] = zone
    time.tzset()
    return differences(strings, want)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--strings", type=int, default=500_000)
    parser.add_argument("--zone", default="UTC")
    parser.add_argument("--corpus", type=Path)
    args = parser.parse_args()
    samples = {"generated": date_strings(args.strings, seed=11)}
    if args.corpus:
        samples["corpus"] = corpus_dates(args.corpus)
    failed = False
    for name, strings in samples.items():
        differ = compare(strings, args.zone)
        print(f"{name}: {len(strings):,} distinct strings in {args.zone}, {len(differ):,} differ from node")
        for text, want, got in differ[:20]:
            print(f"  {text!r}: node {want}, rawko-tui {got}")
        failed |= bool(differ)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
