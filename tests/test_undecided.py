"""A regex rawko-tui cannot decide is reported as undecided, never as "no match" (issue 22, item 18).

The differential tests run V8 itself (tests/oracle/regex_timed_probe.js, each case
under a time limit: V8's own backtracking can run for years) on generated
backtracking patterns and adversarial texts: every answer rawko-tui gives as
decided must be V8's; the rest must be undecided.
"""

from __future__ import annotations

import json
import random
import shutil
import subprocess

import pytest
from conftest import FIXED_NOW, ORACLE_DIR, memory, write_store

from rawko_tui.cli import main
from rawko_tui.core.js import regexp as jsregex
from rawko_tui.core.arbiters.decision import ArbiterOptions, parse_now
from rawko_tui.core.arbiters.profiles import BUILT_IN
from rawko_tui.core.arbiters.ranking import run_preview, run_preview_reference
from rawko_tui.core.js.regexp import JsRegexSyntaxError, compile_js
from rawko_tui.core.store.loading import load_store

# names this change brings: looked up when a test runs, so that each test can be run against the code before it
JsRegexUndecided = getattr(jsregex, "JsRegexUndecided", jsregex.JsRegexTimeout)

NOW = parse_now(FIXED_NOW)
ISSUE_PATTERN = "(a|aa)*\\1!|zzq"  # the issue's whenToUse, as YAML gives it to the arbiter


def issue_task(a_count: int) -> str:
    return "a" * a_count + " b! aa!"


@pytest.fixture(autouse=True)
def _fresh_answers():
    """Answers found in one test are not another's."""
    answers = getattr(jsregex, "ANSWERS", {})
    answers.clear()
    yield
    answers.clear()


