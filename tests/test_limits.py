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

pytestmark = pytest.mark.scale

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
from rawko_tui.core.store.settings import load_person_settings
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

    from rawko_tui.core.js.yaml2 import load_yaml12
    from rawko_tui.core.js.jsyaml import load_yaml

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


@pytest.mark.usefixtures("gigabyte_at_a_time")
def test_a_long_string_used_thousands_of_times_in_a_memory_is_refused(tmp_path):
    root = _store(tmp_path)
    uses = ", ".join(["*s"] * 50_000)
    # x, not a hex digit: lint's search for hex-encoded text backtracks through a run of 8 MB of them in 0.7 GB
    (root / ".rawko" / "memories" / "amplified.md").write_text(f'---\ntitle: Amplified\nwhenToUse: [&s "{"x" * (8 << 20)}", {uses}]\n---\n\nbody\n')
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
    from rawko_tui.core.js.yaml2 import load_yaml12
    from rawko_tui.core.js.jsyaml import YamlError, load_with_ruamel, load_yaml

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


# --------------------------------------------------------------------------
# 2. Memory files of millions of entries, stores of gigabytes
# --------------------------------------------------------------------------


def _many_entries(root: Path, name: str = "e.md", entries: int = 2_400_000) -> None:
    """A normal memory followed by millions of tiny appended entries: 66 MB, inside the 64 MiB limit."""
    head = memory(title="Many entries", when='"auth"', body="Auth tokens live in src/auth. " * 20)
    with open(root / ".rawko" / "memories" / name, "w") as out:  # written as made: the entries joined first held 0.2 GB in the test's worker
        out.write(head)
        out.writelines(f"\n---\ntitle: E{i}\n---\n\nx\n" for i in range(entries))


@pytest.mark.usefixtures("gigabyte_at_a_time")
def test_a_memory_of_millions_of_entries_is_read_up_to_the_limit_and_says_where_it_stops(tmp_path):
    root = _store(tmp_path)
    _many_entries(root)
    _commit(root)
    found = _findings(_run(root, "lint", "--json", "--now", FIXED_NOW, timeout=240))
    from rawko_tui.core.store.reading import ENTRIES_CUT, MAX_ENTRY_BLOCKS

    limit = [(s, m) for s, c, m in found[".rawko/memories/e.md"] if c == "entries-limit"]
    assert limit == [("warning", f"{ENTRIES_CUT} (the fold, the timeline and the torn-entry check end before it)")]
    assert _run(root, "verify", timeout=240).returncode == 0
    explain = _run(root, "explain", "e.md", "--task", TASK, "--now", FIXED_NOW, timeout=240)
    assert f"title: E{MAX_ENTRY_BLOCKS - 1} (entry {MAX_ENTRY_BLOCKS + 1})" in explain.stdout  # the fold of the entries read
    effective = json.loads(_run(root, "preview", "--task", TASK, "--view", "effective", "--now", FIXED_NOW, "--json", timeout=240).stdout)
    assert "e.md" in {Path(m["path"]).name for m in effective["injected"]}


def test_entries_are_split_as_before_with_memory_for_the_entries_only():
    """The split visits fence and delimiter lines only; it gives what the line-by-line split gave (``_reference_split``)."""
    import random

    from rawko_tui.core.store.reading import spec_extract, split_entries

    pieces = ["---", "--- ", "---\r", "...", "", " ", "  \t", "title: A", "importance: high", "foo: bar", "title: [unclosed", "x", "```",
              "````", "~~~", "``` yaml", "text line", "tags: [a, b]", "\r", "- item", "whenToUse: auth", "\u2028", "---x", "  ```"]  # fmt: skip
    rng = random.Random(22)
    for _ in range(20_000):
        lines = [rng.choice(pieces) for _ in range(rng.randint(0, 40))]
        if rng.random() < 0.05:  # a block near the 400-line limit of a frontmatter
            at = rng.randint(0, len(lines))
            lines[at:at] = ["", "---", "title: long"] + [f"k{i}: v" for i in range(rng.choice([397, 398, 399, 400]))] + [rng.choice(["---", "...", "x"])]
        text = "\n".join(lines) + ("\n" if rng.random() < 0.3 else "")
        if rng.random() < 0.5:
            text = "---\ntitle: T\nwhenToUse: a\n---" + rng.choice(["\n", "\r\n", "\u2028", "", "\n\n"]) + text
        try:
            spec = spec_extract(text)
        except ValueError:
            spec = None
        entries, suspects = split_entries(text, spec)
        assert ([(e.index, e.line, e.frontmatter, e.body) for e in entries], [(s.line, s.reason) for s in suspects]) == _reference_split(text, spec), text


