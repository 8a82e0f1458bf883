"""Each arbiter profile reproduces its arbiter exactly, compared with that arbiter's code run on node.

* spec-0007: tests/oracle/spec_arbiter.js (and test_oracle.py, unchanged);
* rawko-sdk: tests/oracle/sdk_arbiter.js, rawko-sdk's loader and injection with npm yaml 2.8.2;
* spec-0005: tests/oracle/spec0005_arbiter.js, SPEC-0005's own arbiter.

Every case compares, per store, task and agent: the injected memories and
their order, every score component (for the scoring arbiters), the scores of
every memory that passed the gates, which files are loaded and which skipped,
the prompt bytes, and rawko-sdk's planning prompt -- and the fast path
against the reference loop.
"""

from __future__ import annotations

import math
import random
from pathlib import Path

import pytest

from conftest import FIXED_NOW, memory, write_store
from rawko_tui.core import records
from rawko_tui.core.arbiters.decision import COMPONENT_KEYS, REASON_SKIPPED, ArbiterOptions, parse_now
from rawko_tui.core.arbiters.loaders import load_view
from rawko_tui.core.arbiters.profiles import BUILT_IN
from rawko_tui.core.arbiters.ranking import run_preview, run_preview_reference
from rawko_tui.core.js.yaml2 import load_yaml12
from rawko_tui.core.js.values import UNDEFINED, JsDate
from rawko_tui.core.store.loading import load_store
from rawko_tui.core.js.jsyaml import YamlError
from storegen import AGENTS, disagreeing_memories, random_store, random_task, sdk_style_files, sdk_task

NOW_MS = parse_now(FIXED_NOW)
SEED_EXAMPLES = Path(__file__).parent / "data" / "seed_examples"
SCRIPTS = {"spec-0007": "spec_arbiter.js", "rawko-sdk": "sdk_arbiter.js", "spec-0005": "spec0005_arbiter.js"}
PROFILES = tuple(SCRIPTS)


def profile_with_order(name: str, order: str):
    profile = BUILT_IN[name]
    return records.replace(profile, loader=records.replace(profile.loader, order=order))


def compare(oracle, root: Path, name: str, queries: list[tuple[str, str, dict]], order: str = "name", now_ms: float = NOW_MS, at_a_time: int | None = None) -> int:
    """Run each (task, agent, options) through the profile and its oracle (``at_a_time`` requests per run of it) and assert they agree."""
    store = load_store(root)
    profile = profile_with_order(name, order)
    requests = []
    for task, agent, options in queries:
        request = {"root": str(root), "task": task, "agentName": agent, "now": now_ms, "order": order}
        if options:
            request["options"] = options
        requests.append(request)
    expected = oracle.run(requests, SCRIPTS[name], at_a_time)
    view = load_view(store, profile, False)
    for (task, agent, options), want in zip(queries, expected, strict=True):
        arbiter_options = ArbiterOptions(max_memories=options.get("maxMemories"), min_importance=options.get("minImportance"), profile=profile)
        got = run_preview(store, task, agent, arbiter_options, now_ms)
        reference = run_preview_reference(store, task, agent, arbiter_options, now_ms)
        where = f"{name}: store {root.name}, task {task!r}, agent {agent!r}, options {options}, {order} order"
        assert [c.path for c in got.injected] == [c.path for c in reference.injected], where + " (fast path and reference differ)"
        assert got.prompt == reference.prompt, where
        if name == "rawko-sdk":
            skipped = sorted(c.path for c in got.candidates if c.reason == REASON_SKIPPED)
            assert skipped == sorted(want["skipped"]), where
        if want["error"]:
            assert got.arbiter_failure is not None, f"{where}: the code throws {want['error']} but rawko-tui saw no failure"
            stage = {"load": ("load",), "rank": ("score", "match"), "format": ("format",)}[want["error"]["stage"]]
            assert got.arbiter_failure.stage in stage, where
            assert got.arbiter_failure.profile == name, where
            if want["error"]["stage"] != "load":  # YAML error texts differ between parsers; TypeErrors do not
                assert got.arbiter_failure.error == want["error"]["message"], where
            continue
        assert got.arbiter_failure is None, f"{where}: rawko-tui reports {got.arbiter_failure} but the code ran"
        if "loaded" in want:
            assert [m.rel_path for m in view.loaded] == want["loaded"], where
        assert [c.path for c in got.injected] == [i["path"] for i in want["injected"]], where
        if profile.scored:
            for candidate, item in zip(got.injected, want["injected"], strict=True):
                assert candidate.score == item["score"], where
                assert {k: candidate.components[k] for k in COMPONENT_KEYS} == item["components"], where
            considered = sorted((c for c in got.candidates if c.rank is not None), key=lambda c: c.rank)
            assert [(c.path, c.score) for c in considered] == [(i["path"], i["score"]) for i in want["considered"]], where
        assert got.prompt == want["prompt"], where
        if profile.plan_prompt:
            assert got.plan_prompt == want["planPrompt"], where
    return len(queries)


SEED_TASKS = [
    "Add OAuth integration to existing auth system",
    "Implement password reset feature",
    "add an api for the login",
    "find the file that handles login",
    "exploring the codebase to locate the auth module",
    "Writing Express handlers for session management",
    "",
    "  leading white space matches every title",
]


