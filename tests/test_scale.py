"""The optimised paths give exactly what the straightforward ones give.

* ranking through the store's index (``run_preview``) vs the plain loop over
  every memory (``run_preview_reference``), on generated stores, with every
  option, agent, view and a "now" on the 24 h / 72 h lines;
* the frontmatter fast path (``simple_mapping``) vs libyaml (``load_yaml_fully``).
"""

from __future__ import annotations

import math
import random

import pytest
from conftest import FIXED_NOW, memory, write_store
from hypothesis import given, settings
from hypothesis import strategies as st
from storegen import random_store, random_task

from rawko_tui.core.arbiters import rankindex
from rawko_tui.core.arbiters.decision import ArbiterOptions, parse_now
from rawko_tui.core.arbiters.ranking import run_preview, run_preview_reference
from rawko_tui.core.store.fold import effective_store
from rawko_tui.core.store.loading import load_store
from rawko_tui.core.js.jsyaml import _NOT_SIMPLE, YamlError, load_yaml_fully, simple_mapping

pytestmark = pytest.mark.scale

NOW = parse_now(FIXED_NOW)
HOUR = 3_600_000


def decisions(preview) -> tuple:
    """Everything a preview decides, for comparing two of them."""
    candidates = [
        (c.path, c.title, c.loaded, c.reason, c.score, c.components, c.matched, c.meets_threshold, c.rank, c.injected, c.load_index, c.matched_index, c.explanation.description)
        for c in preview.candidates
    ]
    failure = preview.arbiter_failure.to_dict() if preview.arbiter_failure else None
    return (
        candidates,
        [c.path for c in preview.ranked],
        [c.path for c in preview.injected],
        preview.prompt,
        failure,
        preview.notes,
        preview.max_memories,
        preview.min_importance,
        preview.reason_counts,
    )


def hostile_store(root):
    """Every shape the ranking treats specially, beside ordinary memories."""
    files = {
        "a-plain.md": memory(title="Auth middleware order", when='"auth|login"'),
        "b-glob.md": memory(title="Cache keys", when='"redis*cache"', importance="medium"),
        "c-regex.md": memory(title="Token refresh", when='"token.{0,20}refresh"', at="2026-01-23T12:00:00Z"),
        "d-backref.md": memory(title="Repeated words", when='"(\\\\w+) \\\\1"'),
        "e-lookahead.md": memory(title="Look ahead", when='"auth(?=.{0,5}flow)"'),
        "f-map.md": memory(title="Pattern map", when="[{pattern: auth}]"),
        "g-number-first.md": memory(title="Number first", when="[42, auth]"),
        "h-number-last.md": memory(title="Number last", when="[auth, 42]"),
        "i-no-title.md": memory(title=None, when='"auth"'),
        "j-string-tags.md": memory(title="String tags", tags="code"),
        "k-empty-alt.md": memory(title="Matches everything", when='"x|"', importance="low"),
        "l-unknown-importance.md": memory(title="Urgent", importance="urgent"),
        "m-number-importance.md": memory(title="Numeric importance", importance="3"),
        "n-broken.md": "---\ntitle: [unclosed\n---\nbody\n",
        "o-no-frontmatter.md": "just text\n",
        "p-list.md": "---\n- a\n- b\n---\nbody\n",
        "q-emoji.md": memory(title="Emoji 😀 memory", when='"😀|émoji"'),
        "r-astral-regex.md": memory(title="Astral regex", when='".{1}😀.{0,3}x"'),
        "sub/s-nested.md": memory(title="Nested auth memory", when='"auth"'),
        "t-retired.md": memory(title="Retired auth", when='"auth"') + "\n\n---\nstatus: retired\nreason: wrong\n---\n\nNo longer true.\n",
        "u-appended.md": memory(title="Appended", when='"login"') + "\n\n---\nimportance: critical\n---\n\nMore.\n",
    }
    for i in range(40):  # many ties, so load order decides the cut
        files[f"v-tie-{i:02d}.md"] = memory(title=f"Tie {i}", when='"auth"', importance="high", at="2026-01-20T12:00:00Z")
    return write_store(root, files)


TASKS = ["", "auth", "implement the auth flow", "redis then cache", "token will refresh", "word word", "auth  flow", " 😀 x", "login", "LOGIN auth token"]
AGENTS = ["developer", "planner", "tester", "constructor", "toString", "nobody"]
OPTIONS = [
    ArbiterOptions(),
    ArbiterOptions(max_memories=2),
    ArbiterOptions(max_memories=-1),
    ArbiterOptions(max_memories="3"),
    ArbiterOptions(max_memories=0),
    ArbiterOptions(min_importance="medium"),
    ArbiterOptions(min_importance="bogus"),
    ArbiterOptions(recursive=True),
]