def _reference_split(text, spec):
    """The line-by-line split this module replaced (it held every line of a file: 55 bytes of memory per byte)."""
    import re

    from rawko_tui.core.store.reading import MEMORY_FIELDS
    from rawko_tui.core.js.jsyaml import YamlError, load_yaml

    fence_re, delimiter, closer = re.compile(r"^ {0,3}(`{3,}|~{3,})(.*)$"), re.compile(r"^---[ \t]*\r?$"), re.compile(r"^(?:---|\.\.\.)[ \t]*\r?$")
    field_line = re.compile(r"^(?:" + "|".join(sorted(MEMORY_FIELDS)) + r")\s*:")

    def body(lines):
        while lines and (not lines[-1].strip() or delimiter.match(lines[-1])):
            lines = lines[:-1]
        while lines and not lines[0].strip():
            lines = lines[1:]
        return "\n".join(lines)

    def block_at(lines, i):
        if i + 1 >= len(lines) or not lines[i + 1].strip() or delimiter.match(lines[i + 1]):
            return None
        for j in range(i + 1, min(len(lines), i + 401)):
            if closer.match(lines[j]):
                try:
                    value = load_yaml("\n".join(lines[i + 1 : j]))
                except YamlError as exc:
                    if any(field_line.match(line) for line in lines[i + 1 : j]):
                        return (i + 1, f"looks like an appended entry but its YAML does not parse: {exc.message}")
                    return None
                return (value, j) if isinstance(value, dict) and MEMORY_FIELDS.intersection(value) else None
        if any(field_line.match(line) for line in lines[i + 1 : i + 6]):
            return (i + 1, "an appended entry's frontmatter is never closed with '---' (a torn write?)")
        return None

    lines = text.split("\n")
    if spec is not None and isinstance(spec.attrs, dict):
        consumed = text[: len(text) - spec.body_length]
        start = consumed.count("\n") if consumed.endswith("\n") else consumed.count("\n") + 1
        entries, searched = [[0, 1, spec.attrs, ""]], text[len(text) - spec.body_length - 1 :]
    else:
        start, entries, searched = 0, [[0, 1, None, ""]], "\n" + text
    suspects = []
    if "\n---" not in searched:
        return [(0, 1, entries[0][2], body(lines[start:]))], []
    body_start, fence, i = start, None, start
    while i < len(lines):
        line = lines[i]
        match = fence_re.match(line)
        if match:
            if fence is None:
                fence = (match.group(1)[0], len(match.group(1)))
            elif match.group(1)[0] == fence[0] and len(match.group(1)) >= fence[1] and not match.group(2).strip():
                fence = None
            i += 1
            continue
        if fence is None and delimiter.match(line) and (i == 0 or not lines[i - 1].strip() or delimiter.match(lines[i - 1])):
            found = block_at(lines, i)
            if found is not None and isinstance(found[0], int):
                if i > 0:
                    suspects.append(found)
            elif found is not None:
                entries[-1][3] = body(lines[body_start:i])
                entries.append([len(entries), i + 1, found[0], ""])
                body_start = i = found[1] + 1
                continue
        i += 1
    entries[-1][3] = body(lines[body_start:])
    if entries[0][2] is None and not entries[0][3].strip() and len(entries) > 1:
        entries = [[k, *e[1:]] for k, e in enumerate(entries[1:])]
    return [tuple(e) for e in entries], suspects


def _sparse_memory(path: Path, size: int) -> None:
    """A memory whose body is ``size`` bytes of NULs, mostly a hole in the file: no disk, but every byte is read."""
    with open(path, "wb") as handle:
        handle.write(memory(title=path.stem, when='"auth"', body="Big.").encode())
        handle.truncate(size)