@pytest.mark.parametrize("name", PROFILES)
def test_seed_examples_reproduce_exactly(tmp_path, oracle, name):
    blocks = [p.read_text(encoding="utf-8") for p in sorted(SEED_EXAMPLES.glob("seed-*.md"))]
    write_store(tmp_path, {f"seed-{i:02d}.md": block for i, block in enumerate(blocks)})
    queries = [(t, a, {}) for t in SEED_TASKS for a in ("developer", "planner", "tester", "reviewer", "custom")]
    assert compare(oracle, tmp_path, name, queries) == len(queries)


@pytest.mark.parametrize("seed", range(40))
def test_generated_stores_reproduce_exactly(tmp_path, oracle, seed):
    """40 stores of every kind of memory file, 12 tasks each, under every profile."""
    root = random_store(tmp_path, seed, NOW_MS)
    rng = random.Random(2000 + seed)
    queries = [(random_task(rng), rng.choice(AGENTS), {}) for _ in range(12)]
    for name in PROFILES:
        compare(oracle, root, name, queries)


@pytest.mark.parametrize("seed", range(40))
def test_stores_written_as_rawko_sdk_writes_reproduce_exactly(tmp_path, oracle, seed):
    """40 stores written by rawko-sdk's own writer (appends, mixed-case tags), with short words and white space in tasks."""
    rng = random.Random(3000 + seed)
    texts = oracle.run(sdk_style_files(rng, NOW_MS, rng.randint(4, 30)), "sdk_write.js")
    write_store(tmp_path, {f"{chr(97 + i % 26)}{i}-memory.md": text for i, text in enumerate(texts)})
    queries = [(sdk_task(rng), rng.choice(AGENTS[:4]), {}) for _ in range(12)]
    order = "directory" if seed % 2 else "name"
    for name in PROFILES:
        compare(oracle, tmp_path, name, queries, order)


@pytest.mark.usefixtures("gigabyte_at_a_time")  # its worker and node hold 0.6 GB: never beside a command of gigabytes
def test_hostile_catalogue_reproduces_exactly(tmp_path, oracle):
    from hostile import CASES, make_store

    # rawko-tui refuses to expand alias bombs and nesting beyond 100 levels, which js-yaml reads: those
    # files are reported, not modelled (test_refused_files_are_reported_under_every_profile)
    refused = {"alias-bomb.md", "deep-block.md", "deep-flow.md"}
    root = make_store(tmp_path, [case for case in CASES if case.group != "git" and case.name not in refused])
    queries = [(task, agent, {}) for task in ("implement auth", "fix the login", "  ") for agent in ("developer", "tester")]
    for name in PROFILES:
        compare(oracle, root, name, queries, at_a_time=1)  # a store of 35 MB: node holds what one request read


# --------------------------------------------------------------------------
# YAML: npm yaml 2.8.2 against js-yaml, row by row (ARBITERS.md)
# --------------------------------------------------------------------------

YAML_ROWS = [
    "a: 2026-01-23T10:30:00.000Z",
    "a: !!timestamp 2026-01-23",
    "title: 2026-01-23",
    "a: yes\nb: no\nc: on\nd: off",
    "a: True\nb: FALSE",
    "a: 0123\nb: 0o17\nc: 0x1F",
    "a: 0b101",
    "a: 1_000",
    "a: 1\na: 2",
    "base: &b {x: 1}\nc:\n  <<: *b\n  y: 2",
    "a: &x 1\nb: [" + ", ".join(["*x"] * 99) + "]",
    "a: &x 1\nb: [" + ", ".join(["*x"] * 100) + "]",
    "a: &x [1, 2]\nb: [" + ", ".join(["*x"] * 100) + "]",
    "a: !!python/object:os.system x",
    "a: !custom [1, 2]",
    "a: !!binary aGVsbG8=",
    "null: 1",
    "a: !!float 1\nb: !!int '7'\nc: !!bool yes",
    "a: 5.\nb: .5\nc: 1e3\nd: -.inf\ne: +12\nf: +0x1F",
    "",
    "# only a comment",
    "- a\n- b",
    "title: x\ntags: [Testing, QUALITY]\nwhenToUse:\n  - auth|login\n  - pattern: x",
    "a: !!set {x, y}",
    "a: !!omap [{a: 1}, {b: 2}]",
]


def _typed(value: object) -> object:
    """A Python value in the oracle's JSON shape."""
    if isinstance(value, JsDate):
        return {"$date": None if math.isnan(value.ms) else value.ms}
    if isinstance(value, bytes):
        return {"$bytes": list(value)}
    if isinstance(value, float) and not math.isfinite(value):
        return {"$number": "NaN" if math.isnan(value) else ("Infinity" if value > 0 else "-Infinity")}
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, list):
        return [_typed(v) for v in value]
    if isinstance(value, dict) and set(value) == {"__set__"}:  # a JavaScript Set
        return {"$set": [_typed(v) for v in value["__set__"]]}
    if isinstance(value, dict) and set(value) == {"__map__"}:  # a JavaScript Map (!!omap, !!pairs)
        return {"$map": [[k, _typed(v)] for item in value["__map__"] for k, v in item.items()]}
    if isinstance(value, dict):
        return {k: _typed(v) for k, v in value.items()}
    return {"$undefined": True} if value is UNDEFINED else value


def test_yaml_12_reads_as_npm_yaml_does(oracle):
    expected = oracle.run(YAML_ROWS, "yaml_probe.js")
    for document, want in zip(YAML_ROWS, expected, strict=True):
        if "error" in want:
            with pytest.raises(YamlError):
                load_yaml12(document)
            continue
        assert _typed(load_yaml12(document)) == want["value"], document


