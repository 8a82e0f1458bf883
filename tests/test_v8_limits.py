"""V8's own limits (issue 22's attack, faults 2 and 3): a pattern V8 refuses is never reported as a decided answer.

V8 reads a pattern when ``new RegExp`` runs ("Too many captures" is a syntax
error then) and compiles it when it first runs it ("Stack overflow",
"Regular expression too large": the arbiters' try/catch then skips the
pattern or falls through).  rawko-tui models the first exactly and, for the
second, says *undecided* past conservative bounds.  Every case here is put to
node (tests/oracle/regex_limits_probe.js) and compared.
"""

from __future__ import annotations

import json
import random
import shutil
import signal
import subprocess

import pytest
from conftest import ORACLE_DIR, with_limits

from rawko_tui.core.js import regexp as jsregex
from rawko_tui.core.js.regexp import JsRegexSyntaxError, JsRegexUndecided, compile_js, v8_refusal
from rawko_tui.core.arbiters.patterns import plan_pattern, plan_spec0005_pattern

pytestmark = pytest.mark.scale


@pytest.fixture(autouse=True)
def _fresh_answers():
    jsregex.ANSWERS.clear()
    yield
    jsregex.ANSWERS.clear()


def _v8(cases: list[tuple[str, str, str]], alone: bool = False, slow_ms: int = 2000) -> list[dict]:
    """V8's answers; a case that kills V8 itself (its regexp compiler can run out of memory on deep nesting) is
    ``{"crash": …}``, and one V8 is still working on after a while is ``{"slow": True}`` (compared with nothing):
    the probe interrupts a match after two seconds of CPU time (so a busy machine does not leave a case without
    an answer), and a compile that cannot be interrupted is the process's timeout. ``alone`` puts each case to its
    own node at once (for generated cases, some of which V8 compiles for minutes). ``slow_ms``: the CPU time a match
    may take before it is slow (an answer compared with nothing: each costs that much)."""
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is needed for the V8 oracle")

    def run(batch, timeout, cpu_seconds=None):
        command, set_limits = [node, str(ORACLE_DIR / "regex_limits_probe.js"), str(slow_ms)], None
        if cpu_seconds:
            command, set_limits = with_limits(command, cpu=(cpu_seconds, cpu_seconds + 5))  # SIGXCPU at the first, SIGKILL at the second
        try:
            return subprocess.run(command, input=json.dumps(batch), capture_output=True, text=True, timeout=timeout, preexec_fn=set_limits)
        except subprocess.TimeoutExpired:
            return None

    proc = None if alone else run(cases, 300)
    if proc is not None and proc.returncode == 0:
        return json.loads(proc.stdout)
    answers = []
    for case in cases:  # one at a time, to find the ones node dies on or cannot be interrupted in
        # three seconds of CPU time: no case that compiled at all took more than two (1.8 s, node's start included; a busy
        # machine cannot cut it short), and the cases that never finish compiling spend all of it
        single = run([case], 120, cpu_seconds=3)
        if single is None or single.returncode == -signal.SIGXCPU:
            answers.append({"slow": True, "compiling": True})  # a compile that cannot be interrupted: not asked again
        elif single.returncode == 0:
            answers.append(json.loads(single.stdout)[0])
        else:
            answers.append({"crash": single.stderr.splitlines()[-1:] or single.returncode, "stage": "exec"})
    assert len(answers) == len(cases)
    return answers


def _ours(source: str, flags: str, text: str) -> dict:
    try:
        regex = compile_js(source, ignore_case="i" in flags)
    except JsRegexSyntaxError as exc:
        return {"error": str(exc), "stage": "construct"}
    try:
        span = regex.search(text)
    except JsRegexUndecided as exc:
        return {"undecided": exc.kind, "reason": exc.reason}
    return {"span": None if span is None else list(span)}


