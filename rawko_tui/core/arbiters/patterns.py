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

A regex only the backtracking engine can run may be *undecided* for a text
(``Undecided``: its time ran out, it is too large to run here, or that
engine's answer would not be V8's): never counted as a match or as no match.
So is a regex V8 itself may refuse to compile (``jsregex``'s ``refusal``),
unless what the arbiter does then (spec-0007 falls through to its next
reading, spec-0005 skips the pattern) gives the same answer (``refused``).
"""

from __future__ import annotations

import functools

from ..text.firstuse import OnFirstUse
from ..records import field, record
from ..disk import cache
from ..js.regexp import (
    TRANSLATIONS,
    V8_LIMIT,
    JsRegex,
    JsRegexSyntaxError,
    JsRegexUndecided,
    RegexBudget,
    compile_js,
    nested_quantifier_risk,
)
from ..js.values import js_trim

ALTERNATIVES = "alternatives"
WILDCARD = "wildcard"
REGEX = "regex"
SUBSTRING = "substring"
REAL_REGEX = "real-regex"  # SPEC-0005's matcher: a pattern with '|' or '*' is a regular expression
BAD_REGEX = "invalid-regex"  # SPEC-0005's matcher skips a pattern that is not a valid regex

_REGEX_SYNTAX = set(".*+?()[]{}\\^$")


@record(frozen=True)
class Undecided:
    """A whenToUse regex rawko-tui could not decide for one text, and why (``jsregex.JsRegexUndecided``)."""

    pattern: str  # the whenToUse item
    source: str  # the regular expression
    kind: str  # jsregex's TIMEOUT, BUDGET_SPENT, TOO_LARGE, SEMANTICS, MEMORY or V8_LIMIT
    reason: str
    seconds: float | None = None  # the time it was given, where time ran out

    @classmethod
    def of(cls, pattern: str, exc: JsRegexUndecided) -> Undecided:
        return cls(pattern, exc.source, exc.kind, exc.reason, exc.seconds)

    @property
    def decidable(self) -> bool:
        """Whether more time could decide it (not where the backtracking engine's answer would not be V8's, nor where V8 may refuse it)."""
        return self.kind not in ("semantics", V8_LIMIT)

    def to_dict(self) -> dict:
        return {"pattern": self.pattern, "regex": self.source, "kind": self.kind, "reason": self.reason, "seconds": self.seconds, "decidable": self.decidable}


@record(frozen=True)
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
    undecided: Undecided | None = None  # neither matched nor not: rawko-tui could not decide (``matched`` is False)
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
        if self.interpretation == REAL_REGEX:
            return f"RegExp /{self.regex_source}/i (under spec-0005 a pattern with '|' or '*' is a regular expression)"
        if self.interpretation == BAD_REGEX:
            return f"/{self.pattern}/i is not a valid regular expression: spec-0005 skips it"
        return f"literal substring {self.normalized!r}"


def build_search_text(task: str, agent_name: str) -> str:
    return f"{task} {agent_name}".lower()


@record(frozen=True)
class PatternPlan:
    """How SPEC-0007 reads one pattern, decided once: only ``run`` depends on the task.

    ``refused``: where V8 may refuse the regex, what the arbiter does then --
    the plan its code falls through to (None: the pattern is skipped, as
    spec-0005 does).
    """

    pattern: str
    normalized: str
    interpretation: str
    alternatives: tuple[str, ...] = ()
    regex: JsRegex | None = None
    fell_through: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()
    refused: PatternPlan | None = None

    def matches(self, text: str, budget: RegexBudget | None = None, last_round: bool = True, skip_alternatives: bool = False) -> bool:
        """Only whether it matches: the per-keystroke path.

        Raises JsRegexUndecided when a backtracking regex cannot be decided
        (within ``budget``, the ranking's time for them: its slice unless
        ``last_round``, else what is left; without one, the default timeout),
        or V8 may refuse the regex and what the arbiter does then gives
        another answer.  ``skip_alternatives``: the caller's RE2 sets
        already said no top-level alternative RE2 runs matches.
        """
        if self.interpretation == BAD_REGEX:
            return False
        if self.interpretation == ALTERNATIVES:
            return any(alt in text for alt in self.alternatives)
        if self.regex is not None:
            try:
                if budget is not None:
                    return budget.test(self.regex, text, last_round, skip_alternatives)
                return self.regex.test(text)
            except JsRegexUndecided as exc:
                if exc.kind != V8_LIMIT:
                    raise
                return self._if_refused(exc, lambda: self.refused.matches(text, budget, last_round) if self.refused is not None else False)
        return self.normalized in text

    def _if_refused(self, exc: JsRegexUndecided, refused_answer) -> bool:
        """The answer when V8 may refuse the regex: decided only when accepting and refusing give the same one."""
        if exc.matched_if_accepted is not None:
            if refused_answer() == exc.matched_if_accepted:
                return exc.matched_if_accepted
            reason = f"{exc.reason}; if it does, {self.refused_words()} ({'a match' if exc.matched_if_accepted else 'no match'} if it does not)"
        else:
            reason = f"{exc.reason}; if it does, {self.refused_words()}"
        raise JsRegexUndecided(exc.source, V8_LIMIT, reason, exc.seconds, exc.matched_if_accepted)

    def refused_words(self) -> str:
        """What the arbiter does when V8 refuses the regex, in words."""
        if self.refused is None:
            return "the arbiter skips the pattern"
        return f"the spec falls through to {self.refused.describe()}"

    def describe(self) -> str:
        """The reading in a few words (a long pattern cut)."""
        if self.interpretation == SUBSTRING:
            shown = repr(self.normalized) if len(self.normalized) <= 60 else f"{self.normalized[:50]!r}…"
            return f"the literal substring {shown}"
        source = self.regex.source if self.regex is not None else self.normalized
        shown = source if len(source) <= 60 else source[:50] + "…"
        return f"RegExp /{shown}/i"

    def run(self, text: str, undecided: Undecided | None = None) -> PatternResult:
        """The pattern's outcome with its reasons; ``undecided``: the ranking could not decide it (it is not run again)."""
        if self.interpretation == BAD_REGEX:
            return PatternResult(self.pattern, self.normalized, BAD_REGEX, False, notes=self.notes)
        if self.interpretation == ALTERNATIVES:
            for alt in self.alternatives:
                position = text.find(alt)
                if position >= 0:
                    return PatternResult(self.pattern, self.normalized, ALTERNATIVES, True, (position, position + len(alt)), alt, notes=self.notes)
            return PatternResult(self.pattern, self.normalized, ALTERNATIVES, False, notes=self.notes)
        if self.regex is not None:
            notes = self.notes
            try:
                if undecided is not None:
                    raise JsRegexUndecided(undecided.source, undecided.kind, undecided.reason, undecided.seconds)
                try:
                    span = self.regex.search(text)
                    matched = span is not None
                except JsRegexUndecided as exc:
                    if exc.kind == V8_LIMIT:
                        matched = self.matches(text)  # decided only where refusing and accepting agree
                        notes += (f"{exc.reason}; if it does, {self.refused_words()}: the same answer either way",)
                    else:  # whether it matches at all may still be decided (by an alternative RE2 runs)
                        matched = self.regex.test(text)
                        notes += ("where the match starts is not known here: " + exc.reason,) if matched else ()
                    span = None
            except JsRegexUndecided as exc:
                return PatternResult(
                    self.pattern,
                    self.normalized,
                    self.interpretation,
                    False,
                    regex_source=self.regex.source,
                    engine=self.regex.engine,
                    fell_through=self.fell_through,
                    undecided=undecided or Undecided.of(self.pattern, exc),
                    notes=notes,
                )
            return PatternResult(
                self.pattern,
                self.normalized,
                self.interpretation,
                matched,
                span,
                regex_source=self.regex.source,
                engine=self.regex.engine,
                fell_through=self.fell_through,
                notes=notes,
            )
        position = text.find(self.normalized)
        matched = position >= 0
        span = (position, position + len(self.normalized)) if matched else None
        return PatternResult(self.pattern, self.normalized, SUBSTRING, matched, span, fell_through=self.fell_through, notes=self.notes)


_DOTTED_NAME = OnFirstUse(r"(?<=\w)\.(?=\w)")


def looks_like_regex(alternative: str) -> bool:
    """Regex syntax in a literal alternative; a dot inside a name (``req.user``, ``token.ts``) is meant literally."""
    return bool(_REGEX_SYNTAX.intersection(_DOTTED_NAME.sub("", alternative)))


# pattern -> plan_record, kept between runs; a run that explains a few memories (the rank
# index is kept) makes its first 64 plans directly instead of reading every pattern ever seen
PLANS = cache.SharedRecords("plans", direct=64)


@functools.lru_cache(maxsize=65536)
def plan_pattern(pattern: str) -> PatternPlan:
    """Decide which of SPEC-0007's four interpretations applies to ``pattern`` (remembered between runs)."""
    record = PLANS.get(pattern)
    if record is not None:
        try:
            return _plan_from_record(pattern, record)
        except (TypeError, ValueError):  # not a record this code wrote: plan it again
            pass
    plan = _plan(pattern)
    PLANS.add(pattern, plan_record(plan))
    return plan


def save_new_plans() -> None:
    """Add the plans and regex translations made in this run to the cache (after lint or an index build)."""
    TRANSLATIONS.save()
    PLANS.save()


def plan_record(plan: PatternPlan) -> tuple:
    regex = None if plan.regex is None else plan.regex.__reduce__()[1]
    refused = None if plan.refused is None else plan_record(plan.refused)
    return (plan.normalized, plan.interpretation, plan.alternatives, regex, plan.fell_through, plan.notes, refused)


def _plan_from_record(pattern: str, record: tuple) -> PatternPlan:
    normalized, interpretation, alternatives, regex, fell_through, notes, refused = record
    refused_plan = None if refused is None else _plan_from_record(pattern, refused)
    return PatternPlan(pattern, normalized, interpretation, alternatives, None if regex is None else JsRegex(*regex), fell_through, notes, refused_plan)


def _plan(pattern: str) -> PatternPlan:
    normalized = js_trim(pattern.lower())

    if "|" in normalized:
        alternatives = tuple(js_trim(a) for a in normalized.split("|"))
        notes = []
        if "" in alternatives:
            notes.append("an empty alternative matches every task")
        regexy = [a for a in alternatives if looks_like_regex(a)]
        if regexy:
            verb = "matches" if len(regexy) == 1 else "match"
            notes.append(f"alternatives are plain substrings: {', '.join(repr(a) for a in regexy)} {verb} only text that literally contains those characters")
        return PatternPlan(pattern, normalized, ALTERNATIVES, alternatives, notes=tuple(notes))

    steps = []
    if "*" in normalized or "?" in normalized:
        steps.append((WILDCARD, normalized.replace("*", ".*").replace("?", ".")))
    if "." in normalized and "{" in normalized:
        steps.append((REGEX, normalized))
    return _plan_steps(pattern, normalized, steps, ())


def _plan_steps(pattern: str, normalized: str, steps: list[tuple[str, str]], fell_through: tuple[str, ...]) -> PatternPlan:
    """The first of the spec's regex readings that compiles, else the substring; a regex V8 may refuse keeps the rest as its fall-through."""
    fell_through = list(fell_through)
    for position, (kind, source) in enumerate(steps):
        try:
            compiled = compile_js(source)
        except JsRegexSyntaxError as exc:
            fell_through.append(f"/{source}/i is not a valid JavaScript regex ({exc}); the spec falls through")
            continue
        notes = []
        if kind == WILDCARD and ".*" in normalized:
            notes.append("'.*' became '..*': every '*' is replaced by '.*', so it now needs at least one character")
        if nested_quantifier_risk(source):
            notes.append("nested quantifiers: a backtracking engine (V8, your arbiter) can take exponential time on some tasks")
        refused = None
        if compiled.refusal is not None:  # V8 throws when it runs it: the spec's catch falls through to the next reading
            said = f"/{source[:60]}{'…' if len(source) > 60 else ''}/i may be refused by V8 when it runs ({compiled.refusal}); the spec then falls through"
            refused = _plan_steps(pattern, normalized, steps[position + 1 :], (*fell_through, said))
        return PatternPlan(pattern, normalized, kind, regex=compiled, fell_through=tuple(fell_through), notes=tuple(notes), refused=refused)

    notes = ("an empty pattern matches every task",) if normalized == "" else ()
    return PatternPlan(pattern, normalized, SUBSTRING, fell_through=tuple(fell_through), notes=notes)


@functools.lru_cache(maxsize=65536)
def plan_spec0005_pattern(pattern: str) -> PatternPlan:
    """How SPEC-0005's ``matchWhenToUse`` reads one pattern: '|' or '*' make a real regex (flag i), else a substring."""
    if "|" in pattern or "*" in pattern:
        try:
            compiled = compile_js(pattern)
        except JsRegexSyntaxError as exc:
            return PatternPlan(pattern, pattern, BAD_REGEX, notes=(f"not a valid JavaScript regex ({exc})",))
        return PatternPlan(pattern, pattern, REAL_REGEX, regex=compiled)
    return PatternPlan(pattern, pattern.lower(), SUBSTRING)


def match_pattern(pattern: str, text: str) -> PatternResult:
    """SPEC-0007 ``matchPattern(pattern, text)`` with its reasons. ``text`` is already lower-cased."""
    return plan_pattern(pattern).run(text)


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