# --------------------------------------------------------------------------
# Where rawko-sdk and spec-0007 disagree, row by row (ARBITERS.md)
# --------------------------------------------------------------------------

GOOD = memory(title="Good Auth", when='"auth"', tags="[auth]", importance="high")
DIFFERENCES = {
    "crlf": GOOD.replace("\n", "\r\n"),
    "bom": "\ufeff" + GOOD,
    "dots-closer": GOOD.replace("\n---\n", "\n...\n", 1),
    "closer-with-text": GOOD.replace("\n---\n", "\n---Body\n", 1),
    "closer-four-dashes": GOOD.replace("\n---\n", "\n----\n", 1),
    "no-closer": GOOD.split("\n---\n", 1)[0] + "\nbody without a closing line\n",
    "no-frontmatter": "# Just a heading\n\nNo frontmatter at all.\n",
    "blank-line-first": "\n" + GOOD,
    "trailing-space-opener": GOOD.replace("---\n", "--- \n", 1),
    "empty-frontmatter": "---\n---\nbody\n",
    "body-white-space": GOOD.replace("---\n\n", "---\n   \n  indented first line\n", 1) + "\n\n   \n",
    "yaml-error": "---\ntitle: [unclosed\nwhenToUse: auth\n---\nbody\n",
    "tags-missing": memory(title="No tags", when='"auth"', importance="high", tags=None),
    "tags-not-list": memory(title="Tag text", when='"auth"', tags="auth", importance="high"),
    "importance-capital": memory(title="Capital", when='"auth"', tags="[auth]", importance="High"),
    "discoverer-missing": memory(title="Nobody", when='"auth"', tags="[auth]", importance="high", by=None),
    "numeric-title": memory(title="42", when='"auth"', tags="[auth]", importance="high"),
    "mixed-case-tags": memory(title="Tester tags", when='"auth"', tags="[Testing, QUALITY, Validation]", importance="low"),
    "fourth-tag": memory(title="Planner tag", when='"auth"', tags="[architecture]", importance="low"),
    "non-string-tags": memory(title="Odd tags", when='"auth"', tags="[auth, 2024, null]", importance="high"),
    "short-words": memory(title="Adding an API for the Login handler", when='"auth"', tags="[auth]", importance="high"),
    "title-block-scalar-last": '---\nwhenToUse: ["auth"]\ntags: [auth]\nimportance: high\ndiscoveredAt: 2026-01-23T10:30:00Z\ntitle: >\n  Alpha notes\n---\n\nbody\n',
    "discoverer-block-scalar-last": '---\ntitle: Alpha notes\nwhenToUse: ["auth"]\ntags: [auth]\nimportance: high\ndiscoveredBy: |\n  developer\n---\n\nbody\n',
    "non-specific-tag": memory(title="! 12", when='"auth"', tags="[auth]", importance="high"),
    "anchor-defined-twice": memory(title="&t Twice", when='"auth"', tags="[auth]", importance="high", extra="other: *t\nagain: &t Again\nlast: *t"),
    "jekyll-date": memory(title="Jekyll date", when='"auth"', tags="[auth]", at="2026-01-20 10:00:00 +0100"),
    "month-name-date": memory(title="Month name", when='"auth"', tags="[auth]", at='"Jan 20, 2026"'),
    "rfc-2822-date": memory(title="RFC date", when='"auth"', tags="[auth]", at="Tue, 20 Jan 2026 10:00:00 GMT"),
    "block-header-comment": memory(title="Folded", when='"auth"', tags="[auth]", extra="description: ># note\n  folded text"),
    "flow-dash": memory(title="Flow dash", when='"auth"', tags="[auth]", extra="extra: [-]"),
    "quote-then-comment": memory(title='"Alpha notes"# note', when='"auth"', tags="[auth]"),
    "quoted-line-not-indented": memory(title="Partners", when='"auth"', tags="[auth]", extra='about:\n  text: "first line\n\n  second line\n"'),
    "surrogate-escapes": memory(title='"Rocket \\ud83d\\ude80 launch"', when='"auth"', tags="[auth]"),
    "rolled-over-date": memory(title="Rolled", when='"auth"', tags="[auth]", at="2025-13-45T10:00:00Z"),
}
TASKS = ["add an api for the login auth", "  implement auth  ", "auth"]


@pytest.mark.parametrize("case", sorted(DIFFERENCES))
def test_each_difference_row_matches_both_arbiters(tmp_path, oracle, case):
    write_store(tmp_path, {"a-good.md": memory(title="Good one", when='"auth"', tags="[auth]"), f"b-{case}.md": DIFFERENCES[case]})
    queries = [(task, agent, {}) for task in TASKS for agent in ("tester", "planner", "developer")]
    for name in PROFILES:
        compare(oracle, tmp_path, name, queries)


def test_rawko_sdk_skips_where_spec_0007_throws(tmp_path):
    write_store(tmp_path, {"a.md": GOOD, "b.md": DIFFERENCES["no-closer"]})
    store = load_store(tmp_path)
    spec = run_preview(store, "implement auth", "developer", ArbiterOptions(), NOW_MS)
    sdk = run_preview(store, "implement auth", "developer", ArbiterOptions(profile=BUILT_IN["rawko-sdk"]), NOW_MS)
    assert spec.arbiter_failure is not None and spec.arbiter_failure.stage == "load"
    assert sdk.arbiter_failure is None
    skipped = sdk.candidate("b.md")
    assert skipped.reason == REASON_SKIPPED
    assert "rawko-sdk skips this file" in skipped.explanation.description