def _v8(cases: list[tuple[str, str, str, int]]) -> list[dict]:
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is needed for the V8 oracle")
    proc = subprocess.run([node, str(ORACLE_DIR / "regex_timed_probe.js")], check=False, input=json.dumps(cases), capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


# --------------------------------------------------------------------------
# The engine: decided answers are V8's
# --------------------------------------------------------------------------

ATOMS = [
    "a", "b", "A", "[ab]", ".", "(a)", "(b)", "(a|b)", "(a|)", "(?:a|b)", "(ab|a)", "(a*)", "(a+)", "(a|aa)", "(?:(a)|b)", "(?:(a)|(b))",
    "((a)b)", "(a(b)?)", "([ab])", "(\\1a)", "(?:a\\1)", "(a{2,3})", "((?:a|b)+)", "\\1", "\\1", "\\2", "\\3", "(?=a)", "(?!a)", "(?<=a)",
    "(?<!a)", "(?=(a+))", "(?!(a))", "(?=(a)|b)", "(?<=(a))", "(?<=\\1a)", "(?<=(a)\\1)", "^", "$", "\\b", "\\B", "ſ", "s", "S", "k",
    "\u212a", "!", "(?<n>a)", "\\k<n>",
]  # fmt: skip
QUANTIFIERS = ["", "", "", "*", "+", "?", "{2}", "*?", "+?", "{0,2}"]
TEXT = "aabAB sſkK\u212a!"


def _pattern(rng: random.Random) -> str:
    parts = []
    for _ in range(rng.randint(1, 5)):
        atom = rng.choice(ATOMS)
        zero_width = atom in ("^", "$", "\\b", "\\B") or atom.startswith(("(?<=", "(?<!"))
        parts.append(atom if zero_width else atom + rng.choice(QUANTIFIERS))
    if rng.random() < 0.3:
        parts.insert(rng.randint(0, len(parts)), "|")
    if rng.random() < 0.4:
        parts = ["(", *parts, ")" + rng.choice(QUANTIFIERS)]
    return "".join(parts)


def _text(rng: random.Random) -> str:
    if rng.random() < 0.1:  # adversarial: a long run for nested repetition to explore, then what a match needs
        return "a" * rng.randint(20, 40) + rng.choice([" b! aa!", "!", " b", "ab!"])
    return "".join(rng.choice(TEXT) for _ in range(rng.randint(0, 9)))


def _backtracking_cases(rng: random.Random, count: int) -> list[tuple[str, str, str]]:
    cases = []
    while len(cases) < count:
        source, flags = _pattern(rng), rng.choice(["i", "i", ""])
        try:
            if compile_js(source, ignore_case=flags == "i").engine != "backtracking":
                continue
        except JsRegexSyntaxError:
            continue
        text = _text(rng)
        cases.append((source, flags, text.lower() if rng.random() < 0.5 else text))  # the arbiters search lowered text
    return cases


@pytest.mark.parametrize("seed", range(4))
def test_every_decided_answer_on_generated_backtracking_patterns_is_v8s(seed):
    rng = random.Random(seed)
    cases = _backtracking_cases(rng, 500)
    expected = _v8([(source, flags, text, 400) for source, flags, text in cases])
    decided = undecided = 0
    wrong = []
    for (source, flags, text), want in zip(cases, expected, strict=True):
        try:
            got = compile_js(source, ignore_case=flags == "i").search(text)  # the default time: 50 ms
        except JsRegexUndecided as exc:
            undecided += 1
            assert exc.reason and exc.kind in (jsregex.TIMEOUT, jsregex.SEMANTICS), exc
            continue
        decided += 1
        if "timeout" in want:
            continue  # V8 did not finish: nothing to compare
        assert "error" not in want, (source, want)
        # compared where unambiguous: whether there is a match, and where it starts (the texts here are BMP-only)
        if (got is None) != (want["span"] is None) or (got is not None and got[0] != want["span"][0]):
            wrong.append((source, flags, text, want["span"], got))
    assert not wrong, wrong[:5]
    assert decided > 300 and undecided > 10  # both kinds of answer were exercised


def test_the_issues_pattern_is_true_or_undecided_never_no_match():
    from rawko_tui.core.js.regexp import RegexBudget

    regex = compile_js(ISSUE_PATTERN)
    text = issue_task(28) + " developer"
    assert _v8([(ISSUE_PATTERN, "i", text, 60_000)])[0]["span"] == [30, 31]  # node: true, in about 126 ms
    try:
        assert regex.test(text) is True  # the default 50 ms may not be enough: then undecided, never False
    except JsRegexUndecided as exc:
        assert exc.kind == jsregex.TIMEOUT
    jsregex.ANSWERS.clear()
    assert RegexBudget(600).search(regex, text, last_round=True) == (30, 31)  # given the time, the answer is V8's
    with pytest.raises(JsRegexUndecided) as raised:  # 60 a's: V8 itself would take years
        RegexBudget(0.2).search(regex, issue_task(60) + " developer", last_round=True)
    assert raised.value.kind == jsregex.TIMEOUT and "200 ms" in raised.value.reason


def test_backreferences_under_flag_i_and_word_boundaries_are_v8s():
    cases = [("(a)\\1", "i", "aA"), ("(s)\\1", "i", "sſ"), ("(k)\\1", "i", "k\u212a"), ("\\b(?=a)", "", "ſa"), ("(a\\1)b", "", "ab"), ("(?:(a)|b){2}\\1", "i", "ab")]
    expected = _v8([(s, f, t, 1000) for s, f, t in cases])
    for (source, flags, text), want in zip(cases, expected, strict=True):
        try:
            got = compile_js(source, ignore_case=flags == "i").search(text)
        except JsRegexUndecided as exc:
            assert exc.kind == jsregex.SEMANTICS, (source, exc)  # V8 forgets a repeated group's capture: not guessed
            continue
        assert (None if got is None else list(got)) == want["span"], (source, text)


# --------------------------------------------------------------------------
# The command line: undecided is said, with what would decide it
# --------------------------------------------------------------------------


@pytest.fixture
def slow_store(tmp_path):
    return write_store(tmp_path / "store", {"slow.md": memory(title="Slow", when='["(a|aa)*\\\\1!|zzq"]', importance="high")})


def test_the_issues_preview_says_undecided_not_no_match(slow_store, capsys):
    args = ["preview", str(slow_store), "--arbiter", "spec-0005", "--now", FIXED_NOW, "--task", issue_task(60)]
    assert main(args) == 4
    out = capsys.readouterr().out
    assert "no whenToUse pattern matched" not in out
    assert "?? Undecided: what is injected may differ from what is shown below:" in out
    assert "Undecided (1):" in out and "could not decide whether whenToUse '(a|aa)*\\\\1!|zzq' matches" in out
    assert "if it does: injected (spec-0005 injects every match, by importance); if not: not injected" in out

    assert main([*args, "--json"]) == 4
    data = json.loads(capsys.readouterr().out)
    assert data["certain"] is False and data["injected"] == []
    (undecided,) = data["undecided"]
    assert undecided["path"] == ".rawko/memories/slow.md" and undecided["changesInjection"] is True
    assert [p["kind"] for p in undecided["patterns"]] == ["timeout"] and undecided["patterns"][0]["decidable"] is True
    assert [c["reason"] for c in data["candidates"]] == ["match-undecided"]

    assert main([*args, "--prompt"]) == 4
    captured = capsys.readouterr()
    assert captured.out == "" and "rawko-tui: the prompt is uncertain: .rawko/memories/slow.md is injected" in captured.err

    assert main(["explain", "slow.md", *args[1:]]) == 0
    out = capsys.readouterr().out
    assert "?  whenToUse: undecided" in out and "what decides it: more time, e.g. --regex-budget" in out
    assert "V8 runs it to the end on its own backtracking engine, which may take as long and hold up the real arbiter" in out


def test_a_case_decided_in_time_is_an_answer(slow_store, capsys):
    args = ["preview", str(slow_store), "--arbiter", "spec-0005", "--now", FIXED_NOW, "--task", issue_task(12), "--regex-budget", "120s"]
    assert main([*args, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["certain"] is True and data["undecided"] == [] and [c["path"] for c in data["injected"]] == [".rawko/memories/slow.md"]


def test_a_budget_of_nothing_decides_nothing_and_says_so(slow_store, capsys):
    assert main(["preview", str(slow_store), "--arbiter", "spec-0005", "--task", issue_task(12), "--regex-budget", "0", "--json"]) == 4
    (undecided,) = json.loads(capsys.readouterr().out)["undecided"]
    assert undecided["patterns"][0]["reason"] == "not run: this ranking gives backtracking regexes no time"
    with pytest.raises(SystemExit) as exited:  # argparse's own usage error
        main(["preview", str(slow_store), "--task", "x", "--regex-budget", "soon"])
    assert exited.value.code == 2 and "argument --regex-budget: 'soon' is not a time (e.g. 10s, 500ms)" in capsys.readouterr().err


def test_one_ranking_gives_all_backtracking_regexes_one_budget(tmp_path):
    """300 pathological patterns: a few run until the budget is spent, the rest are not run; none is called no match."""
    files = {f"slow{i:03}.md": memory(title=f"Slow {i}", when=f'["(a|aa)*\\\\1!|zzq{i}"]') for i in range(300)}
    store = load_store(write_store(tmp_path / "store", files))
    options = ArbiterOptions(profile=BUILT_IN["spec-0005"], regex_budget=0.3)
    for rank in (run_preview, run_preview_reference):
        jsregex.ANSWERS.clear()
        preview = rank(store, issue_task(60), "developer", options, NOW)
        assert preview.reason_counts == {"match-undecided": 300}, rank
        assert len(preview.undecided) == 300 and not preview.certain
        kinds = [next(iter(c.undecided.values())).kind for c in preview.undecided]
        assert kinds.count(jsregex.BUDGET_SPENT) > 200, rank  # not run at all: the budget is per ranking, not per pattern
        assert set(kinds) <= {jsregex.TIMEOUT, jsregex.BUDGET_SPENT}


def test_a_pattern_too_large_to_compile_here_is_decided_in_a_worker(tmp_path, monkeypatch, capsys):
    # every alternative needs the backtracking engine (a backreference): none is decided by RE2 alone
    alternatives = "|".join(f"w{i}q\\\\1" for i in range(3000))
    root = write_store(tmp_path / "store", {"huge.md": memory(title="Huge", when=f'["(x)\\\\1|{alternatives}"]')})
    compiled_here: list[int] = []
    import regex

    original = regex.compile
    monkeypatch.setattr(regex, "compile", lambda pattern, *a, **k: compiled_here.append(len(pattern)) or original(pattern, *a, **k))
    args = ["preview", str(root), "--arbiter", "spec-0005", "--now", FIXED_NOW, "--task", "fix w2999q now", "--json"]
    assert main([*args, "--regex-budget", "0.05"]) == 4
    (undecided,) = json.loads(capsys.readouterr().out)["undecided"]
    assert undecided["patterns"][0]["kind"] in ("too-large", "timeout")  # in-process it is never compiled; a worker may not finish in 50 ms
    assert not [n for n in compiled_here if n > 10_000]  # the in-process engine was never given it
    assert main([*args, "--regex-budget", "120s"]) == 0  # a worker process compiles it and decides
    data = json.loads(capsys.readouterr().out)
    assert data["certain"] is True and [c["path"] for c in data["injected"]] == [".rawko/memories/huge.md"]
    assert not [n for n in compiled_here if n > 10_000]


# --------------------------------------------------------------------------
# Deciding in a worker process
# --------------------------------------------------------------------------


def test_the_worker_is_killed_at_its_deadline_or_when_cancelled_and_started_again():
    from rawko_tui.core.js.regexdecide import Decider

    decider = Decider()
    try:
        slow = (ISSUE_PATTERN, True, issue_task(60))
        (answer,) = decider.decide([slow], 0.5).values()
        assert isinstance(answer, JsRegexUndecided) and answer.kind == jsregex.TIMEOUT and "in a worker process" in answer.reason
        assert decider._process is None  # killed: a search cannot be interrupted, a process can
        polls = iter(range(1000))
        (answer,) = decider.decide([slow], 600, cancelled=lambda: next(polls) > 3).values()
        assert isinstance(answer, JsRegexUndecided) and decider._process is None
        fast = (ISSUE_PATTERN, True, issue_task(12))
        assert decider.decide([fast], 600) == {fast: (14, 15)}  # a new worker
        assert jsregex.ANSWERS[fast] == (14, 15)  # kept: the next ranking of this text uses it
    finally:
        decider.close()


def test_a_worker_that_runs_out_of_memory_leaves_the_case_undecided():
    """Past its memory limit a worker usually fails at once (said with the limit); on a loaded machine the
    engine's allocator can instead crawl for minutes, and the deadline then ends it. Either way the case is
    undecided, never an answer, and the worker is gone."""
    from rawko_tui.core.js.regexdecide import Decider

    huge = ("(x)\\1|" + "|".join(f"w{i}q" for i in range(20000)), True, "fix w19999q now")
    decider = Decider(memory_bytes=80 << 20)
    try:
        (answer,) = decider.decide([huge], 120).values()
        process = decider._process
    finally:
        decider.close()
    assert isinstance(answer, JsRegexUndecided)
    if answer.kind == jsregex.MEMORY:
        assert "80 MB" in answer.reason
    else:
        assert answer.kind == jsregex.TIMEOUT and "in a worker process" in answer.reason and process is None


# --------------------------------------------------------------------------
# A throw that depends on an undecided match
# --------------------------------------------------------------------------


def test_a_throw_after_an_undecided_pattern_is_itself_undecided(tmp_path, capsys):
    """SPEC-0007 throws at a whenToUse item that is not text only if no earlier pattern matched."""
    # '.' and '{': a RegExp under SPEC-0007, whose answer the backtracking engine cannot give (V8 refuses an empty
    # repetition's capture); the map after it makes the loop throw, if it gets there
    when = '["(a{0,1}a{0,1}){0,}\\\\1!.{0}", {pattern: "x"}]'
    root = write_store(tmp_path / "store", {"odd.md": memory(title="Odd", when=when), "auth.md": memory(title="Auth", when='"b!"')})
    store = load_store(root)
    for rank in (run_preview, run_preview_reference):
        jsregex.ANSWERS.clear()
        preview = rank(store, issue_task(60), "developer", ArbiterOptions(), NOW)
        failure = preview.arbiter_failure
        assert failure is not None and not failure.certain and failure.path == ".rawko/memories/odd.md"
        assert "may throw while matching .rawko/memories/odd.md" in failure.describe() and "unless whenToUse" in failure.describe()
        assert not preview.certain and any("whether the arbiter throws" in r for r in preview.uncertain_reasons)
    assert main(["preview", str(root), "--task", issue_task(60), "--now", FIXED_NOW]) == 4
    out = capsys.readouterr().out
    assert "may throw while matching .rawko/memories/odd.md: TypeError: pattern.toLowerCase is not a function" in out
    assert "no time decides it here" not in out  # said where the memory is explained
    assert main(["explain", "odd.md", str(root), "--task", issue_task(60), "--now", FIXED_NOW]) == 0
    assert "no time decides it here: group 1 is in a repetition that can match empty" in capsys.readouterr().out


# --------------------------------------------------------------------------
# The app: typing never waits; an undecided row is shown as such, then decided in a worker
# --------------------------------------------------------------------------


def _app_store(tmp_path, **files):
    from rawko_tui.tui.app import create_app

    root = write_store(tmp_path / "store", files)
    return create_app(root, now=FIXED_NOW, poll_seconds=None, arbiter="spec-0005")


async def _settle(pilot):
    await pilot.pause()
    await pilot.app.settled()
    await pilot.pause()


HUGE_WHEN = '["(x)\\\\1|' + "|".join(f"w{i}q\\\\1" for i in range(3000)) + '"]'  # too large to compile in-process, no alternative RE2 runs


async def test_the_app_shows_undecided_rows_and_decides_them_in_a_worker(tmp_path, monkeypatch):
    from textual.widgets import DataTable, Static, Tree

    from rawko_tui.tui import app as app_module
    from rawko_tui.tui.widgets.preview.preview_pane import PreviewPane

    monkeypatch.setattr(app_module, "DECIDE_REGEX_SECONDS", 3.0, raising=False)
    app = _app_store(tmp_path, **{"huge.md": memory(title="Huge", when=HUGE_WHEN), "slow.md": memory(title="Slow", when='["(a|aa)*\\\\1!|zzq"]')})
    shown = []
    original = PreviewPane.show
    monkeypatch.setattr(PreviewPane, "show", lambda pane, preview, *a: shown.append(preview) or original(pane, preview, *a))
    async with app.run_test(size=(150, 46)) as pilot:
        await _settle(pilot)
        app.query_one(PreviewPane).set_task("fix w2999q " + issue_task(60))
        await _settle(pilot)
        first = next(p for p in shown if p.task.startswith("fix"))
        assert {c.path for c in first.undecided} == {".rawko/memories/huge.md", ".rawko/memories/slow.md"}  # not "no match"
        final = app.preview
        assert [c.path for c in final.injected] == [".rawko/memories/huge.md"]  # the worker decided it
        (slow,) = final.undecided
        assert slow.path == ".rawko/memories/slow.md" and "in a worker process" in next(iter(slow.undecided.values())).reason
        rows = app.query_one("#results", DataTable)
        assert [str(rows.get_row_at(i)[4]) for i in range(rows.row_count)] == ["injected", "? match undecided"]
        assert "1 undecided" in str(app.query_one("#preview-summary", Static).render())
        assert "? Undecided: what is injected may differ" in str(app.query_one("#preview-failure", Static).render())
        app.select_memory(".rawko/memories/slow.md")
        await _settle(pilot)
        labels = []
        tree = app.query_one("#why-tree", Tree)
        stack = [tree.root]
        while stack:
            node = stack.pop()
            labels.append(str(node.label))
            stack.extend(node.children)
        assert any(label.startswith("? whenToUse: undecided") for label in labels)


async def test_a_key_cancels_the_deciding_and_the_new_task_is_ranked(tmp_path, monkeypatch):
    from textual.widgets import TextArea

    from rawko_tui.core.arbiters import ranking
    from rawko_tui.tui import app as app_module
    from rawko_tui.tui.widgets.preview.preview_pane import PreviewPane

    monkeypatch.setattr(app_module, "DECIDE_REGEX_SECONDS", 600.0, raising=False)  # only a new key ends it
    outcomes = []
    original = getattr(ranking, "decide_unsure", None)

    def recorded(preview, seconds, decider=None, cancelled=None):
        tried = original(preview, seconds, decider, cancelled)
        outcomes.append((preview.task, cancelled(), decider._process))
        return tried

    monkeypatch.setattr(app_module, "decide_unsure", recorded, raising=False)
    app = _app_store(tmp_path, **{"slow.md": memory(title="Slow", when='["(a|aa)*\\\\1!|zzq"]')})
    async with app.run_test(size=(150, 46)) as pilot:
        await _settle(pilot)
        pane = app.query_one(PreviewPane)
        pane.set_task(issue_task(60))
        for _ in range(600):  # wait until the worker has the search (bounded: a missing state fails, it never hangs)
            await pilot.pause(0.05)
            if getattr(pane, "deciding", False):
                break
        assert pane.deciding
        area = app.query_one("#task", TextArea)
        area.focus()
        area.clear()
        await pilot.press(*"aaaa b! aa!")  # the keys are taken while the worker searches
        await _settle(pilot)
        assert area.text == "aaaa b! aa!"
        assert outcomes and outcomes[0][0] == issue_task(60) and outcomes[0][1] is True  # cancelled by the key
        assert outcomes[0][2] is None  # and its worker process killed
        assert [c.path for c in app.preview.injected] == [".rawko/memories/slow.md"] and app.preview.certain
