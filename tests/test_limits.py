"""No store, however large or crafted, makes a command hang, run out of memory or print a traceback (issue 22, limits).

Each case is a store an attacker can commit: a number of thousands of digits in
any YAML file, a memory of millions of tiny appended entries, a store of
gigabytes, two memories of thousands of sentences, a string anchored once and
used thousands of times. Every command runs in its own process with a timeout
and a cap on its address space (``test_hostile_files._run``), so a regression
fails instead of eating the machine; nothing here measures time.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from conftest import FIXED_NOW, memory
from test_hostile_files import _APP, _capped, _commit, _findings, _run, _store  # noqa: F401 - _capped: the children's cap

TASK = "fix the auth login"
HUGE = "0x" + "f" * 4000  # 4,816 decimal digits: Python refuses str() of it
TOO_LONG = "a number 4,002 characters long (rawko-tui reads numbers of up to 1,000; no rawko file holds a longer one); refused"


# --------------------------------------------------------------------------
# 1. Huge integers in rawko-tui's own YAML files
# --------------------------------------------------------------------------


def _write(root: Path, rel: str, text: str) -> None:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def test_a_huge_integer_in_the_store_settings_is_one_finding_and_every_command_runs(tmp_path):
    root = _store(tmp_path)
    _write(root, ".rawko/rawko-tui.yaml", f"arbiter: {HUGE}\n")
    found = _findings(_run(root, "lint", "--json", "--now", FIXED_NOW))
    assert [m for _, c, m in found[".rawko/rawko-tui.yaml"] if c == "config"] == [f"rawko-tui.yaml line 1: {TOO_LONG}; the settings are ignored"]
    preview = json.loads(_run(root, "preview", "--task", TASK, "--agent", "developer", "--now", FIXED_NOW, "--json").stdout)
    assert {"good-auth.md", "good-login.md"} <= {Path(m["path"]).name for m in preview["injected"]}
    assert _run(root, "explain", "good-auth.md", "--task", TASK, "--now", FIXED_NOW).returncode == 0
    assert _run(root, "arbiters").returncode == 0
    _write(root, ".rawko/rawko-tui.yaml", f"budgets: {{developer: {HUGE}}}\n")
    assert _run(root, "preview", "--task", TASK, "--agent", "developer", "--now", FIXED_NOW).returncode == 0


def test_a_huge_integer_in_the_app_settings_is_said_once_and_the_app_ranks(tmp_path):
    root = _store(tmp_path)
    _write(root, ".rawko/rawko-tui.yaml", f"arbiter: {HUGE}\n")
    run = _run(root, str(root), script=_APP, timeout=180)
    report = json.loads(run.stdout.strip().splitlines()[-1])
    assert report["running"] and report["task"] == TASK
    assert {"good-auth.md", "good-login.md"} <= set(report["injected"])
    assert report["notes"] == [f".rawko/rawko-tui.yaml: rawko-tui.yaml line 1: {TOO_LONG}; the settings are ignored"]


@pytest.mark.parametrize("where", ["sessionId", "item id"])
def test_a_huge_integer_in_a_session_is_that_session_s_error(tmp_path, where):
    root = _store(tmp_path)
    text = f"sessionId: {HUGE}\n" if where == "sessionId" else f"sessionId: s1\ndiscoveries:\n  - {{id: {HUGE}, content: x}}\n"
    _write(root, ".rawko/sessions/s1/agent-memory.yaml", text)
    line = 1 if where == "sessionId" else 3
    assert f"s1: .rawko/sessions/s1/agent-memory.yaml:{line}: {TOO_LONG}" in _run(root, "sessions").stdout


@pytest.mark.parametrize("field", ["name", "now", "view", "arbiter", "expect"])
def test_a_huge_integer_in_saved_tasks_is_a_finding_for_check_matrix_and_impact(tmp_path, field):
    root = _store(tmp_path)
    value = f"expect: {{inject: [{HUGE}]}}" if field == "expect" else f"{field}: {HUGE}"
    _write(root, ".rawko/checks.yaml", f"tasks:\n  - {{task: auth, agent: developer, {value}}}\n")
    _commit(root)
    said = f".rawko/checks.yaml:2: {TOO_LONG}"
    assert said in _run(root, "check").stderr
    assert said in _run(root, "matrix").stderr
    assert said in _run(root, "impact", "HEAD", "HEAD").stderr


@pytest.mark.parametrize("log", ["rawko-tui-decisions.yaml", "rawko-tui-dismissed.yaml"])
def test_a_huge_integer_in_the_decisions_log_is_a_finding_and_candidates_runs(tmp_path, log):
    root = _store(tmp_path)
    text = f"- {{decision: dismiss, paths: [{HUGE}]}}\n" if log == "rawko-tui-decisions.yaml" else f"dismissed: [[{HUGE}]]\n"
    _write(root, f".rawko/{log}", text)
    assert _run(root, "candidates", "--now", FIXED_NOW).returncode == 0
    found = _findings(_run(root, "lint", "--json", "--now", FIXED_NOW))
    assert [(c, m) for _, c, m in found[f".rawko/{log}"]] == [
        ("refused", f"{TOO_LONG}; the dismissals it records are not read: those candidates come back in the queue")
    ]


@pytest.mark.parametrize("setting", ["keymap: {memories-sort: %s}", "author: %s"])
def test_a_huge_integer_in_the_person_s_settings_is_ignored_with_a_reason(tmp_path, setting):
    root = _store(tmp_path)
    _commit(root)
    person = tmp_path / "person.yaml"
    person.write_text(setting % HUGE + "\n")
    script = """