def test_explanations_name_the_profiles_rule(tmp_path):
    write_store(
        tmp_path,
        {
            "adding.md": DIFFERENCES["short-words"],
            "no-tags.md": DIFFERENCES["tags-missing"],
            "regex.md": memory(title="Finder", when='"find.*file|locate.*module"', tags="[code]"),
        },
    )
    store = load_store(tmp_path)
    sdk = run_preview(store, "add an api for the login auth", "developer", ArbiterOptions(profile=BUILT_IN["rawko-sdk"]), NOW_MS)
    tree = sdk.candidate("adding.md").explanation
    words = [d.description for node in tree.details for d in node.details]
    assert "'add', 'an', 'api', 'for', 'the' earn nothing under rawko-sdk: it counts only words longer than 3 characters" in words
    one = run_preview(store, "api", "developer", ArbiterOptions(profile=BUILT_IN["rawko-sdk"]), NOW_MS).candidate("adding.md")
    assert "'api' earns nothing under rawko-sdk: it counts only words longer than 3 characters" in [d.description for n in one.explanation.details for d in n.details]
    assert sdk.candidate("no-tags.md").explanation.description == "not injected: rawko-sdk skips this file: `tags` is missing (its validation gate)"
    spec0005 = run_preview(store, "find the config file", "developer", ArbiterOptions(profile=BUILT_IN["spec-0005"]), NOW_MS)
    found = spec0005.candidate("regex.md")
    assert found.injected
    pattern = found.explanation.details[0].details[0].description
    assert "under spec-0005 a pattern with '|' or '*' is a regular expression" in pattern
    spec = run_preview(store, "find the config file", "developer", ArbiterOptions(), NOW_MS)
    assert not spec.candidate("regex.md").matched  # SPEC-0007 reads it as two literal alternatives


def test_refused_files_are_reported_under_every_profile(tmp_path):
    from hostile import CASES, make_store

    root = make_store(tmp_path, [case for case in CASES if case.name in ("alias-bomb.md", "deep-flow.md")])
    store = load_store(root)
    for name in PROFILES:
        preview = run_preview(store, "implement auth", "developer", ArbiterOptions(profile=BUILT_IN[name]), NOW_MS)
        for path in ("alias-bomb.md", "deep-flow.md"):
            decision = preview.candidate(path)
            assert not decision.injected and not decision.loaded, (name, path)
            if name == "spec-0005" and path == "alias-bomb.md":  # read unexpanded: it has no whenToUse, so matching throws
                assert "matching throws on it (TypeError: Cannot read properties of undefined (reading 'includes'))" in decision.explanation.description
                assert preview.arbiter_failure is not None and preview.arbiter_failure.path == ".rawko/memories/alias-bomb.md"
                continue
            assert "refused" in decision.explanation.description or "skips" in decision.explanation.description, (name, path)
        assert [c.path for c in preview.injected] == [".rawko/memories/good-auth.md"], name


# --------------------------------------------------------------------------
# compare: every differing memory, with the first rule that makes it differ
# --------------------------------------------------------------------------

DISAGREEING = {
    **disagreeing_memories(),
    "plain.md": memory(title="Plain login note", when='"login"', tags="[auth]", importance="low"),
    "plain2.md": memory(title="Another login note", when='"login"', tags="[auth]", importance="low"),
}


def test_compare_names_the_deciding_rule_for_every_differing_memory(tmp_path):
    from rawko_tui.core.arbiters.compare import compare_profiles, summary_line

    write_store(tmp_path, DISAGREEING)
    comparison = compare_profiles(load_store(tmp_path), "add an api to find the login", "tester", list(BUILT_IN.values()), NOW_MS)
    rules = {d.path.rsplit("/", 1)[-1]: d.rule for d in comparison.differences}
    injected = {name: {c.file.name for c in p.injected} for name, p in comparison.previews.items()}
    every = set().union(*injected.values())
    assert set(rules) == every  # each of these memories is injected somewhere and its fate differs
    assert rules["no-tags.md"] == "loading: under rawko-sdk, rawko-sdk skips this file: `tags` is missing (its validation gate)"
    assert rules["capital.md"].startswith("loading: under rawko-sdk, rawko-sdk skips this file: `importance: High`")
    assert rules["adding-api.md"].startswith("score: keywords 20 under spec-0007, 5 under rawko-sdk")
    assert rules["tester-tags.md"].startswith("score: agent tags 0 under spec-0007, 15 under rawko-sdk")
    assert rules["regex.md"].startswith("matching: a whenToUse pattern matches under spec-0005 but not under spec-0007, rawko-sdk")
    assert rules["plain.md"].startswith("the cut: the same score (15)")
    for difference in comparison.differences:
        assert len(difference.decisions) == 3 and difference.rule
    line = summary_line(comparison, "spec-0007")
    assert line == "rawko-sdk: −no-tags · spec-0005: +capital +regex"
    assert summary_line(comparison, "rawko-sdk") == "spec-0007: +no-tags · spec-0005: +capital +no-tags +regex"
    assert summary_line(comparison, "rawko-sdk", limit=2) == "spec-0007: +no-tags · spec-0005: 7 injected (+3 −0)"


