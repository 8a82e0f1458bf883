"""Rewrite the documentation's generated parts from what the code really does.

Every ```console example in README.md and docs/ is run against a throwaway copy of the
demo store and its output on the page replaced by the real one (an abridged output keeps
its first and last lines and its `…`); the key table in docs/reference/keys.md is made
again from the app's bindings. tests/test_doc_examples.py checks both; the convention is
in docs/CONTRIBUTING.md. Review the diff: a changed output may need its prose changed too.

    python scripts/update_doc_examples.py [PAGE …]
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from docpages import KEYS_PAGE, pages, relative, update_keys_page, update_page  # noqa: E402


def main(argv: list[str]) -> None:
    chosen = [Path(arg).resolve() for arg in argv] or pages()
    for page in chosen:
        changed = update_page(page)
        if changed:
            print(f"{relative(page)}: {changed} output(s) rewritten")
    if update_keys_page():
        print(f"{relative(KEYS_PAGE)}: the key table rewritten")


if __name__ == "__main__":
    main(sys.argv[1:])
