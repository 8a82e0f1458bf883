"""SPEC-0007's ``matchPattern``, step by step, with the reason for every outcome.

The spec tries four interpretations in a fixed order and stops at the first
that applies::

    1. contains "|"          -> split on "|", trim, any alternative is a substring
    2. contains "*" or "?"   -> "*" -> ".*", "?" -> "." and test as RegExp(…, "i");
                                an invalid regex falls through to 3
    3. contains "." and "{"  -> RegExp(normalized, "i"); invalid falls through to 4
    4. otherwise             -> substring

``normalized`` is ``pattern.toLowerCase().trim()`` and the text is
``(task + " " + agentName).toLowerCase()``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .jsregex import JsRegexSyntaxError, JsRegexTimeout, compile_js, nested_quantifier_risk
from .jsvalue import js_trim

ALTERNATIVES = "alternatives"
WILDCARD = "wildcard"
REGEX = "regex"
SUBSTRING = "substring"

_REGEX_SYNTAX = set(".*+?()[]{}\\^$")


@dataclass(frozen=True)
class PatternResult:
    """How one whenToUse pattern was read and whether it matched."""

    pattern: str
    normalized: str
    interpretation: str  # alternatives | wildcard | regex | substring
    matched: bool
    span: tuple[int, int] | None = None  # in the search text
    matched_alternative: str | None = None
    regex_source: str | None = None
    engine: str | None = None  # re2 | backtracking
    fell_through: tuple[str, ...] = ()  # why earlier interpretations did not apply
    timed_out: bool = False
    notes: tuple[str, ...] = field(default=())

    def describe(self) -> str:
        """One line saying how the spec read the pattern."""
        if self.interpretation == ALTERNATIVES:
            alts = self.normalized.split("|")
            shown = ", ".join(repr(js_trim(a)) for a in alts)
            return f"split on '|' into literal substrings {shown}"
        if self.interpretation == WILDCARD:
            return f"glob turned into RegExp /{self.regex_source}/i"
        if self.interpretation == REGEX:
            return f"RegExp /{self.regex_source}/i (has '.' and '{{')"
        return f"literal substring {self.normalized!r}"


def build_search_text(task: str, agent_name: str) -> str:
    return f"{task} {agent_name}".lower()


def match_pattern(pattern: str, text: str) -> PatternResult:
    """SPEC-0007 ``matchPattern(pattern, text)`` with its reasons. ``text`` is already lower-cased."""
    normalized = js_trim(pattern.lower())
    fell_through: list[str] = []

    if "|" in normalized:
        alternatives = [js_trim(a) for a in normalized.split("|")]
        notes = []
        if "" in alternatives:
            notes.append("an empty alternative matches every task")
        regexy = [a for a in alternatives if _REGEX_SYNTAX.intersection(a)]
        if regexy:
            notes.append(
                "alternatives are plain substrings: "
                + ", ".join(repr(a) for a in regexy)
                + " only match text that literally contains those characters"
            )
        for alt in alternatives:
            position = text.find(alt)
            if position >= 0:
                return PatternResult(pattern, normalized, ALTERNATIVES, True, (position, position + len(alt)), alt, notes=tuple(notes))
        return PatternResult(pattern, normalized, ALTERNATIVES, False, notes=tuple(notes))

    if "*" in normalized or "?" in normalized:
        source = normalized.replace("*", ".*").replace("?", ".")
        result = _run_regex(pattern, normalized, WILDCARD, source, text, fell_through)
        if result is not None:
            return result

    if "." in normalized and "{" in normalized:
        result = _run_regex(pattern, normalized, REGEX, normalized, text, fell_through)
        if result is not None:
            return result

    position = text.find(normalized)
    matched = position >= 0
    return PatternResult(
        pattern,
        normalized,
        SUBSTRING,
        matched,
        (position, position + len(normalized)) if matched else None,
        fell_through=tuple(fell_through),
        notes=("an empty pattern matches every task",) if normalized == "" else (),
    )


def _run_regex(pattern: str, normalized: str, kind: str, source: str, text: str, fell_through: list[str]) -> PatternResult | None:
    try:
        compiled = compile_js(source)
    except JsRegexSyntaxError as exc:
        fell_through.append(f"/{source}/i is not a valid JavaScript regex ({exc}); the spec falls through")
        return None
    notes: list[str] = []
    if kind == WILDCARD and ".*" in normalized:
        notes.append("'.*' became '..*': every '*' is replaced by '.*', so it now needs at least one character")
    if nested_quantifier_risk(source):
        notes.append("nested quantifiers: a backtracking engine (V8, your arbiter) can take exponential time on some tasks")
    try:
        span = compiled.search(text)
    except JsRegexTimeout:
        return PatternResult(
            pattern,
            normalized,
            kind,
            False,
            regex_source=source,
            engine=compiled.engine,
            fell_through=tuple(fell_through),
            timed_out=True,
            notes=tuple(notes + ["did not finish in time; counted as no match (your arbiter may hang here)"]),
        )
    return PatternResult(
        pattern,
        normalized,
        kind,
        span is not None,
        span,
        regex_source=source,
        engine=compiled.engine,
        fell_through=tuple(fell_through),
        notes=tuple(notes),
    )


def near_miss(result: PatternResult, text: str) -> tuple[str, str, float] | None:
    """The closest fragment of the text to an unmatched pattern: (needle, fragment, similarity 0-100)."""
    if result.matched or not text.strip():
        return None
    from rapidfuzz import fuzz

    if result.interpretation == ALTERNATIVES:
        needles = [a for a in (js_trim(x) for x in result.normalized.split("|")) if a]
    elif result.interpretation in (WILDCARD, REGEX):
        needles = [p for p in _literal_runs(result.normalized) if len(p) >= 2] or [result.normalized]
    else:
        needles = [result.normalized] if result.normalized else []
    best: tuple[str, str, float] | None = None
    for needle in needles:
        alignment = fuzz.partial_ratio_alignment(needle, text)
        if alignment is None:
            continue
        fragment = text[alignment.dest_start : alignment.dest_end]
        if best is None or alignment.score > best[2]:
            best = (needle, fragment, round(alignment.score, 1))
    return best


def _literal_runs(source: str) -> list[str]:
    runs, current = [], []
    for ch in source:
        if ch in _REGEX_SYNTAX:
            if current:
                runs.append("".join(current))
            current = []
        else:
            current.append(ch)
    if current:
        runs.append("".join(current))
    return [r.strip() for r in runs if r.strip()]