def nows_for(store) -> list[float]:
    """The fixed now, and now exactly on, and 1 ms either side of, some memories' recency lines."""
    nows = [NOW, NOW + 5 * HOUR]
    for memory_file in store.files[:6]:
        date = rankindex.memory_facts(memory_file).date_ms if memory_file.error is None and isinstance(memory_file.attrs.get("title"), str) else math.nan
        if not math.isnan(date):
            for line in (date + 24 * HOUR, date + 72 * HOUR):
                nows += [line - 1, line, line + 1]
    return nows


def test_fast_ranking_equals_the_reference_on_every_special_shape(tmp_path):
    store = load_store(hostile_store(tmp_path))
    rng = random.Random(7)
    nows = nows_for(store)
    for view in (store, effective_store(store)):
        for task in TASKS:
            for agent in AGENTS:
                options = rng.choice(OPTIONS)
                now = rng.choice(nows)
                assert decisions(run_preview(view, task, agent, options, now)) == decisions(run_preview_reference(view, task, agent, options, now)), (task, agent, options, now)


@pytest.mark.parametrize("seed", range(12))
def test_fast_ranking_equals_the_reference_on_generated_stores(tmp_path, seed):
    store = load_store(random_store(tmp_path / "store", seed=seed, now_ms=NOW, size=60 if seed % 3 else 400))
    rng = random.Random(seed)
    nows = nows_for(store)
    for _ in range(25):
        task, agent = random_task(rng), rng.choice(AGENTS)
        options, now = rng.choice(OPTIONS), rng.choice(nows)
        assert decisions(run_preview(store, task, agent, options, now)) == decisions(run_preview_reference(store, task, agent, options, now)), (task, agent)


def test_typing_reuses_the_index_and_stays_exact(tmp_path):
    store = load_store(random_store(tmp_path / "store", seed=3, now_ms=NOW, size=200))
    task = "implement the auth middleware for login"
    for end in range(len(task) + 1):
        assert decisions(run_preview(store, task[:end], "developer", None, NOW)) == decisions(run_preview_reference(store, task[:end], "developer", None, NOW))
    assert len([key for key in store._indexes if key[0] == "index"]) == 1  # built once, for the one loading mode and profile


def test_sets_that_cannot_be_built_fall_back_to_one_test_at_a_time(tmp_path, monkeypatch):
    # RE2 refuses to compile a set in 1 KiB: every bucket takes the one-by-one path
    monkeypatch.setattr(rankindex, "SET_MAX_MEM", 1024)
    rankindex._compile_bucket.cache_clear()
    try:
        store = load_store(hostile_store(tmp_path))
        assert rankindex._compile_bucket(("auth", "x[a-z]{0,30}y")).regex_set is None
        for task in TASKS:
            assert decisions(run_preview(store, task, "developer")) == decisions(run_preview_reference(store, task, "developer"))
    finally:
        rankindex._compile_bucket.cache_clear()


# --------------------------------------------------------------------------
# YAML: the fast path agrees with libyaml wherever it answers
# --------------------------------------------------------------------------

CHARS = st.sampled_from(list("abz09 :#-[]{},'\"\\&*!|>%@`~<=?._/+()é😀\t\r") + ["yes", "null", "True", "0x1F", ".5", "2026-01-24", "12:30:00", ".inf", "-"])
TEXT = st.lists(CHARS, max_size=12).map("".join)
KEYS = st.sampled_from(["title", "whenToUse", "tags", "importance", "true", "null", "_x", "a1", "NaN", "y"])


@st.composite
def documents(draw) -> str:
    lines = []
    for _ in range(draw(st.integers(1, 5))):
        key = draw(KEYS)
        form = draw(st.integers(0, 5))
        if form == 0:
            lines.append(f"{key}: {draw(TEXT)}")
        elif form == 1:
            lines.append(f'{key}: "{draw(TEXT)}"')
        elif form == 2:
            lines.append(f"{key}: '{draw(TEXT)}'")
        elif form == 3:
            lines.append(f"{key}: [{', '.join(draw(st.lists(TEXT, max_size=4)))}]")
        elif form == 4:
            indent = " " * draw(st.integers(0, 3))
            lines.append(f"{key}:")
            lines += [f"{indent}- {item}" for item in draw(st.lists(TEXT, max_size=3))]
        else:
            lines.append(f"{key}:{draw(TEXT)}")
    separator = draw(st.sampled_from(["\n", "\n", "\r\n"]))
    return separator.join(lines)