def _compare(cases: list[tuple[str, str, str]], alone: bool = False, slow_ms: int = 2000) -> dict[str, int]:
    """Every case put to V8 and to rawko-tui: a decided answer must be V8's; a refusal must be undecided or the same syntax error."""
    expected = _v8(cases, alone, slow_ms)
    seen = {"decided": 0, "undecided": 0, "refused by V8": 0, "syntax error": 0}
    wrong = []
    for (source, flags, text), want in zip(cases, expected, strict=True):
        if want.get("slow"):  # no answer from V8 to compare with
            continue
        got = _ours(source, flags, text)
        shown = (source[:60] + f"… ({len(source):,} units)") if len(source) > 60 else source
        if want.get("stage") == "construct":
            seen["syntax error"] += 1
            if got.get("stage") != "construct" or got["error"] not in want["error"]:
                wrong.append((shown, want, got))
            continue
        if "undecided" in got:
            seen["undecided"] += 1
            seen["refused by V8"] += want.get("stage") == "exec"
            continue
        if want.get("stage") == "exec":
            seen["refused by V8"] += 1
            wrong.append((shown, want, got))  # V8 refused it: a decided answer is wrong whatever it says
            continue
        seen["decided"] += 1
        if got != want:
            wrong.append((shown, want, got))
    assert not wrong, wrong[:5]
    return seen


# --------------------------------------------------------------------------
# The attack's patterns
# --------------------------------------------------------------------------


def test_the_attacks_patterns_are_v8s_answers_or_undecided():
    text = "deploy developer"
    cases = [
        ("x" * 40000 + "|deploy", "i", text),  # V8: "Regular expression too large" when it runs
        ("deploy" + ".*" * 40000, "i", text),  # spec-0007's translation of "deploy" + "*" * 40000: "Stack overflow"
        ("(a)" * 70000 + "|deploy", "i", text),  # "Too many captures" as it is read
        ("(" * 300 + "deploy" + ")" * 300 + "*", "i", text),  # 300 nested groups: V8 matches
    ]
    seen = _compare(cases)
    assert seen == {"decided": 1, "undecided": 2, "refused by V8": 2, "syntax error": 1}


def test_a_refused_pattern_is_decided_where_refusing_gives_the_same_answer():
    """spec-0005 skips a refused pattern (no match), spec-0007 falls through: decided only where both ways agree."""
    huge = "x" * 40000 + "|deploy"
    plan = plan_spec0005_pattern(huge)
    assert plan.matches("nothing here developer") is False  # no match either way
    with pytest.raises(JsRegexUndecided) as raised:
        plan.matches("deploy developer")  # V8 may refuse it (no match) or run it (a match)
    assert raised.value.kind == jsregex.V8_LIMIT and not raised.value.decidable
    assert "the arbiter skips the pattern (a match if it does not)" in raised.value.reason

    stars = plan_pattern("deploy" + "*" * 40000)  # spec-0007: '*' becomes '.*'; refused, it falls through to a substring
    assert stars.refused is not None and stars.refused.interpretation == "substring"
    assert stars.matches("nothing developer") is False
    assert stars.matches("deploy" + "*" * 40000 + " developer") is True  # the substring is there, and the regex matches it
    with pytest.raises(JsRegexUndecided) as raised:
        stars.matches("deploy developer")
    assert "the spec falls through to the literal substring" in raised.value.reason
    result = stars.run("deploy developer")
    assert result.undecided is not None and not result.matched and result.undecided.kind == "v8-limit"


@pytest.mark.parametrize("count", [32766, 32767, 32768, 40000])
def test_the_capture_limit_is_v8s_exactly(count):
    for source in ("(a)" * count + "|deploy", "".join(f"(?<g{i}>a)" for i in range(count)) + "|deploy"):
        (want,) = _v8([(source, "i", "deploy")])
        try:
            compile_js(source)
            refused = False
        except JsRegexSyntaxError as exc:
            refused = True
            assert str(exc) == "Too many captures"
        assert refused == (want.get("stage") == "construct"), (count, want)
        assert refused == (count > 32767)


def test_counts_past_2_31_are_read_as_v8_reads_them():
    cases = [
        ("a{99999999999,99999999998}", "i", "aaa"),  # both counts read as 2**31 - 1: valid
        ("a{2147483647,2147483646}", "i", "aaa"),  # numbers out of order
        ("a{" + "9" * 5000 + "}|b", "i", "aaa b"),  # a 5,000-digit count (Python's int() refuses 4,301 digits)
        ("a{0," + "9" * 5000 + "}x", "i", "aaax"),
        ("(a)\\" + "1" * 5000, "i", "a\x49" + "1" * 4997),  # a 5,000-digit reference: an octal escape and digits
        ("deploy.{2147483647}", "i", "deploy developer"),
        ("deploy{2147483647,}|deploy", "i", "deploy developer"),
    ]
    seen = _compare(cases)
    assert seen["syntax error"] == 1 and seen["decided"] == 6


