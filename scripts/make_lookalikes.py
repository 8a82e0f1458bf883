"""Write ``rawko_tui/core/data/lookalikes.txt``: characters a model reads as an ASCII letter or digit.

    python scripts/make_lookalikes.py PATH/TO/unhomoglyph/data.json

Two sources, both principled rather than picked by hand:

* Unicode's confusables (UTS #39 ``confusables.txt``, Unicode 13.0.0, as the npm
  package ``unhomoglyph`` 1.0.6 ships it in ``data.json``: each character mapped to
  its prototype): every non-ASCII character whose prototype is one ASCII letter or
  digit (Cyrillic ``і``, Armenian ``օ``, dotless ``ı``, script ``ɡ``, Cherokee ``Ꭰ``);
* Unicode's character names (the ``unicodedata`` of the Python that runs this):
  a Latin letter with a mark that has no decomposition (``ł``, ``ø``, ``đ``), a
  small capital (``ɢ``, ``ɴ``, ``ʀ``, ``ᴇ``), a script or dotless letter, a
  regional-indicator or negative-squared letter, read as that letter;
* Cyrillic and Greek lower-case letters drawn as Latin small capitals (``в`` ``к``
  ``м`` ``н`` ``т``, ``β`` ``ε`` ``κ`` ``τ`` ``χ``), which confusables.txt leaves out
  (the table rawko-tui used before this file).

confusables.txt maps capital I and its look-alikes to ``l`` (its prototype); an
upper-case source (Greek ``Ι``, Cyrillic ``І``) is read as ``I`` instead, as a model would.

Characters NFKD already folds to ASCII (full-width, mathematical, circled letters) are
left out: the reader applies NFKD first. Unicode's data is © Unicode, Inc., under the
licence in ``data/LICENSE-UNICODE.txt``.
"""

from __future__ import annotations

import json
import re
import sys
import unicodedata
from pathlib import Path

OUT = Path(__file__).resolve().parent.parent / "rawko_tui" / "core" / "data" / "lookalikes.txt"
_NAMED = re.compile(
    r"^(?:LATIN (?:CAPITAL|SMALL) LETTER (?:SMALL CAPITAL |SCRIPT |DOTLESS )?([A-Z])(?: WITH .*)?"
    r"|LATIN LETTER SMALL CAPITAL ([A-Z])"
    r"|REGIONAL INDICATOR SYMBOL LETTER ([A-Z])"
    r"|NEGATIVE (?:SQUARED|CIRCLED) LATIN CAPITAL LETTER ([A-Z]))$"
)


def folds_by_nfkd(char: str) -> bool:
    folded = "".join(c for c in unicodedata.normalize("NFKD", char) if not unicodedata.combining(c))
    return folded.isascii() and folded.isalnum()


SMALL_CAPITAL_LIKE = dict(zip("вкмнтβεκτχ", "bkmhtbektx"))


def table(confusables: dict[str, str]) -> dict[str, str]:
    found: dict[str, str] = {}
    for source, target in confusables.items():
        if len(source) == 1 and not source.isascii() and len(target) == 1 and target.isascii() and target.isalnum():
            if not unicodedata.combining(source) and not folds_by_nfkd(source):
                found[source] = "I" if target == "l" and unicodedata.category(source) == "Lu" else target
    for code in range(0x80, 0x110000):
        char = chr(code)
        if char in found or folds_by_nfkd(char):
            continue
        named = _NAMED.match(unicodedata.name(char, ""))
        if named:
            letter = next(g for g in named.groups() if g)
            small = "SMALL" in unicodedata.name(char) and "CAPITAL LETTER" not in unicodedata.name(char)
            found[char] = letter.lower() if small else letter
    for char, letter in SMALL_CAPITAL_LIKE.items():
        found.setdefault(char, letter)
    return dict(sorted(found.items()))


def main() -> None:
    confusables = json.loads(Path(sys.argv[1]).read_text(encoding="utf-8"))
    rows = table(confusables)
    header = [
        "# Characters a model reads as an ASCII letter or digit: code point, then the letter. Made by",
        "# scripts/make_lookalikes.py from Unicode's confusables.txt (UTS #39, Unicode 13.0.0, as shipped in",
        f"# the npm package unhomoglyph 1.0.6) and from Unicode character names (Unicode {unicodedata.unidata_version}).",
        "# Unicode data: Copyright (c) 1991-2022 Unicode, Inc.; see LICENSE-UNICODE.txt beside this file.",
    ]
    lines = header + [f"{ord(char):04X} {letter}" for char, letter in rows.items()]
    OUT.write_text("\n".join(lines) + "\n", encoding="utf-8")
    print(f"{len(rows)} characters written to {OUT}")


if __name__ == "__main__":
    main()