@settings(max_examples=1500, deadline=None)
@given(documents())
def test_the_frontmatter_fast_path_agrees_with_libyaml(text):
    fast = simple_mapping(text)
    if fast is _NOT_SIMPLE:
        return
    try:
        full = load_yaml_fully(text)
    except YamlError as exc:  # pragma: no cover - shown when it fails
        raise AssertionError(f"the fast path read {text!r} as {fast!r}; libyaml refuses it: {exc}") from None
    assert repr(fast) == repr(full), text


def test_the_fast_path_reads_the_usual_memory_and_declines_the_unusual():
    usual = 'title: "Auth order"\nwhenToUse: ["auth|login", "token*"]\ntags: [code, auth]\nimportance: high\ndiscoveredAt: 2026-01-22T10:00:00Z\ndiscoveredBy: developer'
    assert simple_mapping(usual) == load_yaml_fully(usual)
    for unusual in ("a: &x 1\nb: *x", "a: !!python/object:os.system x", "a: 'it''s'", "a: |\n  text", "a: x # comment", "a:\n  b: 1", "a: 1\na: 2", 'a: "\\n"'):
        assert simple_mapping(unusual) is _NOT_SIMPLE, unusual


def test_one_memorys_decision_is_found_without_building_every_decision(tmp_path):
    store = load_store(hostile_store(tmp_path))
    reference = run_preview_reference(store, "implement the auth flow", "developer", None, NOW)
    for memory_file in store.files:
        fast = run_preview(store, "implement the auth flow", "developer", None, NOW)
        for key in (memory_file.rel_path, memory_file.name):
            found = fast.candidate(key)
            assert fast._candidates is None  # looked up alone
            expected = reference.candidate(key)
            assert (found.path, found.reason, found.score, found.components, found.rank, found.matched_index, found.explanation.description) == (
                expected.path,
                expected.reason,
                expected.score,
                expected.components,
                expected.rank,
                expected.matched_index,
                expected.explanation.description,
            )


@pytest.mark.parametrize("profile", ["spec-0007", "rawko-sdk", "spec-0005"])
@pytest.mark.parametrize("seed", range(4))
def test_the_one_line_decision_is_the_trees_root_without_building_the_tree(tmp_path, seed, profile):
    """`why` (what a listing of every memory shows) says exactly what the explanation tree's root says, under every profile."""
    from rawko_tui.core import records
    from rawko_tui.core.arbiters.profiles import BUILT_IN

    store = load_store(random_store(tmp_path / "store", seed=seed, now_ms=NOW, size=120) if seed else hostile_store(tmp_path))
    rng = random.Random(seed)
    for view in (store, effective_store(store)):
        for _ in range(10):
            options = records.replace(rng.choice(OPTIONS), profile=BUILT_IN[profile])
            preview = run_preview(view, random_task(rng), rng.choice(AGENTS), options, rng.choice(nows_for(store)))
            lines = [c.why for c in preview.candidates]
            assert all(c._explanation is None for c in preview.candidates if c.loaded and c.facts is not None)  # no tree was built
            assert lines == [c.explanation.description for c in preview.candidates]