@pytest.mark.usefixtures("gigabyte_at_a_time")
def test_a_store_of_gigabytes_is_read_up_to_the_store_limit_and_says_what_it_left(tmp_path):
    from rawko_tui.core.disk.safeio import MEMORY_LIMIT
    from rawko_tui.core.store.reading import STORE_LIMIT

    root = _store(tmp_path)
    # Most of the limit is filled by two files over a memory's own limit: refused unread, their bytes still count
    # (four files of 55 MB read to fill it held 1 GB); z00.md, read, takes the store to its limit
    oversized = ("y0.md", "y1.md")
    for name in oversized:
        _sparse_memory(root / ".rawko" / "memories" / name, 100 << 20)
    for i in range(25):
        _sparse_memory(root / ".rawko" / "memories" / f"z{i:02d}.md", 55 << 20)  # 1.6 GB checked out in all
    preview = json.loads(_run(root, "preview", "--task", TASK, "--agent", "developer", "--now", FIXED_NOW, "--json", timeout=240).stdout)

    assert {"good-auth.md", "good-login.md", "z00.md"} <= {Path(m["path"]).name for m in preview["injected"]}
    errors = {Path(e["path"]).name: e["reason"] for e in preview["errors"]}
    held = sum(f.stat().st_size for f in (root / ".rawko" / "memories").glob("[gy]*.md"))
    read = (STORE_LIMIT - held) // (55 << 20)
    assert read == 1 and sorted(errors) == [*oversized, *(f"z{i:02d}.md" for i in range(read, 25))]
    assert all(f"over the {MEMORY_LIMIT:,}-byte limit" in errors[name] for name in oversized)
    assert errors["z24.md"].startswith("cannot be read: the memory files before it in name order already hold ")
    assert errors["z24.md"].endswith(f"and rawko-tui reads at most {STORE_LIMIT:,} bytes of memories and agent definitions per store: not read")
    found = _findings(_run(root, "lint", "--json", "--now", FIXED_NOW, timeout=240))
    assert any("rawko-tui reads at most" in m for _, _, m in found[".rawko/memories/z24.md"])
    assert _run(root, "candidates", "--now", FIXED_NOW, timeout=240).returncode == 0


@pytest.mark.usefixtures("gigabyte_at_a_time")
def test_a_revision_of_gigabytes_is_read_one_blob_at_a_time_up_to_the_store_limit(tmp_path):
    root = _store(tmp_path)
    for i in range(6):
        _sparse_memory(root / ".rawko" / "memories" / f"z{i}.md", 60 << 20)  # 360 MB in a repository of 456 KB
    _commit(root)
    for i in range(6):
        (root / ".rawko" / "memories" / f"z{i}.md").unlink()
    preview = json.loads(_run_in_1_gb(root, "preview", "--task", TASK, "--at", "HEAD", "--now", FIXED_NOW, "--json").stdout)  # every blob held at once took more
    assert {"good-auth.md", "good-login.md", "z0.md"} <= {Path(m["path"]).name for m in preview["injected"]}
    errors = {Path(e["path"]).name: e["reason"] for e in preview["errors"]}
    assert sorted(errors) == ["z4.md", "z5.md"] and "rawko-tui reads at most 268,435,456 bytes of memories and agent definitions per store" in errors["z5.md"]


# --------------------------------------------------------------------------
# 3. Consolidation: sentences are aligned only where they could align, within a budget
# --------------------------------------------------------------------------

VOCABULARY = "deploy token cache retry queue worker redis postgres session cookie router schema index stripe webhook".split()


def _random_sentences(root: Path, names=("one.md", "two.md"), sentences: int = 3000) -> None:
    import random

    rng = random.Random(7)
    for name in names:
        said = [" ".join(rng.choice(VOCABULARY) for _ in range(8)).capitalize() + "." for _ in range(sentences)]
        body = "\n".join(" ".join(said[i : i + 5]) for i in range(0, sentences, 5))
        (root / ".rawko" / "memories" / name).write_text(memory(title=f"Notes {name[:-3]}", when='"deploy"', body=body))


