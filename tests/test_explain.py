"""The explanation tree's root is exactly the score the arbiter ranked by, for every memory."""

from __future__ import annotations

import random

import pytest

from conftest import FIXED_NOW, REPO_ROOT, memory, write_store
from rawko_tui.core.arbiters.decision import ArbiterOptions, explain_candidate, parse_now
from rawko_tui.core.arbiters.ranking import run_preview
from rawko_tui.core.arbiters.explain import COMPONENT, GATE, Explanation
from rawko_tui.core.store.loading import load_store
from storegen import AGENTS, random_store, random_task

NOW = parse_now(FIXED_NOW)


def _check(preview):
    for candidate in preview.candidates:
        tree = explain_candidate(preview, candidate)
        assert tree.value == candidate.score
        if candidate.loaded:
            assert min(100, tree.component_sum()) == candidate.score
            assert [d.value for d in tree.details if d.kind == COMPONENT] == list(candidate.components.values())
        assert tree.match == candidate.injected
        gates = [d for d in tree.details if d.kind == GATE]
        if candidate.loaded:  # the explanation re-runs the patterns: it must agree with the ranking pass
            assert gates[0].match == candidate.matched
        if not candidate.injected:
            assert any(not g.match for g in gates), candidate.path  # the gate that stopped it


@pytest.mark.parametrize("seed", range(10))
def test_root_value_is_the_ranking_score_for_every_memory(tmp_path, seed):
    store = load_store(random_store(tmp_path, seed, NOW))
    rng = random.Random(seed)
    for _ in range(5):
        _check(run_preview(store, random_task(rng), rng.choice(AGENTS), ArbiterOptions(max_memories=rng.choice([None, 1, 2])), NOW))


def test_demo_store_explanations():
    store = load_store(REPO_ROOT)
    for recursive in (False, True):
        _check(run_preview(store, "Add OAuth integration to existing auth system", "developer", ArbiterOptions(recursive=recursive), NOW))


def test_unmatched_pattern_names_its_interpretation_and_near_miss(tmp_path):
    write_store(tmp_path, {"m.md": memory(title="Files", when='"find.*file|locate.*module"')})
    preview = run_preview(load_store(tmp_path), "find the config file", "developer", now_ms=NOW)
    tree = explain_candidate(preview, preview.candidates[0])
    text = tree.render()
    assert "split on '|' into literal substrings 'find.*file', 'locate.*module'" in text
    assert "closest: 'find.*file'" in text
    pattern_node = [d for d in tree.details if d.kind == GATE][0].details[0]
    assert pattern_node.data["interpretation"] == "alternatives"


def test_cut_memory_says_the_score_it_would_need(tmp_path):
    write_store(tmp_path, {"a.md": memory(title="A", importance="critical"), "b.md": memory(title="B", importance="medium")})
    preview = run_preview(load_store(tmp_path), "auth", "developer", ArbiterOptions(max_memories=1), NOW)
    b = preview.candidate("b.md")
    assert b.reason == "cut-by-top-n"
    a_score = preview.candidate("a.md").score
    assert f"needs a score of {a_score + 1:g}" in b.explanation.description


def test_render_and_dict_round_out():
    tree = Explanation(5, "root", (Explanation(5, "part", kind=COMPONENT), Explanation(0, "gate", match=False, kind=GATE)), kind="score")
    assert tree.render().splitlines() == ["   5  root", "     5  part", "     ✗  gate"]
    assert Explanation(0, "note").render() == "   ·  note"
    assert tree.to_dict()["details"][1]["match"] is False


def test_the_explanation_of_alternatives_agrees_with_lint_on_what_looks_like_a_regex():
    from rawko_tui.core.arbiters.patterns import plan_pattern

    assert plan_pattern("req.user|session").notes == ()  # a dotted name is meant literally
    (note,) = plan_pattern("handle.*error|oops").notes
    assert note == "alternatives are plain substrings: 'handle.*error' matches only text that literally contains those characters"