@pytest.mark.parametrize("profile", ["spec-0007", "rawko-sdk", "spec-0005"])
@pytest.mark.parametrize("seed", range(4))
def test_a_listing_says_what_every_decision_says(tmp_path, seed, profile):
    """``Preview.listing`` (what a text or JSON listing of every memory reads) answers as ``candidates`` does, row by
    row, and ``--json`` writes a listed row as it writes the candidate's dict, under every profile."""
    from rawko_tui.core import records
    import json

    from rawko_tui.cli.output import _json_default
    from rawko_tui.cli.preview import _ListedJson, status_words
    from rawko_tui.core.store.fold import status_of, statuses_of
    from rawko_tui.core.arbiters.decision import ListedDecision
    from rawko_tui.core.arbiters.profiles import BUILT_IN

    store = load_store(random_store(tmp_path / "store", seed=seed, now_ms=NOW, size=150) if seed else hostile_store(tmp_path))
    encode = json.JSONEncoder(ensure_ascii=False, default=_json_default).encode
    rng = random.Random(seed)
    listed = 0
    for view in (store, effective_store(store)):
        for _ in range(10):
            options = records.replace(rng.choice(OPTIONS), profile=BUILT_IN[profile])
            preview = run_preview(view, random_task(rng), rng.choice(AGENTS), options, rng.choice(nows_for(store)))
            unscored = preview.listing(scores=False)
            listing = preview.listing()  # made before the candidates: once they are, the listing is them
            row_json = _ListedJson(profile != "spec-0005")
            assert len(listing) == len(preview.candidates)
            assert len(unscored) == len(listing)
            statuses = statuses_of([c.file for c in listing])
            assert statuses == [status_of(c.file) for c in listing]
            assert any(not s.active for s in statuses) or seed  # the hostile store holds a retired memory
            for row, bare, candidate, status in zip(listing, unscored, preview.candidates, statuses):
                if type(row) is not ListedDecision:
                    assert row is candidate and bare is candidate
                    continue
                listed += 1
                shown = ("file", "title", "why", "reason", "rank", "injected", "matched", "match_undecided", "loaded", "meets_threshold")
                assert type(bare) is ListedDecision and [getattr(bare, name) for name in shown] == [getattr(row, name) for name in shown]
                assert profile == "spec-0005" or not row.loaded or (bare.score, bare.components) == (None, None)
                assert row.file is candidate.file and row.path == candidate.path
                assert row.to_dict() == candidate.to_dict() and row.why == candidate.why
                assert (row.title, row.rank, row.injected, row.matched, row.match_undecided) == (candidate.title, candidate.rank, candidate.injected, candidate.matched, candidate.match_undecided)
                as_dict = {**candidate.to_dict(), "status": status_words(status_of(candidate.file)), **({} if profile != "spec-0005" else {"score": None})}
                assert row_json(row, status_words(status)) == encode(as_dict)
    assert listed


_TITLE_TEXT = st.text(alphabet="ab\nxé😀 ", max_size=6)


@settings(max_examples=2000, deadline=None)
@given(titles=st.lists(_TITLE_TEXT, max_size=8), words=st.lists(_TITLE_TEXT, max_size=5), common=st.sampled_from([rankindex.COMMON_WORD_SHARE, 0, math.inf]))
def test_keyword_hits_of_every_title_by_one_search_per_word_are_each_titles_own(titles, words, common):
    """A listing counts every title's hits by searching the titles joined by newlines (a hit across two titles, a
    word holding the newline, is none; a title counts a word once), or for a common word by testing each title;
    repeated words each count, and the empty word is in every title. The same counts as testing each title for
    each word, whichever way each word is counted (``common``: every word one way, or the other)."""
    index = object.__new__(rankindex.StoreIndex)
    index.titles = titles
    expected = {p: n for p in range(len(titles)) if (n := len([w for w in words if w in titles[p]]))}
    original = rankindex.COMMON_WORD_SHARE
    rankindex.COMMON_WORD_SHARE = common
    try:
        got = index._title_hit_counts(words)
    finally:
        rankindex.COMMON_WORD_SHARE = original
    assert {p: n for p, n in enumerate(got) if n} == expected and len(got) == len(titles)


def test_the_fold_of_a_file_without_appended_entries_is_its_frontmatter_without_splitting(tmp_path):
    """`effective()` skips splitting a file that surely holds one entry, and gives what the split gives."""
    import copy

    for root in (hostile_store(tmp_path / "hostile"), random_store(tmp_path / "generated", seed=5, now_ms=NOW, size=300)):
        for memory in load_store(root).files:
            fresh = copy.copy(memory)
            fast = fresh.effective()
            assert fresh._entries is None or not fresh.single_entry()
            memory.entries  # noqa: B018 - split: the slow path from here on
            assert memory.effective() == fast, memory.rel_path