def test_two_memories_of_thousands_of_sentences_are_compared_within_the_budget(tmp_path):
    root = _store(tmp_path)
    _random_sentences(root)
    groups = json.loads(_run(root, "candidates", "--now", FIXED_NOW, "--json", timeout=120).stdout)["candidates"]
    from rawko_tui.core.curation.consolidation.pairs import NOT_ALL_COMPARED

    pair = [g for g in groups if g["paths"] == [".rawko/memories/one.md", ".rawko/memories/two.md"]]
    assert [g["kind"] for g in pair] == ["contradiction"] and pair[0]["evidence"]["partial"] == NOT_ALL_COMPARED
    assert pair[0]["evidence"]["conflicts"]  # what was compared is reported


def _run_in_1_gb(root: Path, *args: str, timeout: float = 240):
    """``rawko-tui ARGS`` as ``_run`` runs it, with 1 GB of address space instead of 2."""
    capped = "import resource, runpy, sys; resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30)); sys.argv[0] = 'rawko-tui'; runpy.run_module('rawko_tui', run_name='__main__')"
    return _run(root, *args, script=capped, timeout=timeout)


@pytest.mark.usefixtures("gigabyte_at_a_time")
def test_a_huge_memory_is_read_as_evidence_up_to_its_limit(tmp_path):
    root = _store(tmp_path)
    (root / ".rawko" / "memories" / "huge.md").write_text(memory(title="Huge", when='"auth"', body="The auth token expires after one day; see src/auth.\n" * 1_100_000))
    run = _run_in_1_gb(root, "candidates", "--now", FIXED_NOW)  # reading 55 MB as evidence took 1.5 GB
    assert run.returncode == 0, run.stderr


APP_QUEUE = f"""
import asyncio, json, sys
from pathlib import Path
from rawko_tui.tui.app import create_app
from rawko_tui.tui.screens.consolidation import ConsolidationScreen

async def main():
    app = create_app(Path(sys.argv[1]), now={FIXED_NOW!r}, poll_seconds=None)
    async with app.run_test(size=(150, 46)) as pilot:
        await app.settled()
        await pilot.press("c")
        while not (isinstance(app.screen, ConsolidationScreen) and app.screen.all_groups):
            await pilot.pause(0.1)
        print(json.dumps([[g.kind, list(g.paths), getattr(g.evidence, "partial", "")] for g in app.screen.all_groups if not isinstance(g, str)]))

asyncio.run(main())
"""


def test_the_app_s_consolidation_queue_opens_on_memories_of_thousands_of_sentences(tmp_path):
    root = _store(tmp_path)
    _random_sentences(root)
    groups = json.loads(_run(root, str(root), script=APP_QUEUE, timeout=180).stdout.strip().splitlines()[-1])
    from rawko_tui.core.curation.consolidation.pairs import NOT_ALL_COMPARED

    assert ["contradiction", [".rawko/memories/one.md", ".rawko/memories/two.md"], NOT_ALL_COMPARED] in groups


def test_conflicts_found_through_the_index_are_those_of_every_pair_of_sentences():
    """The index and its filters leave out only pairs that cannot align: on generated memories (paraphrases with a
    word swapped, code, short sentences) the conflicts are those of the loop over every pair of sentences."""
    import random

    from rawko_tui.core.curation.consolidation import pairs
    from rawko_tui.core.curation.consolidation.evidence import extract

    words = ("the emails are sent with Postmark from the worker queue using yarn pnpm npm Amazon SES Drizzle prisma migrate tokens "
             "expire after hours in src/auth/token.ts we deploy with helm to staging and production the cache is redis Node version "
             "pinned nvmrc set max 20 50 retries backoff Stripe webhooks verified signature checkout flaky timer").split()  # fmt: skip

    def body(rng):
        said = [" ".join(rng.choice(words) for _ in range(rng.randint(1, 14))) + rng.choice([".", ".", "!", ";", ""]) for _ in range(rng.randint(1, 25))]
        if rng.random() < 0.3:
            said.insert(rng.randrange(len(said) + 1), "```\nconst x = 1;\n```")
        return (" " if rng.random() < 0.5 else "\n").join(said)

    rng = random.Random(22)
    with_conflicts = 0
    for _ in range(4000):
        text = body(rng)
        swapped = text.split(" ")
        for _ in range(rng.randint(0, 3)):
            swapped[rng.randrange(len(swapped))] = rng.choice(words)
        a, b = extract("A", text), extract("B", " ".join(swapped) + (" " + body(rng) if rng.random() < 0.5 else ""))
        expected = _every_pair_conflicts(a, b)
        with_conflicts += bool(expected)
        assert pairs.conflicts(a, b) == expected
    assert with_conflicts > 500  # the generated pairs do disagree, often


