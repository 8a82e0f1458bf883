"""Typing in the app ranks through array operations (``arbiters.rankarrays``): the same decisions as the plain loop.

The rank index ranks its first query in plain Python and every later one
with numpy; each keystroke of a typed task, on generated and hostile
stores, under every scoring profile, is compared with
``run_preview_reference``.
"""

from __future__ import annotations

import random

import pytest
from storegen import random_store, random_task
from test_scale import AGENTS, NOW, OPTIONS, decisions, hostile_store, nows_for

from rawko_tui.core.arbiters.decision import ArbiterOptions
from rawko_tui.core.arbiters.profiles import BUILT_IN
from rawko_tui.core.arbiters.ranking import run_preview, run_preview_reference
from rawko_tui.core.store.fold import effective_store
from rawko_tui.core.store.loading import load_store

pytestmark = pytest.mark.scale

# repeated words (counted each time, the points capped), words only a few titles hold, case and spacing
TYPED = ["auth auth auth auth auth auth token", "implement the auth flow", "Tie 1 tie tie", "LOGIN  auth   refresh", "😀 x émoji"]


def typed_prefixes(task: str) -> list[str]:
    return [task[:end] for end in range(len(task) + 1)]


def array_ranked(store) -> bool:
    """Whether some rank index of the store has ranked through the arrays."""
    return any(getattr(index, "_title_hits", None) is not None for index in store._indexes.values())


@pytest.mark.parametrize("profile", ["spec-0007", "rawko-sdk"])
def test_typing_on_a_hostile_store_ranks_as_the_reference(tmp_path, profile):
    store = load_store(hostile_store(tmp_path))
    rng = random.Random(5)
    nows = nows_for(store)
    for view in (store, effective_store(store)):
        for task in TYPED:
            agent, now = rng.choice(AGENTS), rng.choice(nows)
            options = ArbiterOptions(profile=BUILT_IN[profile], max_memories=rng.choice([5, 2, -1]), min_importance=rng.choice(["low", "medium", "bogus"]))
            for prefix in typed_prefixes(task):
                assert decisions(run_preview(view, prefix, agent, options, now)) == decisions(run_preview_reference(view, prefix, agent, options, now)), (prefix, agent, options)
        assert array_ranked(view)


@pytest.mark.parametrize("seed", range(4))
def test_typing_on_generated_stores_ranks_as_the_reference(tmp_path, seed):
    store = load_store(random_store(tmp_path / "store", seed=seed, now_ms=NOW, size=300))
    rng = random.Random(seed)
    nows = nows_for(store)
    for _ in range(3):
        task, agent, options, now = random_task(rng), rng.choice(AGENTS), rng.choice(OPTIONS), rng.choice(nows)
        for prefix in typed_prefixes(task):
            assert decisions(run_preview(store, prefix, agent, options, now)) == decisions(run_preview_reference(store, prefix, agent, options, now)), (prefix, agent, options)
    assert array_ranked(store)


@pytest.mark.parametrize("seed", range(5))
def test_the_slots_as_arrays_give_each_memorys_first_pattern(seed):
    """``SlotArrays.first_plans`` gives what the loop over the matched tests' slots gives."""
    from rawko_tui.core.arbiters.rankarrays import SlotArrays

    rng = random.Random(seed)
    slots = [[(rng.randrange(50), rng.randrange(6)) for _ in range(rng.randint(1, 8))] for _ in range(rng.randint(1, 200))]
    arrays = SlotArrays(slots)
    for _ in range(20):
        matched = rng.sample(range(len(slots)), rng.randint(0, len(slots)))
        first: dict[int, int] = {}
        for test in matched:
            for position, plan_index in slots[test]:
                first[position] = min(first.get(position, plan_index), plan_index)
        assert arrays.first_plans(matched) == first


@pytest.mark.parametrize("profile", ["spec-0007", "spec-0005"])
def test_a_command_s_few_queries_on_a_kept_index_decide_as_the_sets_do(tmp_path, monkeypatch, profile):
    """On the index a run before kept (its regexes kept tuples, rebuilt when first run), the few queries sort the tests
    by kind once and go over each kind's list, the slots read whole once: each decides as the sets do."""
    from rawko_tui.core.arbiters.rankcache import KeptList
    from rawko_tui.core.arbiters.ranking import few_queries
    from rawko_tui.core.disk import cache

    monkeypatch.setattr(cache, "RACY_NS", 0)  # the files were written a moment ago: kept all the same
    hostile_store(tmp_path)
    random_store(tmp_path, seed=12, now_ms=NOW, size=150)
    rng = random.Random(6)
    tasks = [random_task(rng) for _ in range(6)] + ["auth login é😀", "AUTH Token"]
    options = ArbiterOptions(profile=BUILT_IN[profile])
    with_sets = [decisions(run_preview(load_store(tmp_path), task, "developer", options, NOW)) for task in tasks]  # keeps the index
    kept_store = load_store(tmp_path)
    with few_queries(len(tasks)):
        alone = [decisions(run_preview(kept_store, task, "developer", options, NOW)) for task in tasks]
    assert alone == with_sets
    patterns = [index.patterns for index in kept_store._indexes.values() if hasattr(index, "patterns")]
    assert patterns and all(isinstance(p.fallbacks, KeptList) and p._sieve is not None for p in patterns)
    assert any(type(entry[1]) is not tuple for p in patterns for entry in p._sieve.engine)  # a regex rebuilt, then held


@pytest.mark.parametrize("profile", ["spec-0007", "spec-0005"])
def test_a_command_s_few_queries_test_each_pattern_alone_and_rank_as_the_sets_do(tmp_path, profile):
    """``few_queries`` (a command's handful of saved tasks): every query tests the patterns alone, compiling no RE2 set,
    and decides as the sets do for the same queries on another load of the store."""
    from rawko_tui.core.arbiters.ranking import few_queries

    hostile_store(tmp_path)
    random_store(tmp_path, seed=11, now_ms=NOW, size=150)
    rng = random.Random(5)
    tasks = [random_task(rng) for _ in range(6)]
    options = ArbiterOptions(profile=BUILT_IN[profile])
    few_store, sets_store = load_store(tmp_path), load_store(tmp_path)
    with few_queries(len(tasks)):
        alone = [decisions(run_preview(few_store, task, "developer", options, NOW)) for task in tasks]
    with_sets = [decisions(run_preview(sets_store, task, "developer", options, NOW)) for task in tasks]
    assert alone == with_sets
    def pattern_indexes(store):
        return [index.patterns for index in store._indexes.values() if hasattr(index, "patterns")]

    assert pattern_indexes(few_store) and all(patterns._slots_as_arrays is None for patterns in pattern_indexes(few_store))
    assert any(patterns._slots_as_arrays is not None for patterns in pattern_indexes(sets_store))
    from rawko_tui.core.arbiters.ranking import FEW

    many_store = load_store(tmp_path)
    with few_queries(FEW + 1):  # more than a handful: worth the sets from the second query on
        assert [decisions(run_preview(many_store, task, "developer", options, NOW)) for task in tasks] == with_sets
    assert any(patterns._slots_as_arrays is not None for patterns in pattern_indexes(many_store))