@pytest.mark.parametrize("seed", range(4))
def test_the_first_query_tests_patterns_alone_and_agrees_with_the_sets(tmp_path, seed, monkeypatch):
    from rawko_tui.core.arbiters.scoring import memory_facts

    root = hostile_store(tmp_path) if seed == 0 else random_store(tmp_path / "store", seed=seed, now_ms=NOW, size=300)
    store = load_store(root)
    facts = [memory_facts(m) for m in store.files if m.spec is not None and isinstance(m.attrs, dict) and isinstance(m.attrs.get("title"), str)]
    rng = random.Random(seed)
    texts = [random_task(rng) for _ in range(40)] + [t.upper() for t in TASKS] + [f"{t} é😀" for t in TASKS] + TASKS + [""]
    for text in texts:
        alone = rankindex.PatternIndex(facts)
        with monkeypatch.context() as patched:  # the first query compiles no set
            patched.setattr(rankindex, "_compile_bucket", lambda patterns: pytest.fail("compiled a set"))
            first = alone.first_matches(text)
        assert first == alone.first_matches(text), text  # the second query runs the sets
        assert sorted(alone._matched_one_by_one(text)) == sorted(alone._matched_by_sets(text)), text


def test_a_files_status_without_splitting_is_the_folds(tmp_path):
    """`status_of` skips the split where no appended entry can set a status field, and gives what the fold gives."""
    import copy

    from rawko_tui.core.store.fold import Status, status_of

    quoted = memory(title="Quoted key") + '\n---\n"st\\x61tus": retired\nreason: "spelled with an escape"\n---\n\nRetired.\n'
    body_word = memory(title="A word in the body") + "\nThe reason is plain.\n"
    escapes = write_store(tmp_path / "escapes", {"quoted.md": quoted, "word.md": body_word})
    shortcuts = 0
    for root in (escapes, hostile_store(tmp_path / "hostile"), random_store(tmp_path / "generated", seed=5, now_ms=NOW, size=300)):
        for file in load_store(root).files:
            fresh = copy.copy(file)
            fast = status_of(fresh)
            shortcuts += fresh._entries is None
            file.entries  # noqa: B018 - split: the fold from here on
            assert fast == status_of(file), file.rel_path
            if file.name == "quoted.md":
                assert fast == Status(False, "retired: spelled with an escape", 1)
    assert shortcuts > 100


@pytest.mark.parametrize("profile", ["spec-0007", "rawko-sdk", "spec-0005"])
def test_a_kept_rank_index_ranks_as_a_fresh_one_and_is_remade_when_a_file_changes(tmp_path, monkeypatch, profile):
    """The index's tables are kept between runs for the very same readings of the files; every decision equals the reference."""
    from rawko_tui.core.disk import cache
    from rawko_tui.core.arbiters import rankcache
    from rawko_tui.core.arbiters.loaders import load_view
    from rawko_tui.core.arbiters.profiles import BUILT_IN

    monkeypatch.setattr(cache, "RACY_NS", 0)  # the test's files are seconds old: let the cache trust them
    root = hostile_store(tmp_path / "hostile")
    for name, text in {"extra-a.md": memory(title="Auth token expiry", when='["auth", "token.*expir"]'), "extra-b.md": memory(title="Flaky tests")}.items():
        (root / ".rawko" / "memories" / name).write_text(text)
    options = ArbiterOptions(profile=BUILT_IN[profile])
    rng = random.Random(3)
    cases = [(task, rng.choice(AGENTS), rng.choice(nows_for(load_store(root)))) for task in TASKS]

    def check(store):
        for task, agent, now in cases:
            assert decisions(run_preview(store, task, agent, options, now)) == decisions(run_preview_reference(store, task, agent, options, now)), (task, agent)

    check(load_store(root))  # builds and keeps the tables
    with monkeypatch.context() as patched:
        from rawko_tui.core.arbiters.spec0005 import Spec0005Index

        built = Spec0005Index if profile == "spec-0005" else rankindex.StoreIndex
        patched.setattr(built, "_tables", lambda self: pytest.fail("the kept tables were not used"))
        patched.setattr(rankindex, "agent_points_column", lambda *a: pytest.fail("an agent's kept points were not used"))
        check(load_store(root))
        (root / ".rawko" / "memories" / "extra-b.md").write_text(memory(title="Flaky tests, again", when='"flaky|retry"'))
        store = load_store(root)
        view = load_view(store, options.profile, False)
        assert rankcache.load(store, view, options.profile) is None  # a changed file: not these tables
    check(load_store(root))  # remade, and kept again
    assert rankcache.load(load_store(root), view, options.profile) is not None
    assert rankcache.load(effective_store(load_store(root)), view, options.profile) is None  # a fold is never kept


