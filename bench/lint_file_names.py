"""How many files each reading of lint's ``file-name`` rule flags in stores people wrote by hand.

    python bench/lint_file_names.py

The stores are tests/data/realworld/ (real people's frontmatter, see its
README), once per source file (the -crlf and -bom copies left out), each file
under two names: the one its author gave it (the original path's last part in
MANIFEST.tsv: many are index.md or SKILL.md, whose folder says the subject), and
the corpus's (the folder kept for such names, its numbering taken off). The
demo store (.rawko/) is measured too.
The figures are in docs/reference/lint-rules.md ("Why `file-name` is a note"), where the rule in
use is chosen.
"""

from __future__ import annotations

import csv
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from rawko_tui.core.lint.linter import file_name_note, name_words, names_another_subject  # noqa: E402
from rawko_tui.core.store.loading import load_store  # noqa: E402
from rawko_tui.core.record.writer import slugify  # noqa: E402

TOP = Path(__file__).resolve().parent.parent
CORPUS = TOP / "tests" / "data" / "realworld"
KEBAB = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")
PLAIN = re.compile(r"[a-z0-9][a-z0-9._-]*")


def _exact(stem: str, title: str) -> bool:
    return stem != slugify(title)


def _not_kebab(stem: str, title: str) -> bool:
    return not KEBAB.fullmatch(stem)


def _not_plain(stem: str, title: str) -> bool:
    return not PLAIN.fullmatch(stem)


def _no_shared_word(stem: str, title: str) -> bool:
    """The strictest reading of "another subject": not one word of the name is a word of the title."""
    return not set(name_words(stem)) & set(name_words(title))


VARIANTS = (
    ("not exactly the title's slug (the rule before)", _exact),
    ("not kebab-case at all", _not_kebab),
    ("is not a plain name (upper case, spaces, other characters)", _not_plain),
    ("shares no whole word with the title", _no_shared_word),
    ("names another subject", names_another_subject),
    ("names another subject, or is not a plain name (in use, a note)", lambda stem, title: file_name_note(stem, title) is not None),
)


def corpus_files() -> list[tuple[str, str, str, str]]:
    """(store, the name its author gave the file, the corpus's name for it, its title) for each source file whose title is text."""
    rows = list(csv.DictReader((CORPUS / "MANIFEST.tsv").open(encoding="utf-8"), delimiter="\t"))
    titles: dict[tuple[str, str], object] = {}
    for store in sorted({row["store"] for row in rows}):
        for memory in load_store(CORPUS / "stores" / store).files:
            titles[(store, memory.name)] = memory.attrs.get("title") if memory.error is None else None
    found = []
    for row in rows:
        title = titles.get((row["store"], row["file"]))
        if row["variant"] != "plain" or not isinstance(title, str) or not title.strip():
            continue
        original = row["original_path"].rsplit("/", 1)[-1]
        found.append((row["store"], original.rsplit(".", 1)[0], re.sub(r"^\d+-", "", row["file"][: -len(".md")]), title))
    return found


def demo_files() -> list[tuple[str, str]]:
    return [(m.stem, m.attrs["title"]) for m in load_store(TOP).files if m.error is None and isinstance(m.attrs.get("title"), str)]


def main() -> None:
    corpus, demo = corpus_files(), demo_files()
    stores = sorted({row[0] for row in corpus})
    print(f"{len(corpus)} files with a title in {len(stores)} stores of tests/data/realworld; the demo store: {len(demo)}\n")
    print("| the rule flags a file whose name… | authors' names | corpus names | stores where it flags most files (corpus names) | demo store |")
    print("|---|---|---|---|---|")
    for label, flags in VARIANTS:
        by_author = sum(1 for _, original, _, title in corpus if flags(original, title))
        flagged = [row for row in corpus if flags(row[2], row[3])]
        flooded = sum(1 for s in stores if 2 * sum(1 for f in flagged if f[0] == s) > sum(1 for c in corpus if c[0] == s))
        in_demo = sum(1 for stem, title in demo if flags(stem, title))
        share = lambda n: f"{n} ({100 * n / len(corpus):.0f}%)"  # noqa: E731
        print(f"| {label} | {share(by_author)} | {share(len(flagged))} | {flooded} of {len(stores)} | {in_demo} of {len(demo)} |")
    if "-v" in sys.argv[1:]:
        print("\nFlagged by the rule in use (corpus names):")
        for store, _, stem, title in corpus:
            note = file_name_note(stem, title)
            if note:
                print(f"  {store}: {note}  (title {title[:60]!r})")


if __name__ == "__main__":
    main()