def _every_pair_conflicts(a, b):
    """``pairs.conflicts`` as it was: every prose sentence of one memory aligned with every one of the other."""
    from collections import Counter

    from rawko_tui.core.curation.consolidation import pairs
    from rawko_tui.core.curation.consolidation.evidence import key_label

    found = {}
    by_key_a, by_key_b = pairs._values_by_key(a), pairs._values_by_key(b)
    for key in sorted(by_key_a.keys() & by_key_b.keys()):
        values_a, values_b = by_key_a[key], by_key_b[key]
        if not values_a.keys() & values_b.keys():
            value_a, value_b = min(values_a), min(values_b)
            found.setdefault(f"{value_a}|{value_b}", pairs.Conflict(key_label(key, a, b), value_a, value_b, values_a[value_a], values_b[value_b]))
    prose_a, prose_b = [s for s in a.sentences if not s.code], [s for s in b.sentences if not s.code]
    # a pair aligns on at most the tokens the two sentences share, counted with repeats (what their matching blocks
    # can hold): where those are fewer than _conflicting_choice asks for, it finds nothing there, and is not asked
    counts_b = [Counter(sb.tokens) for sb in prose_b]
    for sa in prose_a:
        counts_a = Counter(sa.tokens)
        for sb, count_b in zip(prose_b, counts_b):
            if (counts_a & count_b).total() < max(3, pairs.ALIGNED_SENTENCES * min(len(sa.tokens), len(sb.tokens))):
                continue
            conflict = pairs._conflicting_choice(sa, sb)
            if conflict is not None:
                found.setdefault(f"{conflict.value_a}|{conflict.value_b}", conflict)
    return tuple(found.values())


def test_a_memory_a_real_arbiter_reads_but_rawko_tui_refuses_is_reported_as_refused_under_every_profile(tmp_path, oracle):
    """Each arbiter's own code (on node) loads a long string used three times and injects the memory; rawko-tui
    reads none of it, and says so: not modelled, never "throws" (spec-0007) or "not valid YAML" (rawko-sdk)."""
    from test_profiles import SCRIPTS

    from rawko_tui.core.arbiters.decision import REASON_ERROR, ArbiterOptions, parse_now
    from rawko_tui.core.arbiters.profiles import BUILT_IN
    from rawko_tui.core.arbiters.ranking import run_preview, run_preview_reference
    from rawko_tui.core.store.loading import load_store

    root = _store(tmp_path)
    long = "y" * 400_000
    (root / ".rawko" / "memories" / "amplified.md").write_text(
        memory(title="Amplified", when=f'[auth, &s "{long}", *s, *s, *s]', importance="critical", tags="[auth]")
    )
    now = parse_now(FIXED_NOW)
    store = load_store(root)
    for name, script in SCRIPTS.items():
        real = oracle.run([{"root": str(root), "task": TASK, "agentName": "developer", "now": now, "order": "name"}], script)[0]
        assert real.get("error") is None and ".rawko/memories/amplified.md" in [i["path"] for i in real["injected"]], name
        for rank in (run_preview, run_preview_reference):
            preview = rank(store, TASK, "developer", ArbiterOptions(profile=BUILT_IN[name]), now)
            decision = preview.candidate("amplified.md")
            assert preview.arbiter_failure is None and not decision.loaded and decision.reason == REASON_ERROR, (name, rank)
            assert decision.explanation.description.startswith("not injected: not modelled") and ALIAS_CHARACTERS in decision.explanation.description, name