def test_a_ranking_kept_for_its_outcome_lets_its_index_go(tmp_path):
    """What spec-0005 injects keeps its facts, not the index they were made from: a comparison held by the app
    (its Others line) kept every other profile's index alive until the next one replaced it."""
    import gc
    import weakref

    write_store(tmp_path, DISAGREEING)
    store = load_store(tmp_path).with_own_indexes()
    options = ArbiterOptions(profile=BUILT_IN["spec-0005"])
    preview = run_preview(store, "add an api to find the login", "tester", options, NOW_MS)
    index = weakref.ref(next(value for key, value in store._indexes.items() if key[0] == "spec-0005 index"))
    expected = [(c.path, c.facts.title, [plan.pattern for _, plan in c.facts.plans]) for c in preview.injected]
    store._indexes.clear()
    preview.injected[0]._facts = None  # one whose facts were never asked for: made when the index is let go
    preview.keep_outcome_only()
    gc.collect()
    assert index() is None
    assert [(c.path, c.facts.title, [plan.pattern for _, plan in c.facts.plans]) for c in preview.injected] == expected


def test_compare_command_text_and_json(tmp_path, capsys):
    import json

    from rawko_tui.cli import main

    write_store(tmp_path, DISAGREEING)
    assert main(["compare", str(tmp_path), "--task", "add an api to find the login", "--agent", "tester", "--now", FIXED_NOW, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert set(data["profiles"]) == set(PROFILES)
    assert {d["path"] for d in data["differences"]} >= {".rawko/memories/no-tags.md", ".rawko/memories/regex.md"}
    assert all(d["rule"] and len(d["decisions"]) == 3 for d in data["differences"])
    assert main(["compare", str(tmp_path), "--task", "find the login", "--agent", "tester", "--now", FIXED_NOW, "--arbiters", "spec-0007,rawko-sdk"]) == 0
    text = capsys.readouterr().out
    assert "spec-0005" not in text and "first difference: loading: under rawko-sdk" in text
    assert main(["compare", str(tmp_path), "--task", "x", "--arbiters", "spec-0007,nope"]) == 2
    assert "unknown profile 'nope'" in capsys.readouterr().err


def test_every_command_takes_arbiter_and_the_store_chooses_one(tmp_path, capsys):
    import json

    from rawko_tui.cli import main

    write_store(tmp_path, DISAGREEING)
    task = ["--task", "find the login", "--agent", "tester", "--now", FIXED_NOW, "--json"]
    main(["preview", str(tmp_path), *task, "--arbiter", "rawko-sdk"])
    data = json.loads(capsys.readouterr().out)
    assert data["arbiter"]["name"] == "rawko-sdk" and data["arbiter"]["source"] == "option"
    assert data["planPrompt"]["memories"] == 5 and data["planPrompt"]["text"].startswith("## Relevant Memories\n\n### ")
    (tmp_path / ".rawko" / "rawko-tui.yaml").write_text("arbiter: spec-0005\n")
    main(["preview", str(tmp_path), *task])
    data = json.loads(capsys.readouterr().out)
    assert data["arbiter"] == {**data["arbiter"], "name": "spec-0005", "source": "rawko-tui.yaml"}
    assert len(data["injected"]) == 7 and data["planPrompt"] is None  # every match: spec-0005 reads find.*login as a regex
    assert {item["score"] for item in data["injected"]} == {None}  # spec-0005 does not score
    shares = data["budget"]["shares"]  # each whole memory's part of the prompt, and the header, make all of it
    assert sum(share["characters"] for share in shares) + len("## Background Knowledge from Previous Runs\n\n") == len(data["prompt"])
    (tmp_path / ".rawko" / "checks.yaml").write_text(
        "tasks:\n"
        "  - task: find the login\n    agent: tester\n    now: '2026-01-24T12:00:00Z'\n    expect: {inject: [capital.md]}\n"
        "  - task: find the login\n    agent: tester\n    arbiter: rawko-sdk\n    now: '2026-01-24T12:00:00Z'\n    expect: {not_inject: [capital.md]}\n"
    )
    assert main(["check", str(tmp_path)]) == 0  # the first under the store's spec-0005, the second under its own rawko-sdk
    capsys.readouterr()
    assert main(["check", str(tmp_path), "--arbiter", "spec-0007"]) == 1  # spec-0007 never injects importance: High
    assert "capital.md must be injected" in capsys.readouterr().out
    assert main(["matrix", str(tmp_path), "--arbiter", "rawko-sdk", "--json"]) == 0
    assert "capital.md" in json.loads(capsys.readouterr().out)["dead"]


def test_a_store_defines_its_own_profile_with_clear_errors(tmp_path, capsys):
    from rawko_tui.cli import main
    from rawko_tui.core.arbiters.profiles import defined_profiles

    config = {"arbiters": {"ours": {"base": "rawko-sdk", "maxMemories": 2, "keywordMinLength": 0, "agentTags": {"tester": ["flaky"]}}}}
    profiles, problems = defined_profiles(config)
    assert problems == [] and profiles["ours"].max_memories == 2 and profiles["ours"].scorer.tags_for("tester") == ("flaky",)
    bad = {
        "arbiters": {
            "a": {"base": "spec-9"},
            "b": {"base": "spec-0005", "maxMemories": 3},
            "c": {"base": "rawko-sdk", "maxMemories": -1},
            "d": {"base": "rawko-sdk", "colour": "red"},
            "spec-0007": {"base": "rawko-sdk"},
        }
    }
    _, problems = defined_profiles(bad)
    assert problems == [
        "rawko-tui.yaml arbiters.a.base: one of spec-0007, rawko-sdk, spec-0005, not 'spec-9'",
        "rawko-tui.yaml arbiters.b.maxMemories: spec-0005 injects every match (no cap to change)",
        "rawko-tui.yaml arbiters.c.maxMemories: a whole number of memories (0 or more), not -1",
        "rawko-tui.yaml arbiters.d: unknown setting 'colour' (a profile may set: maxMemories, minImportance, keywordMinLength, lowerCaseTags, agentTags, order, agentSettings, summary)",
        "rawko-tui.yaml arbiters.spec-0007: a built-in profile's name; give your own profile another name",
    ]
    write_store(tmp_path, DISAGREEING)
    (tmp_path / ".rawko" / "rawko-tui.yaml").write_text("arbiter: ours\narbiters:\n  ours:\n    base: rawko-sdk\n    maxMemories: 2\n")
    assert main(["preview", str(tmp_path), "--task", "find the login", "--agent", "tester", "--now", FIXED_NOW]) == 0
    out = capsys.readouterr().out
    assert "Arbiter: ours (from rawko-tui.yaml)" in out and "Injected (2)" in out
    assert "ours skips this file: `tags` is missing" in out  # its own name, not the built-in's (their views are apart)
    main(["preview", str(tmp_path), "--task", "find the login", "--agent", "tester", "--now", FIXED_NOW, "--arbiter", "rawko-sdk"])
    assert "rawko-sdk skips this file: `tags` is missing" in capsys.readouterr().out
    (tmp_path / ".rawko" / "rawko-tui.yaml").write_text("arbiter: ours\narbiters:\n  ours:\n    base: rawko-sdk\n    maxMemories: lots\n")
    assert main(["preview", str(tmp_path), "--task", "find the login"]) == 2
    assert "profile 'ours' cannot be used: rawko-tui.yaml arbiters.ours.maxMemories: a whole number of memories (0 or more), not 'lots'" in capsys.readouterr().err


# --------------------------------------------------------------------------
# What rawko-tui writes, every arbiter loads
# --------------------------------------------------------------------------


def test_every_file_rawko_tui_writes_loads_under_all_three_profiles(tmp_path, monkeypatch, capsys):
    import shutil
    import subprocess

    from conftest import REPO_ROOT
    from rawko_tui.cli import main
    from rawko_tui.core.curation.claude import Extraction, extraction_file
    from rawko_tui.core.curation.entries import merge_draft, merge_writes
    from rawko_tui.core.record.writer import apply_writes, plan_create

    for key, value in {"GIT_AUTHOR_NAME": "Ada", "GIT_AUTHOR_EMAIL": "a@example.com", "GIT_COMMITTER_NAME": "Ada", "GIT_COMMITTER_EMAIL": "a@example.com"}.items():
        monkeypatch.setenv(key, value)
    root = write_store(tmp_path, {"jwt-tokens.md": memory(title="JWT tokens", body="Tokens expire after 24 hours. " * 10)})
    shutil.copytree(REPO_ROOT / ".rawko" / "sessions", root / ".rawko" / "sessions")
    subprocess.run(["git", "init", "-q", "-b", "main"], cwd=root, check=True)
    subprocess.run(["git", "add", "-A"], cwd=root, check=True)
    subprocess.run(["git", "commit", "-q", "-m", "start"], cwd=root, check=True)
    body = "Refresh tokens rotate on every use and the old one is revoked at once. " * 6
    # new: a date-like title, a pattern YAML would read as a boolean, no tags at all
    assert main(["new", str(root), "--title", "2026-01-23", "--when", "yes", "--when", "refresh|rotate", "--importance", "high", "--by", "developer", "--body", body]) == 0
    assert main(["new", str(root), "--title", "Token rotation: refresh tokens", "--when", "refresh token", "--importance", "medium", "--tags", "Auth,Security", "--by", "tester", "--body", body]) == 0
    assert main(["append", "jwt-tokens.md", str(root), "--body", "Checked again: still 24 hours.", "--set", "importance=critical"]) == 0
    assert main(["promote", "20260123-103000-abc1def2-auth-feature", "decision-001", str(root), "--write"]) == 0
    extraction = Extraction(True, "Rate limits on login", {"importance": "High", "tags": "auth", "whenToUse": [{"pattern": "login|rate limit"}]}, body)
    apply_writes(root, [plan_create(root, "Rate limits on login", extraction_file(extraction, "developer", "add rate limits", "2026-01-24T12:00:00.000Z"))], "extract")
    store = load_store(root)
    originals = ["2026-01-23.md", "token-rotation-refresh-tokens.md"]
    apply_writes(root, merge_writes(root, store, originals, merge_draft([store.file(n) for n in originals]), "reviewer"), "merge")
    assert main(["retire", "jwt-tokens.md", str(root), "--reason", "replaced", "--superseded-by", "rate-limits-on-login.md"]) == 0
    capsys.readouterr()

    store = load_store(root)
    written = [f for f in store.files if f.name != "jwt-tokens.md"]  # the one file this test wrote itself (appended to above)
    assert len(written) == 5
    for memory_file in written:
        data = memory_file.path.read_bytes()
        assert not data.startswith(b"\xef\xbb\xbf") and b"\r" not in data, memory_file.name
        for name in PROFILES:
            view = load_view(store, BUILT_IN[name], False)
            loaded = {m.name: m for m in view.loaded}
            assert memory_file.name in loaded, (name, memory_file.name, [why for m, _, why in view.gated if m.name == memory_file.name])
            attrs = loaded[memory_file.name].attrs
            assert isinstance(attrs["tags"], list) and all(isinstance(t, str) for t in attrs["tags"]), (name, memory_file.name)
            assert attrs["importance"] in ("low", "medium", "high", "critical"), (name, memory_file.name)
            assert isinstance(attrs["discoveredAt"], str) and isinstance(attrs["title"], str), (name, memory_file.name)
            when = attrs["whenToUse"]
            assert all(isinstance(p, str) for p in (when if isinstance(when, list) else [when])), (name, memory_file.name)
    for name in PROFILES:
        preview = run_preview(store, "refresh the login token", "developer", ArbiterOptions(profile=BUILT_IN[name]), NOW_MS)
        assert preview.arbiter_failure is None, name


def test_lint_reports_what_each_profile_does(tmp_path, capsys):
    import json

    from rawko_tui.cli import main

    write_store(
        tmp_path,
        {
            "a-good.md": memory(title="Good", when='"auth"'),
            "b-capital.md": memory(title="Capital", when='"auth"', importance="High"),
            "c-broken.md": "---\ntitle: [unclosed\n---\nbody\n",
            "d-after.md": memory(title="After the stop", when='"auth"'),
            "e-odd-tags.md": memory(title="Odd tags", when='"auth"', tags="[auth, 2024]"),
            "f-no-when.md": memory(title="No patterns", when=None),
        },
    )
    assert main(["lint", str(tmp_path), "--json"]) == 1
    findings = {(f["path"].rsplit("/", 1)[-1], f["code"], f["severity"]): f["message"] for f in json.loads(capsys.readouterr().out)["findings"] if f["code"].startswith("arbiter-")}
    assert findings[("b-capital.md", "arbiter-skips", "info")].startswith("rawko-sdk skips this file: `importance: High`")
    assert findings[("c-broken.md", "arbiter-stops", "info")].startswith("spec-0005 stops loading here (frontmatter is not valid YAML")
    assert "the files after it in name order are never read (3 file(s) here)" in findings[("c-broken.md", "arbiter-stops", "info")]
    assert findings[("e-odd-tags.md", "arbiter-throws", "info")] == (
        "rawko-sdk throws on this file (TypeError: t.toLowerCase is not a function): a run that reaches it injects nothing at all"
    )
    # under the store's own arbiter the same findings are warnings; --arbiter keeps to one profile
    (tmp_path / ".rawko" / "rawko-tui.yaml").write_text("arbiter: rawko-sdk\n")
    main(["lint", str(tmp_path), "--json"])
    codes = {(f["path"].rsplit("/", 1)[-1], f["code"], f["severity"]) for f in json.loads(capsys.readouterr().out)["findings"]}
    assert ("b-capital.md", "arbiter-skips", "warning") in codes and ("c-broken.md", "arbiter-stops", "info") in codes
    main(["lint", str(tmp_path), "--json", "--arbiter", "spec-0005"])
    codes = {(f["path"].rsplit("/", 1)[-1], f["code"], f["severity"]) for f in json.loads(capsys.readouterr().out)["findings"] if f["code"].startswith("arbiter-")}
    assert codes == {("c-broken.md", "arbiter-stops", "warning")}
    assert main(["lint", str(tmp_path), "--arbiter", "nope"]) == 2


@pytest.mark.parametrize("seed", range(6))
def test_the_fast_path_makes_the_reference_decisions_under_every_profile(tmp_path, seed):
    """Every memory's decision, the counts, the failure and the prompt: the indexes against the plain loops."""
    root = random_store(tmp_path, 500 + seed, NOW_MS, size=60)
    store = load_store(root)
    rng = random.Random(seed)
    for name in PROFILES:
        options = ArbiterOptions(profile=BUILT_IN[name])
        for task in [random_task(rng) for _ in range(8)] + ["", "auth"]:
            agent = rng.choice(AGENTS)
            fast = run_preview(store, task, agent, options, NOW_MS)
            slow = run_preview_reference(store, task, agent, options, NOW_MS)
            where = (name, task, agent)
            assert [(c.path, c.reason, c.rank, c.score) for c in fast.candidates] == [(c.path, c.reason, c.rank, c.score) for c in slow.candidates], where
            assert fast.reason_counts == slow.reason_counts, where
            assert (fast.arbiter_failure and fast.arbiter_failure.to_dict()) == (slow.arbiter_failure and slow.arbiter_failure.to_dict()), where
            assert fast.prompt == slow.prompt and fast.plan_prompt == slow.plan_prompt, where


def test_an_agents_memory_settings_apply_under_spec_0007_only(tmp_path, oracle):
    """ARBITERS.md's last row: rawko-sdk calls findRelevantMemories with fixed options (5, low)."""
    files = {f"m{i}.md": memory(title=f"Auth note {i}", when='"auth"', importance="high") for i in range(4)}
    write_store(tmp_path, files, agents={"developer": "---\nname: developer\nmemory:\n  maxInjected: 1\n  minImportance: critical\n---\n"})
    store = load_store(tmp_path)
    from rawko_tui.core.arbiters.decision import resolve_options

    spec = run_preview(store, "auth", "developer", resolve_options(store, "developer", profile=BUILT_IN["spec-0007"]), NOW_MS)
    sdk = run_preview(store, "auth", "developer", resolve_options(store, "developer", profile=BUILT_IN["rawko-sdk"]), NOW_MS)
    assert spec.injected == [] and spec.min_importance == "critical"  # the agent's settings: nothing is critical
    assert len(sdk.injected) == 4 and "developer's memory: settings are not applied: rawko-sdk never reads them." in sdk.notes
    want = oracle.run([{"root": str(tmp_path), "task": "auth", "agentName": "developer", "now": NOW_MS}], "sdk_arbiter.js")[0]
    assert [c.path for c in sdk.injected] == [i["path"] for i in want["injected"]]


@pytest.mark.parametrize("name", PROFILES)
def test_preview_json_equals_the_oracle(tmp_path, oracle, capsys, name):
    """The command a user runs, `preview --arbiter NAME --json`, against the arbiter's own code."""
    import json

    from rawko_tui.cli import main

    root = random_store(tmp_path, 77, NOW_MS, size=25)
    task = "implement the auth middleware for login"
    assert main(["preview", str(root), "--task", task, "--agent", "tester", "--now", FIXED_NOW, "--arbiter", name, "--json"]) == 0
    got = json.loads(capsys.readouterr().out)
    want = oracle.run([{"root": str(root), "task": task, "agentName": "tester", "now": NOW_MS}], SCRIPTS[name])[0]
    assert got["arbiter"]["name"] == name
    if want["error"]:
        assert got["arbiterFailure"] is not None and got["arbiterFailure"]["profile"] == name
        return
    assert got["arbiterFailure"] is None
    assert [i["path"] for i in got["injected"]] == [i["path"] for i in want["injected"]]
    assert got["prompt"] == want["prompt"]
    if name != "spec-0005":
        assert [(i["score"], i["components"]) for i in got["injected"]] == [(i["score"], i["components"]) for i in want["injected"]]
    if name == "rawko-sdk":
        assert sorted(c["path"] for c in got["candidates"] if c["reason"] == REASON_SKIPPED) == sorted(want["skipped"])
        assert got["planPrompt"]["text"] == want["planPrompt"]


def test_the_impact_of_a_change_is_judged_by_the_arbiter_in_force(tmp_path):
    from rawko_tui.core.curation.entries import impact_of_change

    write_store(tmp_path, {"plain.md": memory(title="Plain login note", when='"login"', tags="[auth]", importance="low")})
    store = load_store(tmp_path)
    new = memory(title="Finder", when='"find.*login|locate.*module"', tags="[code]").encode()
    tasks = [("find the login", "tester")]
    assert impact_of_change(store, {"finder.md": new}, tasks, NOW_MS) == []  # spec-0007: two literal alternatives
    added = impact_of_change(store, {"finder.md": new}, tasks, NOW_MS, BUILT_IN["spec-0005"])
    assert [(i.view, i.added) for i in added] == [("spec", (".rawko/memories/finder.md",)), ("effective", (".rawko/memories/finder.md",))]


def test_the_impact_of_a_change_that_makes_the_arbiter_throw_is_that_nothing_is_injected(tmp_path):
    """The editor's and the confirmation's impact judge what the real arbiter does, as `check` does: a throw injects nothing."""
    from rawko_tui.core.curation.entries import impact_of_change

    write_store(tmp_path, {"plain.md": memory(title="Plain login note", when='"login"', tags="[auth]", importance="high")})
    store = load_store(tmp_path)
    broken = b"---\n\ttitle: Tabbed\n---\n\nA frontmatter indented with a tab: js-yaml throws, and so does the whole run.\n"
    [spec, effective] = impact_of_change(store, {"tabbed.md": broken}, [("fix the login", "developer")], NOW_MS)
    assert spec.view == "spec" and spec.removed == (".rawko/memories/plain.md",) and spec.throws_after and not spec.throws_before
    said = spec.describe()
    assert "now throws (" in said and ".rawko/memories/tabbed.md" in said and "injects nothing" in said
    assert effective.throws_after


def _alias_bomb(when: str, title: str = "Bomb") -> str:
    """Nine levels of nine aliases: 387,420,489 strings once expanded, a few hundred bytes as js-yaml shares them."""
    levels = ["a0: &a0 [x, x, x, x, x, x, x, x, x]"] + [f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 9) + "]" for i in range(1, 9)]
    return f"---\ntitle: {title}\n" + "\n".join(levels) + f"\nwhenToUse: {when}\nimportance: high\ndiscoveredBy: developer\n---\n\nbody\n"


@pytest.mark.parametrize(
    "when",
    ["[*a8, *a8]", '["nothing here", *a8]', '["auth", *a8]', "*a8", '[*a0, "auth"]', "{a: *a8}"],
)
@pytest.mark.parametrize("bomb_name", ["a-bomb.md", "z-bomb.md"])
def test_an_alias_bomb_spec_0005_reads_is_decided_without_expanding_it(tmp_path, oracle, when, bomb_name):
    """js-yaml shares aliases, so SPEC-0005's loader reads the bomb at once; its matcher then throws on a list
    of lists (every task fails) or matches a text item first. rawko-tui still never expands it."""
    write_store(tmp_path, {bomb_name: _alias_bomb(when), "m-good.md": memory(title="Good auth", when='"auth"', tags="[auth]")})
    queries = [(task, agent, {}) for task in ("implement auth", "write docs") for agent in ("developer", "tester")]
    compare(oracle, tmp_path, "spec-0005", queries)
    store = load_store(tmp_path)
    assert store.file(bomb_name).refused_by_limit  # the spec view still refuses to expand it


def test_an_alias_bomb_whose_reading_needs_the_expansion_stays_not_modelled(tmp_path):
    write_store(tmp_path, {"a-bomb.md": _alias_bomb('[["|", *a8]]'), "m-good.md": memory(title="Good auth", when='"auth"', tags="[auth]")})
    preview = run_preview(load_store(tmp_path), "implement auth", "developer", ArbiterOptions(profile=BUILT_IN["spec-0005"]), NOW_MS)
    bomb = preview.candidate("a-bomb.md")
    assert bomb is not None and "not modelled" in bomb.why