def test_a_kept_pattern_index_holds_what_the_fresh_one_holds(tmp_path):
    """The pattern index read back from its kept state answers as the fresh one, its regexes rebuilt when tested."""
    import pickle

    from rawko_tui.core.arbiters.scoring import memory_facts

    store = load_store(random_store(tmp_path / "store", seed=4, now_ms=NOW, size=300))
    facts = [memory_facts(m) for m in store.files if m.spec is not None and isinstance(m.attrs, dict) and isinstance(m.attrs.get("title"), str)]
    fresh = rankindex.PatternIndex(facts)
    kept = rankindex.PatternIndex.from_state(pickle.loads(pickle.dumps(fresh.state())))
    assert kept.slots == fresh.slots and kept.buckets == fresh.buckets
    regexes = [test for test, f in enumerate(kept.fallbacks) if type(f) is tuple]
    assert regexes and all(pickle.loads(kept.regexes[kept.fallbacks[test][1]]) == fresh.fallbacks[test] for test in regexes)
    assert sorted(kept.fallbacks[test][1] for test in regexes) == list(range(len(kept.regexes)))  # each its own, kept apart
    shared = [f for f in kept.fallbacks if type(f) is tuple and f[2] is not None and f[2][1] == f[0]]
    assert all(f[2][1] is f[0] for f in shared)  # needles and words that are the same: one tuple
    rng = random.Random(4)
    for text in [random_task(rng) for _ in range(30)] + TASKS:
        assert kept.first_matches(text) == fresh.first_matches(text), text


@pytest.mark.parametrize("profile", ["spec-0007", "spec-0005"])
def test_kept_tables_of_another_shape_are_made_again(tmp_path, monkeypatch, profile):
    """Kept tables that do not add up (damaged on disk, or another version's) are made again, never used."""
    from rawko_tui.core import records
    from rawko_tui.core.arbiters import rankcache
    from rawko_tui.core.arbiters.profiles import BUILT_IN

    from rawko_tui.core.disk import cache

    monkeypatch.setattr(cache, "RACY_NS", 0)  # the test's files are seconds old: let the cache trust them
    root = hostile_store(tmp_path / "hostile")
    options = ArbiterOptions(profile=BUILT_IN[profile])
    real_load = rankcache.load
    served = []

    def damaged(store, view, profile):
        tables = real_load(store, view, profile)
        if tables is None:
            return None
        served.append(profile.name)
        patterns = tables["patterns"]
        return {**tables, "patterns": (patterns[0], list(patterns[1])[:-1], *patterns[2:])}  # one test's fallback lost

    run_preview(load_store(root), "auth", "developer", options, NOW)  # builds and keeps the tables
    monkeypatch.setattr(rankcache, "load", damaged)
    for task in TASKS:
        store = load_store(root)
        assert decisions(run_preview(store, task, "developer", options, NOW)) == decisions(run_preview_reference(store, task, "developer", records.replace(options), NOW)), task
    assert served  # the damaged tables were offered


@pytest.mark.parametrize("profile", ["spec-0007", "rawko-sdk"])
def test_an_agents_points_for_a_whole_column_are_each_memorys_own(tmp_path, profile):
    """``agent_points_column`` (the agent's tags looked up once) gives what ``agent_points_of`` gives memory by memory."""
    from rawko_tui.core.arbiters.profiles import BUILT_IN
    from rawko_tui.core.arbiters.scoring import agent_points_column, agent_points_of, memory_facts

    scorer = BUILT_IN[profile].scorer
    root = hostile_store(tmp_path / "hostile")
    extra = {"mixed-tags.md": memory(title="Mixed", tags='["Testing", 7, null, "code", ["code"], "CODE"]'), "dict-by.md": memory(title="By", by="{a: 1}", tags="[Testing]")}
    for name, text in extra.items():
        (root / ".rawko" / "memories" / name).write_text(text)
    facts = [memory_facts(m) for m in load_store(root).files if m.spec is not None and isinstance(m.attrs, dict) and isinstance(m.attrs.get("title"), str)]
    keys, tags, by = [f.importance_key for f in facts], [f.tags for f in facts], [f.attrs.get("discoveredBy") for f in facts]
    for agent in [*AGENTS, "constructor", "__proto__", "Developer", ""]:
        assert agent_points_column(keys, tags, by, agent, scorer) == [agent_points_of(k, t, b, agent, scorer) for k, t, b in zip(keys, tags, by)], agent