import sys
from rawko_tui.core.settings import load_person_settings
from pathlib import Path
settings = load_person_settings(Path(sys.argv[1]))
print(settings.values, list(settings.problems))
"""
    assert _run(root, str(person), script=script).stdout.strip() == f"{{}} ['{TOO_LONG} (line 1): ignored']"
    append = _run(root, "append", "good-auth.md", "--body", "More about auth.", "--dry-run")
    assert append.returncode == 0 and "More about auth." in append.stdout


def test_numbers_past_any_double_read_as_the_arbiters_read_them():
    """js-yaml keeps a decimal past any double as text; npm yaml makes it Infinity (tests/oracle checked both)."""
    import math

    from rawko_tui.core.arbiters.yaml12 import load_yaml12
    from rawko_tui.core.yamljs import load_yaml

    digits = "9" * 5000
    assert load_yaml(f"x: {digits}") == {"x": digits}
    assert load_yaml(f"x: [1, -{digits}]") == {"x": [1, f"-{digits}"]}
    assert load_yaml12(f"x: {digits}") == {"x": math.inf}
    assert load_yaml12(f"x: [-{digits}, {HUGE}, 0o{'7' * 2000}]") == {"x": [-math.inf, math.inf, math.inf]}
    assert load_yaml12(f"x: 0{'0' * 5000}12") == {"x": 12}


def test_huge_numbers_in_a_memory_are_read_not_fatal(tmp_path):
    root = _store(tmp_path)
    (root / ".rawko" / "memories" / "numbers.md").write_text(memory(title="Numbers", when='"auth"', body="x " * 60).replace("---\n\n", f"size: {'9' * 5000}\nmask: {HUGE}\n---\n\n", 1))
    assert _run(root, "lint", "--json", "--now", FIXED_NOW).returncode in (0, 1)
    for arbiter in ("spec-0007", "rawko-sdk", "spec-0005"):
        preview = json.loads(_run(root, "preview", "--task", TASK, "--arbiter", arbiter, "--now", FIXED_NOW, "--json").stdout)
        assert "numbers.md" in {Path(m["path"]).name for m in preview["candidates"]}, arbiter


# --------------------------------------------------------------------------
# 4. Aliases of long strings: the guard counts characters as well as nodes
# --------------------------------------------------------------------------

ALIAS_CHARACTERS = "aliases expand to more than 1,000,000 characters (an alias bomb); refused"


def test_a_long_string_used_thousands_of_times_in_a_memory_is_refused(tmp_path):
    root = _store(tmp_path)
    uses = ", ".join(["*s"] * 50_000)
    (root / ".rawko" / "memories" / "amplified.md").write_text(f'---\ntitle: Amplified\nwhenToUse: [&s "{"a" * (8 << 20)}", {uses}]\n---\n\nbody\n')
    found = _findings(_run(root, "lint", "--json", "--now", FIXED_NOW, timeout=240))
    assert any(ALIAS_CHARACTERS in m for _, _, m in found[".rawko/memories/amplified.md"]), found.get(".rawko/memories/amplified.md")
    for arbiter in ("spec-0007", "rawko-sdk", "spec-0005"):
        preview = json.loads(_run(root, "preview", "--task", TASK, "--agent", "developer", "--arbiter", arbiter, "--now", FIXED_NOW, "--json", timeout=240).stdout)
        assert {"good-auth.md", "good-login.md"} <= {Path(m["path"]).name for m in preview["injected"]}, arbiter


def test_a_long_string_used_thousands_of_times_in_a_session_is_that_session_s_error(tmp_path):
    root = _store(tmp_path)
    uses = "".join("  - {id: d%d, content: *s}\n" % i for i in range(20_000))
    _write(root, ".rawko/sessions/s1/agent-memory.yaml", f'sessionId: s1\nlong: &s "{"b" * (4 << 20)}"\ndiscoveries:\n{uses}')
    assert f"s1: .rawko/sessions/s1/agent-memory.yaml:4: {ALIAS_CHARACTERS}" in _run(root, "sessions", timeout=240).stdout


def test_the_character_guard_keeps_ordinary_aliases_and_refuses_in_every_dialect():
    from rawko_tui.core.arbiters.yaml12 import load_yaml12
    from rawko_tui.core.yamljs import YamlError, load_with_ruamel, load_yaml

    ordinary = "base: &b {x: 1, y: [a, b]}\nuse: [*b, *b]\nname: &n some words\nagain: *n\n"
    for load in (load_yaml, load_yaml12, load_with_ruamel):
        assert load(ordinary)["use"] == [{"x": 1, "y": ["a", "b"]}] * 2
        # under the limit: a long string used twice loads; used three times (1,200,000 characters added) it does not
        assert load(f'a: &x "{"y" * 400_000}"\nb: [*x, *x]\n')["b"][1] == "y" * 400_000
        with pytest.raises(YamlError, match=re.escape(ALIAS_CHARACTERS)):
            load(f'a: &x ["{"y" * 400_000}"]\nb: [*x, *x, *x]\n')
    # npm yaml loads any number of aliases of an empty list (its guard counts 0 for it): rawko-tui refuses the bomb
    empty = "a0: &a0 []\n" + "".join(f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 10) + "]\n" for i in range(1, 7))
    with pytest.raises(YamlError, match="more than 100,000 nodes"):
        load_yaml12(empty)
