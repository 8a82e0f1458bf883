"""The reproduction is exact: the same decisions as SPEC-0007's code run on V8.

Every case compares, for one store, task, agent and options: the injected
memories and their order, every score component, the score of every memory
that passed the gates, and the prompt text byte for byte.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from conftest import FIXED_NOW, memory, write_store
from rawko_tui.core.arbiters.decision import COMPONENT_KEYS, ArbiterOptions, parse_now
from rawko_tui.core.arbiters.ranking import run_preview
from rawko_tui.core.store.loading import load_store
from storegen import AGENTS, random_store, random_task

NOW_MS = parse_now(FIXED_NOW)
SEEDS_DIR = Path(__file__).parent.parent.parent / "shared" / "seeds"
SEED_EXAMPLES = Path(__file__).parent / "data" / "seed_examples"  # the memory files the seeds quote, kept here


def _compare(oracle, root: Path, queries: list[tuple[str, str, dict]]) -> int:
    """Run each (task, agent, options) on both sides and assert equality; returns cases compared."""
    store = load_store(root)
    requests = []
    for task, agent, options in queries:
        request = {"root": str(root), "task": task, "agentName": agent, "now": NOW_MS}
        if options:
            request["options"] = options
        requests.append(request)
    expected = oracle.run(requests)
    for (task, agent, options), want in zip(queries, expected, strict=True):
        got = run_preview(
            store,
            task,
            agent,
            ArbiterOptions(max_memories=options.get("maxMemories"), min_importance=options.get("minImportance")),
            NOW_MS,
        )
        where = f"store {root.name}, task {task!r}, agent {agent!r}, options {options}"
        if want["error"]:
            assert got.arbiter_failure is not None, f"{where}: the spec throws {want['error']} but rawko-tui saw no failure"
            stage = {"load": "load", "rank": ("score", "match"), "format": "format"}[want["error"]["stage"]]
            assert got.arbiter_failure.stage in stage, where
            if want["error"]["stage"] != "load":  # YAML error texts differ between parsers; TypeErrors do not
                assert got.arbiter_failure.error == want["error"]["message"], where
            continue
        assert got.arbiter_failure is None, f"{where}: rawko-tui reports {got.arbiter_failure} but the spec ran"
        assert [c.path for c in got.injected] == [i["path"] for i in want["injected"]], where
        for candidate, item in zip(got.injected, want["injected"], strict=True):
            assert candidate.score == item["score"], where
            assert {k: candidate.components[k] for k in COMPONENT_KEYS} == item["components"], where
        considered = [c for c in got.candidates if c.rank is not None]
        considered.sort(key=lambda c: c.rank)
        assert [(c.path, c.score) for c in considered] == [(i["path"], i["score"]) for i in want["considered"]], where
        assert got.prompt == want["prompt"], where
    return len(queries)


def _seed_blocks() -> list[str]:
    """Every memory file quoted in the seed documents (a ```markdown block starting with ---)."""
    blocks = []
    for seed in sorted(SEEDS_DIR.glob("*.txt")):
        text = seed.read_text(encoding="utf-8")
        parts = text.split("```markdown\n")[1:]
        for part in parts:
            if not part.startswith("---\n"):
                continue
            # the block ends at a line "```" that closes it (nested fences are opened with a language)
            lines, depth = [], 0
            for line in part.split("\n"):
                if line.startswith("```") and line.strip() != "```":
                    depth += 1
                elif line.strip() == "```":
                    if depth == 0:
                        break
                    depth -= 1
                lines.append(line)
            blocks.append("\n".join(lines) + "\n")
    return blocks


def _kept_seed_examples() -> list[str]:
    """The seeds' example memories as kept in tests/data (the seed documents are not part of a checkout)."""
    return [p.read_text(encoding="utf-8") for p in sorted(SEED_EXAMPLES.glob("seed-*.md"))]


def test_the_kept_seed_examples_are_the_seeds_own():
    """Where the seed documents are at hand (beside the checkout), tests/data still quotes them exactly."""
    if not SEEDS_DIR.is_dir():
        pytest.skip("the seed documents are not beside this checkout; tests/data/seed_examples keeps their examples")
    assert _seed_blocks() == _kept_seed_examples()


def test_seed_examples_reproduce_exactly(tmp_path, oracle):
    blocks = _kept_seed_examples()
    assert len(blocks) >= 8, "the seeds quote at least eight memory files"
    plain = [b for b in blocks if "- pattern:" not in b]  # the map form makes the spec throw: tested below
    files = {f"seed-{i:02d}.md": block for i, block in enumerate(plain)}
    write_store(tmp_path, files)
    tasks = [
        "Add OAuth integration to existing auth system",
        "Implement password reset feature",
        "Add email notifications",
        "find the file that handles login",
        "exploring the codebase to locate the auth module",
        "Writing Express handlers for session management",
        "",
        "  leading white space matches every title",
    ]
    queries = [(t, a, o) for t in tasks for a in ("developer", "planner", "reviewer", "custom") for o in ({}, {"maxMemories": 3, "minImportance": "high"})]
    assert _compare(oracle, tmp_path, queries) == len(queries)


def test_seed_map_form_makes_the_spec_throw(tmp_path, oracle):
    write_store(tmp_path, {"auth.md": memory(when='\n  - pattern: "auth|login"\n  - pattern: "implement.*auth"')})
    _compare(oracle, tmp_path, [("implement auth", "developer", {})])
    preview = run_preview(load_store(tmp_path), "implement auth", "developer", now_ms=NOW_MS)
    assert preview.arbiter_failure.error == "TypeError: pattern.toLowerCase is not a function"
    # the tolerant view reads each map as its pattern
    assert [c.path for c in preview.injected] == [".rawko/memories/auth.md"]


@pytest.mark.parametrize("seed", range(40))
def test_generated_stores_reproduce_exactly(tmp_path, oracle, seed):
    root = random_store(tmp_path, seed, NOW_MS)
    rng = random.Random(1000 + seed)
    queries = []
    for _ in range(12):
        options = {}
        if rng.random() < 0.4:
            options["maxMemories"] = rng.choice([0, 1, 2, 3, 5, 8, -1, 2.7, "3"])
        if rng.random() < 0.4:
            options["minImportance"] = rng.choice(["low", "medium", "high", "critical"])
        queries.append((random_task(rng), rng.choice(AGENTS), options))
    assert _compare(oracle, root, queries) == 12


CRASHES = {
    "no-title": memory(title=None),
    "numeric-title": memory(title="42"),
    "string-tags": memory(tags="auth"),
    "no-when": memory(when=None),
    "numeric-pattern": memory(when="[7]"),
    "empty-frontmatter": "---\n---\nbody\n",
    "list-frontmatter": "---\n- a\n- b\n---\nbody\n",
    "no-frontmatter": "# Just a heading\n\nNo frontmatter at all.\n",
    "bad-yaml": "---\ntitle: [unclosed\n---\nbody\n",
    "duplicate-key": memory(extra="title: again"),
    "importance-list": memory(importance="[high]", when='"auth"'),
}


@pytest.mark.parametrize("case", sorted(CRASHES))
def test_where_the_spec_throws_rawko_tui_says_so(tmp_path, oracle, case):
    write_store(tmp_path, {"a-good.md": memory(title="Good one"), f"b-{case}.md": CRASHES[case]})
    _compare(oracle, tmp_path, [("implement auth", "developer", {}), ("nothing relevant", "tester", {})])