def test_preparing_the_index_compiles_its_sets_even_after_a_first_query(tmp_path):
    """The app prepares the sets once typing pauses, after the first ranking tested each pattern alone: no later key compiles them."""
    from rawko_tui.core.arbiters.scoring import memory_facts

    store = load_store(random_store(tmp_path / "store", seed=4, now_ms=NOW, size=120))
    facts = [memory_facts(m) for m in store.files if m.spec is not None and isinstance(m.attrs, dict) and isinstance(m.attrs.get("title"), str)]
    index = rankindex.PatternIndex(facts)
    index.first_matches("implement the auth flow")  # one by one
    rankindex._compile_bucket.cache_clear()
    index.prepare()
    compiled = rankindex._compile_bucket.cache_info().misses
    assert compiled == len(index.buckets)
    index.first_matches("implement the auth flow for login")
    assert rankindex._compile_bucket.cache_info().misses == compiled  # the key used the prepared sets


def test_spec_0005_s_plans_are_kept_apart_read_where_asked_and_made_again_when_their_file_is_damaged(tmp_path, monkeypatch):
    """spec-0005's plans of every memory are kept in a file of their own (``rankcache.save(apart=)``), read where a
    ranking slices them; a missing or cut file is no kept tables (made again, the same decisions), and a store keeps
    one such file."""
    from rawko_tui.core.arbiters import rankcache
    from rawko_tui.core.arbiters.loaders import load_view
    from rawko_tui.core.arbiters.profiles import BUILT_IN
    from rawko_tui.core.disk import cache

    monkeypatch.setattr(cache, "RACY_NS", 0)
    root = hostile_store(tmp_path / "hostile")
    options = ArbiterOptions(profile=BUILT_IN["spec-0005"])
    task, agent, now = TASKS[0], AGENTS[0], NOW
    expected = decisions(run_preview_reference(load_store(root), task, agent, options, now))
    assert decisions(run_preview(load_store(root), task, agent, options, now)) == expected  # made and kept

    def apart_files():
        return sorted(cache.cache_dir().glob("index*-*-*.bin"))

    store = load_store(root)
    kept = rankcache.load(store, load_view(store, options.profile, False), options.profile)
    assert isinstance(kept["plans_blob"], cache.TextFile) and len(apart_files()) == 1
    for damage in (lambda path: path.write_bytes(path.read_bytes()[:-7]), lambda path: path.unlink()):
        damage(apart_files()[0])
        assert decisions(run_preview(load_store(root), task, agent, options, now)) == expected  # made again
        assert len(apart_files()) == 1
        assert decisions(run_preview(load_store(root), task, agent, options, now)) == expected  # and kept


def test_files_by_path_is_each_files_path_then_name_later_files_winning():
    """``files_by_path`` (a decision's lookup) is the dict of every file's path and then name, in order: where a
    name spells another file's path (a folder named ``.rawko/memories`` inside the store), the later file wins."""
    from types import SimpleNamespace

    from rawko_tui.core.arbiters.decision import files_by_path

    rng = random.Random(2)
    names = ["a.md", "sub/a.md", ".rawko/memories/a.md", ".rawko/memories/sub/a.md", "b.md"]
    for _ in range(200):
        files = [SimpleNamespace(name=name, rel_path=f".rawko/memories/{name}") for name in rng.sample(names, rng.randint(0, len(names)))]
        files += rng.sample(files, min(len(files), rng.randint(0, 2)))  # a file twice: as two views hold it
        expected = {key: memory for memory in files for key in (memory.rel_path, memory.name)}
        assert files_by_path(files) == expected and list(files_by_path(files)) == list(expected)
        assert all(files_by_path(files)[key] is expected[key] for key in expected)


def test_statuses_at_once_are_each_files_own(tmp_path, monkeypatch):
    """``statuses_of`` answers the files the parse cache says set no lifecycle field at once, and the rest as
    ``status_of`` does: retired or superseded in the first frontmatter, by an appended entry, or not at all."""
    from rawko_tui.core.disk import cache
    from rawko_tui.core.store.columnar import LazySpecView, sets_no_lifecycle
    from rawko_tui.core.store.fold import status_of, statuses_of

    monkeypatch.setattr(cache, "RACY_NS", 0)  # the test's files are seconds old: let the cache trust them
    root = hostile_store(tmp_path)
    extra = {
        "w-retired-first.md": memory(title="Retired at once", extra="status: retired\nreason: wrong"),
        "x-superseded-first.md": memory(title="Superseded at once", extra="supersededBy: a-plain.md"),
        "y-status-active.md": memory(title="Status said", extra="status: active"),
        "z-superseded-later.md": memory(title="Superseded later") + "\n\n---\nsupersededBy: a-plain.md\n---\n\nSee a-plain.\n",
    }
    for name, text in extra.items():
        (root / ".rawko" / "memories" / name).write_text(text, encoding="utf-8")
    load_store(root)  # parses and keeps every file
    store = load_store(root)  # from the cache
    assert any(type(m.spec) is LazySpecView for m in store.files)
    unset = sets_no_lifecycle(store.files)
    assert any(unset) and not all(unset)
    statuses = statuses_of(store.files)
    assert statuses == [status_of(m) for m in store.files]
    assert {m.name for m, s in zip(store.files, statuses) if not s.active} >= {"w-retired-first.md", "x-superseded-first.md", "z-superseded-later.md", "t-retired.md"}


