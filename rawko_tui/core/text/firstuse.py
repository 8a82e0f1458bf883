"""Regexes compiled when first used.

A warm start reads every memory from the parse cache, so the patterns that
read a file afresh (the frontmatter, the entry log, number literals, a lint
check) go unused by most commands; compiled at import they cost a start
milliseconds. ``OnFirstUse`` stands for the compiled pattern and compiles it
the first time any of its attributes is asked for.
"""

from __future__ import annotations

import re


class OnFirstUse:
    """``re.compile(pattern, flags)``, made on the first use of any attribute (``match``, ``sub``, ``pattern``…)."""

    __slots__ = ("_compiled", "_source")

    def __init__(self, pattern: str, flags: int = 0):
        self._source, self._compiled = (pattern, flags), None

    def __getattr__(self, name: str):  # asked only for what the object itself lacks: the pattern's attributes
        compiled = self._compiled
        if compiled is None:
            compiled = self._compiled = re.compile(*self._source)
        return getattr(compiled, name)