# --------------------------------------------------------------------------
# Generated cases near the limits
# --------------------------------------------------------------------------

# Shapes that reach V8's limits in different ways: a chain of atoms, a nesting, many alternatives
CHAINS = ["(a)", "(?:a|b)", "a?", "(?=a)", "(?<=a)", "a{2,5}", "[ab]x", ".*", "a*?", "(?:ab)+", "(?!b)", "\\b", "x", "a|"]
NESTINGS = [("(", ")"), ("(?:", ")*"), ("(?=", ")"), ("(?:a|", ")"), ("(?:", "){1,3}"), ("(?!", "b)")]
# No long runs of a's: these shapes nest quantifiers, and on such runs V8 backtracks for hours (and then its answer
# departs from the spec's: not what is tested here)
TEXTS = ["deploy developer", "aaab abab x", "deploy ab developer"]


def _largest_decided(make, limit: int = 40000) -> int:
    """The largest size of a shape rawko-tui does not call a possible refusal (V8 must then accept it)."""
    low, high = 1, limit
    while low < high:
        middle = (low + high + 1) // 2
        if v8_refusal(make(middle)) is None:  # compile_js(…).refusal, without translating each size tried
            low = middle
        else:
            high = middle - 1
    return low


def _shapes():
    for atom in CHAINS:
        yield f"chain {atom}", lambda n, atom=atom: atom * n + "|deploy"
    for opening, closing in NESTINGS:
        yield f"nest {opening}…{closing}", lambda n, o=opening, c=closing: o * n + "a" + c * n


@pytest.mark.parametrize("name, make", list(_shapes()), ids=[name for name, _ in _shapes()])
def test_each_shape_is_decided_below_the_bound_and_undecided_where_v8_refuses(name, make):
    """At the largest size rawko-tui decides, V8 compiles it and agrees; far past it (where node 20 refuses), rawko-tui is undecided."""
    decided = _largest_decided(make)
    assert compile_js(make(decided)).refusal is None and (decided == 40000 or compile_js(make(decided + 1)).refusal is not None)
    sizes = [decided // 2, decided, decided * 6, decided * 12]
    cases = [(make(n), "i", text) for n in sizes if len(make(n)) <= 400_000 for text in TEXTS[:2]]
    seen = _compare(cases)
    assert seen["decided"] + seen["undecided"] + seen["syntax error"] == len(cases)
    if name not in ENGINES_GIVE_UP:
        assert seen["decided"] >= 2, (name, decided, seen)  # the bound is not so low that nothing is decided


# Shapes the engines here cannot run that deep, whatever V8 does: undecided (the backtracking engine's own
# parser nests; RE2 refuses nested counts whose product passes 1,000)
ENGINES_GIVE_UP = {"nest (?=…)", "nest (?!…b)", "nest (?:…){1,3}"}


def test_random_patterns_around_the_limits_agree_with_v8():
    """Mixtures of chains, nestings and alternatives from small to past V8's limits, from three seeds."""
    seen = {"decided": 0, "undecided": 0, "refused by V8": 0, "syntax error": 0}
    for seed in range(3):
        rng = random.Random(seed)
        cases = []
        for _ in range(30):
            parts = []
            budget = rng.choice([200, 2000, 8000, 30000])
            while sum(map(len, parts)) < budget:
                if rng.random() < 0.6:
                    parts.append(rng.choice(CHAINS) * rng.randint(1, budget // 10 + 1))
                else:
                    opening, closing = rng.choice(NESTINGS)
                    depth = rng.randint(1, budget // 8 + 1)
                    parts.append(opening * depth + rng.choice(["a", "b", "(a)\\1", "x*"]) + closing * depth)
            cases.append(("".join(parts) + rng.choice(["", "|deploy", "|a"]), rng.choice(["i", ""]), rng.choice(TEXTS)))
        # a match V8 backtracks on for 1.5 s is slow: 12 of the 90 never end, and each cost 2 s at the default; the
        # slowest V8 finished took 1.4 s
        for key, count in _compare(cases, alone=True, slow_ms=1500).items():
            seen[key] += count
    assert seen["decided"] >= 20 and seen["refused by V8"] >= 2, seen  # both sides of the line were exercised