def test_a_lookup_by_path_looks_through_once_and_maps_from_the_second():
    """``FilesByPath`` answers as ``files_by_path`` does, whether it looks through the files (the first lookup) or
    has mapped them (every later one)."""
    from types import SimpleNamespace

    from rawko_tui.core.arbiters.decision import FilesByPath, files_by_path

    rng = random.Random(8)
    names = ["a.md", "sub/a.md", ".rawko/memories/a.md", ".rawko/memories/sub/a.md", "b.md"]
    keys = names + [f".rawko/memories/{name}" for name in names] + ["c.md", ""]
    for _ in range(200):
        files = [SimpleNamespace(name=name, rel_path=f".rawko/memories/{name}") for name in rng.sample(names, rng.randint(0, len(names)))]
        files += rng.sample(files, min(len(files), rng.randint(0, 2)))
        expected = files_by_path(files)
        lookup = FilesByPath(files)
        asked = rng.sample(keys, 3)
        assert [lookup.get(key) for key in asked] == [expected.get(key) for key in asked]
        assert lookup.mapped is not None


def test_compact_places_answer_as_the_dicts_do():
    """A large store's lookups (``places``: sorted arrays, from ``COMPACT_FROM`` files) answer as the dicts a small
    store's make: each file's place by its object (a file listed twice: its last place), each file by path or name
    (later files over earlier ones)."""
    from types import SimpleNamespace

    from rawko_tui.core.arbiters.decision import files_by_path
    from rawko_tui.core.arbiters.places import FilesByKey, PlacesById

    rng = random.Random(4)
    names = ["a.md", "sub/a.md", ".rawko/memories/a.md", ".rawko/memories/sub/a.md", "b.md", "é.md", "\udcff.md"]
    keys = names + [f".rawko/memories/{name}" for name in names] + ["c.md", ""]
    for _ in range(300):
        files = [SimpleNamespace(name=name, rel_path=f".rawko/memories/{name}") for name in rng.sample(names, rng.randint(0, len(names)))]
        files += rng.sample(files, min(len(files), rng.randint(0, 3)))  # a file twice: as two views hold it
        rng.shuffle(files)
        by_id = {id(item): place for place, item in enumerate(files)}
        compact = PlacesById(files)
        for item in [*files, SimpleNamespace()]:
            assert compact.get(id(item)) == by_id.get(id(item))
            if id(item) not in by_id:
                with pytest.raises(KeyError):
                    compact[id(item)]
        expected, lookup = files_by_path(files), FilesByKey(files)
        assert all(lookup.get(key) is expected.get(key) for key in keys)


def test_a_large_stores_compact_lookups_make_the_same_comparison(tmp_path, monkeypatch):
    """Every profile's decisions and the comparison of them are the same whether the lookups are dicts or the
    arrays a large store gets (``COMPACT_FROM`` lowered to every store)."""
    from rawko_tui.core.arbiters import places
    from rawko_tui.core.arbiters import decision as decision_module
    from rawko_tui.core.arbiters.compare import compare_profiles
    from rawko_tui.core.arbiters.profiles import defined_profiles

    def made(root):
        store = load_store(root)
        profiles = list(defined_profiles(store.config)[0].values())
        comparison = compare_profiles(store, "fix the login token", "developer", profiles, NOW)
        return comparison.to_dict(), {name: decisions(preview) for name, preview in comparison.previews.items()}

    for root in (hostile_store(tmp_path / "hostile"), random_store(tmp_path / "generated", seed=6, now_ms=NOW, size=300)):
        expected = made(root)
        with monkeypatch.context() as compact:
            compact.setattr(places, "COMPACT_FROM", 0)
            compact.setattr(decision_module, "COMPACT_FROM", 0)
            assert made(root) == expected