@pytest.mark.usefixtures("gigabyte_at_a_time")
def test_a_frontmatter_of_millions_of_values_is_refused_before_it_is_composed(tmp_path):
    root = _store(tmp_path)
    for name in ("f0.md", "f1.md"):  # two of them: composing one took 1.6 GB
        (root / ".rawko" / "memories" / name).write_text("---\ntitle: Values\nwhenToUse: [auth]\ntags:\n" + "- ab\n" * 12_700_000 + "---\n\nbody\n")
    preview = json.loads(_run(root, "preview", "--task", TASK, "--agent", "developer", "--now", FIXED_NOW, "--json", timeout=240).stdout)
    assert {"good-auth.md", "good-login.md"} <= {Path(m["path"]).name for m in preview["injected"]}
    refused = "frontmatter not read: more than 1,000,000 values in one document; refused (no rawko file holds that many)"
    assert {Path(e["path"]).name: e["reason"] for e in preview["errors"]} == {"f0.md": refused, "f1.md": refused}
    found = _findings(_run(root, "lint", "--json", "--now", FIXED_NOW, timeout=240))
    assert any(refused in m for _, c, m in found[".rawko/memories/f1.md"] if c == "parse")


@pytest.mark.usefixtures("gigabyte_at_a_time")
def test_appended_entries_holding_millions_of_values_are_read_up_to_the_limit(tmp_path):
    root = _store(tmp_path)
    entry = "\n---\ntags: [" + ", ".join(["ab"] * 60_000) + "]\n---\n\nx\n"  # 240 KB of YAML: 60,000 values each
    (root / ".rawko" / "memories" / "values.md").write_text(memory(title="Values", when='"auth"') + entry * 260)
    found = _findings(_run(root, "lint", "--json", "--now", FIXED_NOW, timeout=240))
    effective = json.loads(_run(root, "preview", "--task", TASK, "--view", "effective", "--now", FIXED_NOW, "--json", timeout=240).stdout)
    from rawko_tui.core.store.reading import ENTRIES_CUT

    assert [m for _, c, m in found[".rawko/memories/values.md"] if c == "entries-limit"] == [f"{ENTRIES_CUT} (the fold, the timeline and the torn-entry check end before it)"]
    assert "values.md" in {Path(m["path"]).name for m in effective["injected"]}


# --------------------------------------------------------------------------
# Sessions and saved tasks: limits for all the files of a kind together
# --------------------------------------------------------------------------


def test_sessions_are_read_newest_first_up_to_their_total(tmp_path, monkeypatch):
    from rawko_tui.core.curation import sessions

    root = _store(tmp_path)
    for number in range(5):
        _write(root, f".rawko/sessions/s{number}/agent-memory.yaml", f"sessionId: s{number}\ndiscoveries:\n  - {{id: d1, content: {'word ' * 2000}}}\n")
    monkeypatch.setattr(sessions, "SESSIONS_TOTAL", 25_000, raising=False)  # two files of 10 KB fit, a third does not
    found = {s.id: s.error.reason if s.error else None for s in sessions.load_sessions(root)}
    past = "cannot be read: past the 25,000 bytes rawko-tui reads of session files (newest first) in all: not read"
    assert found == {"s4": None, "s3": None, "s2": past, "s1": past, "s0": past}


def test_saved_tasks_are_read_up_to_their_limits(tmp_path, monkeypatch):
    from rawko_tui.core.curation import checks

    root = _store(tmp_path)
    _write(root, ".rawko/checks.yaml", "tasks:\n" + "".join(f"  - {{task: auth {i}, agent: developer}}\n" for i in range(1_005)))
    _write(root, ".rawko/checks/more.yaml", "tasks:\n  - {task: login, agent: developer}\n")
    tasks, errors = checks.load_checks(root)
    assert len(tasks) == 1_000 and tasks[-1].task == "auth 999"
    assert [(e.path, e.reason) for e in errors] == [
        (".rawko/checks.yaml", "task 1001 and the 4 after it not read: rawko-tui checks at most 1,000 saved tasks"),
        (".rawko/checks/more.yaml", "not read: rawko-tui checks at most 1,000 saved tasks, and the files before it hold them"),
    ]
    (root / ".rawko" / "checks.yaml").write_text("tasks:\n  - {task: auth, agent: developer}\n")
    monkeypatch.setattr(checks, "CHECKS_TOTAL", 50, raising=False)  # the first file fits, the second does not
    tasks, errors = checks.load_checks(root)
    assert [t.task for t in tasks] == ["auth"]
    assert [(e.path, e.reason) for e in errors] == [(".rawko/checks/more.yaml", "cannot be read: past the 50 bytes rawko-tui reads of saved-task files in all: not read")]
