"""The preview on frontmatter people wrote equals each arbiter's own code, context by context.

tests/data/realworld holds Markdown files from public repositories (Jekyll, Hugo, Eleventy, Gatsby,
Astro Starlight and Docsy sites in several languages, Obsidian notes, Cursor rules, Claude Code agents
and skills, and the fixtures of frontmatter libraries), one store per repository, with MANIFEST.tsv
naming each file's source and licence. Each file's own YAML is kept byte for byte; the rawko fields it
lacks were added as extra lines (some files keep no whenToUse, tags or title, and some titles are not
text), and some files also come as CRLF and BOM variants. Every store runs each of its tasks for every
agent under all three arbiters: injected set, order, scores, prompt bytes, skipped files and failures.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from test_profiles import NOW_MS, PROFILES, SCRIPTS, compare
from conftest import FIXED_NOW

CORPUS = Path(__file__).parent / "data" / "realworld"
STORES = sorted(path for path in (CORPUS / "stores").iterdir() if path.is_dir())
TASKS: dict[str, list[str]] = json.loads((CORPUS / "tasks.json").read_text(encoding="utf-8"))
AGENTS = ("planner", "developer", "tester", "reviewer")
DAY_MS = 86_400_000


def test_the_corpus_is_what_its_manifest_says():
    rows = [line.split("\t") for line in (CORPUS / "MANIFEST.tsv").read_text(encoding="utf-8").splitlines()[1:] if line]
    listed = {(row[0], row[1]) for row in rows}
    present = {(store.name, path.name) for store in STORES for path in (store / ".rawko" / "memories").iterdir()}
    assert listed == present
    assert len(STORES) >= 12 and len(present) >= 400
    assert sum(path.stat().st_size for store in STORES for path in (store / ".rawko" / "memories").iterdir()) < 6_000_000
    assert set(TASKS) == {store.name for store in STORES}


_DISCOVERED_AT = re.compile(r"^discoveredAt:[ \t]*(.*?)[ \t\r]*$", re.MULTILINE)


def _nows(oracle, store: Path) -> list[float]:
    """The fixed now, and a few days after the middle and the latest of the store's own dates (as node reads
    them): recency points then depend on every date being read as V8 reads it."""
    written = [m.group(1).strip("'\"") for path in sorted((store / ".rawko" / "memories").iterdir())
               for m in _DISCOVERED_AT.finditer(path.read_text(encoding="utf-8", errors="replace"))]
    times = sorted(t for t in oracle.run(written, "date_probe.js") if t is not None)
    if not times:
        return [NOW_MS]
    return [NOW_MS, times[len(times) // 2] + 3 * DAY_MS, times[-1] + 3 * DAY_MS]


def _files_it_runs_on(oracle, tmp_path: Path, store: Path, name: str) -> list[Path]:
    """The store's files on which the arbiter, given that file alone, does not throw. One file that makes
    SPEC-0007's code throw empties every context of its store, hiding how the others are read; the
    stores made of the rest show it."""
    files = sorted((store / ".rawko" / "memories").iterdir())
    requests = []
    for number, path in enumerate(files):
        alone = tmp_path / "alone" / str(number) / ".rawko" / "memories"
        alone.mkdir(parents=True)
        shutil.copy2(path, alone / path.name)
        requests.append({"root": str(alone.parent.parent), "task": TASKS[store.name][0], "agentName": "developer", "now": NOW_MS})
    results = oracle.run(requests, SCRIPTS[name])
    return [path for path, result in zip(files, results, strict=True) if not result["error"]]


@pytest.mark.parametrize("name", PROFILES)
@pytest.mark.parametrize("store", STORES, ids=lambda path: path.name)
def test_real_frontmatter_previews_exactly_as_the_arbiter_runs_it(tmp_path, oracle, store, name):
    root = tmp_path / store.name
    shutil.copytree(store, root, symlinks=True)
    queries = [(task, agent, {}) for task in TASKS[store.name] for agent in AGENTS]
    nows = _nows(oracle, store)
    for now_ms in nows:
        assert compare(oracle, root, name, queries, now_ms=now_ms) == len(queries)
    if name == "rawko-sdk":  # it skips a file it cannot read and goes on: the whole store already shows every file
        return
    runs = tmp_path / "runs" / store.name / ".rawko" / "memories"
    runs.mkdir(parents=True)
    for path in _files_it_runs_on(oracle, tmp_path, store, name):
        shutil.copy2(path, runs / path.name)
    for now_ms in nows:
        assert compare(oracle, runs.parent.parent, name, queries, now_ms=now_ms) == len(queries)


@pytest.mark.parametrize("name", PROFILES)
def test_preview_json_on_real_frontmatter_equals_the_oracle(tmp_path, oracle, capsys, name):
    """The command a user runs, on every store with its first task."""
    from rawko_tui.cli import main

    for store in STORES:
        root = tmp_path / name / store.name
        shutil.copytree(store, root, symlinks=True)
        task = TASKS[store.name][0]
        assert main(["preview", str(root), "--task", task, "--agent", "developer", "--now", FIXED_NOW, "--arbiter", name, "--json"]) in (0, 1)
        got = json.loads(capsys.readouterr().out)
        want = oracle.run([{"root": str(root), "task": task, "agentName": "developer", "now": NOW_MS}], SCRIPTS[name])[0]
        where = f"{name} on {store.name}"
        if want["error"]:
            assert got["arbiterFailure"] is not None, where
            continue
        assert got["arbiterFailure"] is None, where
        assert [i["path"] for i in got["injected"]] == [i["path"] for i in want["injected"]], where
        assert got["prompt"] == want["prompt"], where


def test_every_date_people_wrote_is_written_back_as_node_writes_it(oracle):
    """``JsDate.iso`` (lint's messages, the explanations, the writer's dates) on the corpus's own dates: every
    timestamp its YAML holds and every text that reads as a date, against node's ``toISOString``."""
    from rawko_tui.core.js.values import JsDate, js_new_date
    from rawko_tui.core.store.loading import load_store

    def dates(value):
        if isinstance(value, JsDate):
            yield value
        elif isinstance(value, str):
            date = js_new_date(value)
            if date.valid:
                yield date
        elif isinstance(value, dict):
            for item in value.values():
                yield from dates(item)
        elif isinstance(value, list):
            for item in value:
                yield from dates(item)

    found = sorted({date.ms for root in STORES for memory in load_store(root).files if memory.spec is not None for date in dates(memory.spec.attrs)})
    assert len(found) > 100  # the corpus's own dates, not a handful
    want = oracle.run([["iso", ms] for ms in found], "value_probe.js")
    assert [(ms, w) for ms, w in zip(found, want) if JsDate(ms).iso() != w] == []
