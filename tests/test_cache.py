"""The parse cache and incremental reloads: faster, and never trusted over a changed file."""

from __future__ import annotations

import marshal
import os

import pytest
from conftest import FIXED_NOW, memory, write_store
from storegen import random_store

from rawko_tui.core import records
from rawko_tui.core.disk import cache
from rawko_tui.core.arbiters.decision import parse_now
from rawko_tui.core.arbiters.ranking import run_preview
from rawko_tui.core.store.loading import load_store


@pytest.fixture
def settled(monkeypatch):
    """Files written by a test are seconds old at most: let the cache trust them (the racy window is tested apart)."""
    monkeypatch.setattr(cache, "RACY_NS", 0)


def parsed(store) -> list[tuple]:
    """What loading decided about each file."""
    return [
        (
            f.rel_path,
            str(f.location),
            f.name,
            f.top_level,
            f.symlink,
            f.size,
            f.mtime_ns,
            f.signature,
            f.bad_utf8,
            f.single_entry(),
            f.text,
            f.bom,
            repr(f.spec.attrs) if f.spec else None,
            f.spec.body if f.spec else None,
            f.spec.frontmatter_line if f.spec else None,
            f.error,
            [(e.index, e.line, repr(e.frontmatter), e.body) for e in f.entries],
            f.suspect_blocks,
        )
        for f in store.files
    ]


def test_a_warm_load_gives_what_a_fresh_parse_gives(tmp_path, monkeypatch, settled):
    root = random_store(tmp_path / "store", seed=5, now_ms=parse_now(FIXED_NOW), size=150)
    (root / ".rawko" / "memories" / "broken.md").write_text("---\ntitle: [unclosed\n---\n")
    (root / ".rawko" / "memories" / "sub").mkdir()
    (root / ".rawko" / "memories" / "sub" / "nested.md").write_text(memory(title="Nested"))
    (root / ".rawko" / "memories" / "bom.md").write_bytes(b"\xef\xbb\xbf" + memory(title="Bom").encode())
    (root / ".rawko" / "memories" / "bad-utf8.md").write_bytes(memory(title="Bad").encode() + b"\xff tail\n")
    (root / ".rawko" / "memories" / "two.md").write_text(memory(title="Two") + "---\nstatus: retired\n---\n")
    (root / ".rawko" / "memories" / "link.md").symlink_to(root / ".rawko" / "memories" / "two.md")
    first = load_store(root)
    assert cache.cache_path(root).is_file()
    warm = load_store(root)
    monkeypatch.setenv("RAWKO_TUI_CACHE", "off")
    uncached = load_store(root)
    assert parsed(first) == parsed(warm) == parsed(uncached)
    assert [f.read_ns for f in first.files] == [f.read_ns for f in warm.files]
    assert {f.name for f in warm.files if f.bom or f.bad_utf8 or f.symlink or not f.top_level or f.error} >= {"bom.md", "bad-utf8.md", "link.md", "sub/nested.md", "broken.md"}
    assert run_preview(warm, "auth token", "developer").prompt == run_preview(uncached, "auth token", "developer").prompt


def test_a_file_rewritten_with_the_same_size_and_mtime_is_read_again(tmp_path, settled):
    root = write_store(tmp_path, {"a.md": memory(title="Alpha one")})
    path = root / ".rawko" / "memories" / "a.md"
    assert load_store(root).files[0].attrs["title"] == "Alpha one"
    before = os.stat(path)
    path.write_text(memory(title="Alpha two"))  # same length
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))  # and the old modification time
    assert os.stat(path).st_size == before.st_size and os.stat(path).st_mtime_ns == before.st_mtime_ns
    assert load_store(root).files[0].attrs["title"] == "Alpha two"  # the change time gave it away


def test_a_file_changed_just_before_it_was_read_is_not_trusted(tmp_path):
    root = write_store(tmp_path, {"a.md": memory(title="Fresh")})
    first = load_store(root).files[0]
    second = load_store(root).files[0]
    assert second.read_ns > first.read_ns  # read again: it may change again within its timestamp's tick


def test_added_removed_and_changed_files_on_reload(tmp_path, settled):
    root = write_store(tmp_path, {"a.md": memory(title="A"), "b.md": memory(title="B"), "c.md": memory(title="C")})
    before = load_store(root)
    memories = root / ".rawko" / "memories"
    (memories / "b.md").unlink()
    (memories / "d.md").write_text(memory(title="D"))
    (memories / "c.md").write_text(memory(title="C changed"))
    after = load_store(root, previous=before)
    assert [f.name for f in after.files] == ["a.md", "c.md", "d.md"]
    assert after.files[0] is before.files[0]  # unchanged: the very same object, facts and all
    assert after.files[1].attrs["title"] == "C changed"
    assert load_store(root).files[1].attrs["title"] == "C changed"  # and the cache knows it too


def test_a_broken_or_foreign_cache_is_ignored_and_rewritten(tmp_path, settled):
    root = write_store(tmp_path, {"a.md": memory(title="A")})
    load_store(root)
    path = cache.cache_path(root)
    path.write_bytes(b"not a pickle at all")
    assert load_store(root).files[0].attrs["title"] == "A"
    assert cache.load(root)[0]  # rewritten
    import pickle

    texts = pickle.loads(path.read_bytes())["texts"]
    path.write_bytes(pickle.dumps({"code": cache.code_key(), "root": str(root.resolve()), "files": [("a.md", 1, 2)], "texts": texts}))
    assert load_store(root).files[0].attrs["title"] == "A"  # a record of the wrong shape: no cache
    os.chmod(path, 0o666)  # anyone could have written it: never unpickled
    assert cache.load(root) == ([], None)
    assert load_store(root).files[0].attrs["title"] == "A"


def test_a_cache_from_other_parser_code_is_not_used(tmp_path, monkeypatch, settled):
    root = write_store(tmp_path, {"a.md": memory(title="A")})
    load_store(root)
    assert cache.load(root)[0]
    monkeypatch.setattr(cache, "_code_key", "another version")
    assert cache.load(root) == ([], None)


def test_the_cache_can_be_turned_off(tmp_path, monkeypatch):
    monkeypatch.setenv("RAWKO_TUI_CACHE", "off")
    root = write_store(tmp_path, {"a.md": memory(title="A")})
    load_store(root)
    assert not cache.cache_path(root).exists()


def test_an_unwritable_cache_folder_only_costs_speed(tmp_path, monkeypatch):
    blocked = tmp_path / "blocked"
    blocked.write_text("a file where the cache folder should be")
    monkeypatch.setenv("RAWKO_TUI_CACHE_DIR", str(blocked / "cache"))
    root = write_store(tmp_path / "store", {"a.md": memory(title="A")})
    assert load_store(root).files[0].attrs["title"] == "A"


def test_the_cache_lives_outside_the_store(tmp_path, settled):
    root = write_store(tmp_path / "store", {"a.md": memory(title="A")})
    load_store(root)
    assert not any(p.suffix == ".pickle" for p in root.rglob("*"))


def test_pattern_plans_are_remembered_between_runs_and_read_back_the_same(tmp_path, settled):
    from rawko_tui.core.arbiters import patterns
    from rawko_tui.core.arbiters.ranking import run_preview_reference

    root = random_store(tmp_path / "store", seed=9, now_ms=parse_now(FIXED_NOW), size=120)
    store = load_store(root)
    task = "implement the auth flow: ID 12 ünïcode"
    fresh = run_preview(store, task, "developer")
    assert (cache.cache_dir() / "plans.pickle").is_file()
    plans = cache.load_plans()
    assert plans, "the index saved the plans it made"
    # a new run: nothing planned in memory, everything read back from the cache
    patterns.plan_pattern.cache_clear()
    patterns.PLANS.stored = None
    for pattern, record in plans.items():
        read_back = patterns.plan_pattern(pattern)
        assert patterns.plan_record(read_back) == record == patterns.plan_record(patterns._plan(pattern))
    again = run_preview(load_store(root), task, "developer")
    reference = run_preview_reference(load_store(root), task, "developer")
    assert [c.path for c in again.injected] == [c.path for c in fresh.injected] == [c.path for c in reference.injected]
    assert again.prompt == reference.prompt
    assert [(c.path, c.matched, c.score) for c in again.candidates] == [(c.path, c.matched, c.score) for c in reference.candidates]


def test_regex_translations_are_remembered_between_runs_and_read_back_the_same(tmp_path, monkeypatch, settled):
    """A ranking translates the store's patterns and keeps the translations; the next run takes them from the cache."""
    from rawko_tui.core.js import regexp as jsregex
    from rawko_tui.core.lint.linter import lint_store

    from rawko_tui.core.arbiters import patterns

    # what earlier tests of this process translated is in memory: begin as a new process does
    for remembered in (jsregex.compile_js, patterns.plan_pattern, patterns.plan_spec0005_pattern):
        remembered.cache_clear()
    for records in (jsregex.TRANSLATIONS, patterns.PLANS):
        monkeypatch.setattr(records, "stored", None)
        monkeypatch.setattr(records, "new", {})
        monkeypatch.setattr(records, "direct", 0)  # read (none are kept yet), so that what is made is kept
    root = random_store(tmp_path / "store", seed=4, now_ms=parse_now(FIXED_NOW), size=120)
    first = lint_store(load_store(root))
    run_preview(load_store(root), "deploy the api", "developer")
    translations = cache.load_translations()
    assert translations, "the ranking saved the translations it made"
    jsregex.compile_js.cache_clear()
    jsregex.TRANSLATIONS.stored = None

    def no_parsing(*args, **kwargs):
        raise AssertionError("a cached translation was parsed again")

    sources = list(translations)[:50]
    with monkeypatch.context() as patch:
        patch.setattr(jsregex.TRANSLATIONS, "direct", 0)  # read the kept ones at once
        patch.setattr(jsregex._Parser, "parse", no_parsing)
        read_back = [jsregex.compile_js(source, ignore_case) for source, ignore_case in sources]
    jsregex.compile_js.cache_clear()
    jsregex.TRANSLATIONS.stored = {}  # as if there were no cache
    for regex, (source, ignore_case) in zip(read_back, sources, strict=True):
        assert regex == jsregex.compile_js(source, ignore_case)
    jsregex.TRANSLATIONS.stored = None
    jsregex.compile_js.cache_clear()
    assert lint_store(load_store(root)) == first


def test_caches_of_stores_that_no_longer_exist_are_pruned(tmp_path):
    import shutil

    from rawko_tui.core.disk import cache

    kept = write_store(tmp_path / "kept", {"a.md": memory(title="A")})
    gone = write_store(tmp_path / "gone", {"b.md": memory(title="B")})
    from rawko_tui.core.curation.consolidation import termcache
    from rawko_tui.core.curation.consolidation.queue import consolidation_candidates

    consolidation_candidates(load_store(gone), 0)
    assert cache.cache_path(gone).is_file() and cache.cache_path(gone).with_suffix(".root").is_file() and termcache._path(gone).is_file()
    gone_texts = cache._text_files(cache.cache_path(gone))
    assert len(gone_texts) == 1
    shutil.rmtree(gone)
    load_store(kept)  # writing any store's cache prunes the others'
    assert not gone_texts[0].exists()  # its texts go with it
    assert not cache.cache_path(gone).exists() and not cache.cache_path(gone).with_suffix(".root").exists()
    assert not termcache._path(gone).exists()  # the queue's term counts go with it
    assert cache.cache_path(kept).is_file()


def test_lint_findings_are_kept_between_runs_and_equal_a_fresh_lint_at_any_time(tmp_path, monkeypatch, settled):
    """Each file's findings are kept for its very bytes; the one that depends on the time (a future date) is decided per run."""
    from rawko_tui.core.lint import linter as lint

    root = random_store(tmp_path / "store", seed=6, now_ms=parse_now(FIXED_NOW), size=150)
    (root / ".rawko" / "memories" / "future.md").write_text(memory(title="Future", at="2026-06-01T00:00:00Z"))
    (root / ".rawko" / "memories" / "broken.md").write_text("---\ntitle: [unclosed\n---\n")
    nows = [None, parse_now(FIXED_NOW), parse_now("2026-07-01T00:00:00Z")]

    def fresh(now):
        with monkeypatch.context() as off:
            off.setenv("RAWKO_TUI_CACHE", "off")
            return lint.lint_store(load_store(root), now)

    expected = {now: fresh(now) for now in nows}
    def future_of_future_md(findings):
        return [f for f in findings if f.path.endswith("/future.md") and "future" in f.message]

    assert future_of_future_md(expected[nows[1]]) and not future_of_future_md(expected[nows[2]]) and not future_of_future_md(expected[None])
    lint.lint_store(load_store(root))  # keeps every file's findings
    assert cache.load_derived(root, "lint", lint.LINT_MODULES)
    with monkeypatch.context() as patch:  # now nothing is linted again, and every time gets its own findings
        patch.setattr(lint, "_lint_file_at_any_time", lambda memory: pytest.fail(f"linted {memory.name} again"))
        for now in nows:
            assert lint.lint_store(load_store(root), now) == expected[now]
    # a changed file is linted again; a file that is gone is dropped
    (root / ".rawko" / "memories" / "future.md").write_text(memory(title="Future", at="2026-06-01T00:00:00Z", importance="urgent"))
    (root / ".rawko" / "memories" / "broken.md").unlink()
    assert lint.lint_store(load_store(root), nows[1]) == fresh(nows[1])
    assert "broken.md" not in cache.load_derived(root, "lint", lint.LINT_MODULES)
    assert any(f.code == "importance" and f.path.endswith("future.md") for f in fresh(nows[1]))
    # findings kept by other code are not used
    assert cache.load_derived(root, "lint", (*lint.LINT_MODULES, "arbiters/rankindex.py")) == {}


def test_rawko_sdk_readings_are_kept_between_runs_and_equal_a_fresh_reading(tmp_path, monkeypatch, settled):
    from rawko_tui.core.arbiters.decision import ArbiterOptions
    from rawko_tui.core.arbiters import loaders
    from rawko_tui.core.arbiters.profiles import RAWKO_SDK

    root = random_store(tmp_path / "store", seed=8, now_ms=parse_now(FIXED_NOW), size=150)
    (root / ".rawko" / "memories" / "crlf.md").write_bytes(memory(title="Windows").replace("\n", "\r\n").encode())
    (root / ".rawko" / "memories" / "bad-yaml.md").write_text("---\ntitle: [unclosed\n---\nbody\n")

    def reading(store):
        view = loaders.load_view(store, RAWKO_SDK, False)
        return [(m.rel_path, why) for m, _, why in view.gated], [(m.rel_path, repr(m.spec.attrs), m.spec.body, m.spec.frontmatter_text) for m in view.loaded]

    with monkeypatch.context() as off:
        off.setenv("RAWKO_TUI_CACHE", "off")
        expected = reading(load_store(root))
        options = ArbiterOptions(profile=RAWKO_SDK)
        prompt = run_preview(load_store(root), "auth token", "developer", options).prompt
    assert reading(load_store(root)) == expected  # keeps the readings
    with monkeypatch.context() as patch:
        from rawko_tui.core.js import yaml2

        patch.setattr(yaml2, "load_yaml12", lambda text: pytest.fail("parsed again"))
        assert reading(load_store(root)) == expected
        assert run_preview(load_store(root), "auth token", "developer", options).prompt == prompt
    assert any("CRLF" in why for _, why in expected[0]) and any("not valid YAML" in why for _, why in expected[0])
    # the values both readings agree on are one object; where YAML 1.2 reads otherwise (a timestamp stays text) apart
    (root / ".rawko" / "memories" / "quoted.md").write_text(memory(title="Quoted", at='"2026-01-20T00:00:00Z"'))
    (root / ".rawko" / "memories" / "dated.md").write_text(memory(title="Dated", at="2026-01-20T00:00:00Z"))
    for _ in range(2):  # read, then kept
        store = load_store(root)
        spec = {m.name: m.spec.attrs for m in store.files if m.spec is not None}
        sdk = {m.name: m.spec.attrs for m in loaders.load_view(store, RAWKO_SDK, False).loaded}
        assert sdk["quoted.md"] is spec["quoted.md"]
        assert sdk["dated.md"] is not spec["dated.md"] and sdk["dated.md"]["tags"] is spec["dated.md"]["tags"]
        assert sdk["dated.md"]["discoveredAt"] == "2026-01-20T00:00:00Z" != spec["dated.md"]["discoveredAt"]
        assert list(sdk["dated.md"]) == list(spec["dated.md"])


def test_a_rawko_sdk_view_is_kept_whole_while_its_files_are_the_readings_it_was_made_from(tmp_path, monkeypatch, settled):
    """rawko-sdk's view of a store (what it skips and why, what it reads and how) is kept with the store: a start
    whose files are the very readings takes it whole, reading no file's fields; a changed file, a damaged or
    misshapen kept view, or another profile's name makes it again, equal to a reading with no cache."""
    from rawko_tui.core.arbiters import loaders
    from rawko_tui.core.arbiters.profiles import RAWKO_SDK

    root = random_store(tmp_path / "store", seed=11, now_ms=parse_now(FIXED_NOW), size=120)
    folder = root / ".rawko" / "memories"
    (folder / "crlf.md").write_bytes(memory(title="Windows").replace("\n", "\r\n").encode())
    (folder / "bad-yaml.md").write_text("---\ntitle: [unclosed\n---\nbody\n")
    (folder / "upper.md").write_text(memory(title="Shouting", importance="High"))
    (folder / "dated.md").write_text(memory(title="Dated", at="2026-01-20T00:00:00Z", body="\n\n  padded body  \n\n"))
    (folder / "two.md").write_text(memory(title="Two entries") + "---\nimportance: low\n---\nlater\n")

    def reading(store, profile=RAWKO_SDK):
        view = loaders.load_view(store, profile, False)
        gated = [(m.rel_path, reason, why) for m, reason, why in view.gated]
        loaded = [(m.rel_path, repr(m.spec.attrs), m.spec.body, m.spec.frontmatter_text, m.single_entry()) for m in view.loaded]
        return gated, loaded

    def fresh(profile=RAWKO_SDK):
        with monkeypatch.context() as off:
            off.setenv("RAWKO_TUI_CACHE", "off")
            return reading(load_store(root), profile)

    def kept_view(profile=RAWKO_SDK):
        with monkeypatch.context() as patch:
            patch.setattr(loaders, "sdk_outcome", lambda *a: pytest.fail("read a file again"))
            return reading(load_store(root), profile)

    expected = fresh()
    assert any("CRLF" in why for _, _, why in expected[0]) and any("lower case" in why for _, _, why in expected[0])
    assert reading(load_store(root)) == expected  # made, and kept
    assert kept_view() == expected
    # another profile with rawko-sdk's loader: its own words, its own kept view
    renamed = records.replace(RAWKO_SDK, name="team-sdk")
    assert reading(load_store(root), renamed) == fresh(renamed) != expected
    assert kept_view(renamed) == fresh(renamed) and kept_view() == expected
    # a changed file: made again
    (folder / "upper.md").write_text(memory(title="Calm now", importance="high"))
    changed = fresh()
    assert changed != expected and reading(load_store(root)) == changed and kept_view() == changed
    # damaged, or of another shape: made again
    kind = next(p.name.split("-", 1)[0] for p in cache.cache_path(root).parent.iterdir() if p.name.startswith("sdkview"))
    for damage in (b"\x00junk", b"", marshal.dumps([("read", "same")] * len(changed[1])), marshal.dumps([])):
        stored = cache.load_derived(root, kind, loaders.VIEW_MODULES)
        cache.save_derived(root, kind, loaders.VIEW_MODULES, {**stored, "outcomes": damage})
        assert reading(load_store(root)) == changed


def test_plain_derived_values_are_kept_per_file_as_bytes_and_read_back_the_same(tmp_path, settled):
    """rawko-sdk's readings are kept each file apart (``Derived(plain=True)``): read back equal and of the same
    types; a value marshal cannot keep, or kept bytes that are damaged, are made again."""
    root = write_store(tmp_path, {f"m{i}.md": memory(title=f"Memory {i}") for i in range(4)})
    files = load_store(root).files
    values = {"m0.md": ("patch", (("title", "n"), {"n": [1, 1.0, True, -0.0, 10**30, None, "é\udcff"]}), (4, 9)), "m1.md": ("same", None), "m2.md": object()}
    made = []

    def make(memory):
        made.append(memory.name)
        return values.get(memory.name, ("skip", "why"))

    kept = cache.Derived(root, "test", ("disk/cache.py",), plain=True)
    first = [kept.get(memory, make) for memory in files]
    kept.save()
    stored = cache.load_derived(root, "test", ("disk/cache.py",))
    assert set(stored) == {"m0.md", "m1.md", "m3.md"} and all(type(data) is bytes for data in stored.values())
    stored["m3.md"] = stored["m3.md"][:5]  # cut
    cache.save_derived(root, "test", ("disk/cache.py",), stored)
    made.clear()
    again = [cache.Derived(root, "test", ("disk/cache.py",), plain=True).get(memory, make) for memory in files]
    assert made == ["m2.md", "m3.md"]
    assert repr(again) == repr(first) and [type(x) for x in again[0][1][1]["n"]] == [type(x) for x in values["m0.md"][1][1]["n"]]


def test_a_warm_load_leaves_the_texts_in_the_cache_until_they_are_asked_for(tmp_path, monkeypatch, settled):
    """The texts are one mapped file beside the records: a ranking decodes only what it shows, and gets the same text."""
    import pickle

    from rawko_tui.core.store.reading import LazyText

    root = random_store(tmp_path / "store", seed=3, now_ms=parse_now(FIXED_NOW), size=80)
    (root / ".rawko" / "memories" / "bom.md").write_bytes(b"\xef\xbb\xbf" + memory(title="Bom \u00e9\U0001f600").encode())
    (root / ".rawko" / "memories" / "bad-utf8.md").write_bytes(memory(title="Bad").encode() + b"\xff\xfe tail\n")
    fresh = load_store(root)
    warm = load_store(root)
    assert all(isinstance(f._text, LazyText) and f._text._value is None for f in warm.files if not f.symlink)
    preview = run_preview(warm, "auth token", "developer")
    decoded = [f for f in warm.files if isinstance(f._text, LazyText) and f._text._value is not None]
    assert len(decoded) < len(warm.files) // 2  # only what was injected (and shown) was decoded
    assert preview.prompt == run_preview(fresh, "auth token", "developer").prompt
    assert parsed(warm) == parsed(fresh)
    # a rewrite leaves one text file; a text file that is gone (or anyone could write) means no cache, not wrong text
    texts = sorted(cache.cache_dir().glob("texts-*.bin"))
    (root / ".rawko" / "memories" / "new.md").write_text(memory(title="New"))
    load_store(root)
    assert len(sorted(cache.cache_dir().glob("texts-*.bin"))) == 1 and sorted(cache.cache_dir().glob("texts-*.bin")) != texts
    current = cache.cache_dir() / pickle.loads(cache.cache_path(root).read_bytes())["texts"]
    os.chmod(current, 0o666)
    assert cache.load(root) == ([], None)
    current.unlink()
    assert cache.load(root) == ([], None)
    assert parsed(load_store(root))[:3] == parsed(fresh)[:3]


def test_a_few_patterns_are_planned_without_reading_every_kept_plan(tmp_path, monkeypatch, settled):
    """Explaining a handful of memories (the rank index kept) does not read the plans of every pattern ever seen."""
    from rawko_tui.core.js import regexp as jsregex
    from rawko_tui.core.arbiters import patterns

    root = random_store(tmp_path / "store", seed=2, now_ms=parse_now(FIXED_NOW), size=60)
    # plan every pattern through this test's kept records (earlier tests planned them, in other cache folders)
    patterns.plan_pattern.cache_clear()
    monkeypatch.setattr(patterns.PLANS, "stored", None)
    monkeypatch.setattr(patterns.PLANS, "new", {})
    monkeypatch.setattr(patterns.PLANS, "direct", 0)
    run_preview(load_store(root), "auth", "developer")  # keeps plans and translations
    kept = cache.load_plans()
    assert len(kept) >= 5
    monkeypatch.setattr(patterns.PLANS, "stored", None)
    monkeypatch.setattr(patterns.PLANS, "direct", 3)
    monkeypatch.setattr(jsregex.TRANSLATIONS, "stored", None)
    monkeypatch.setattr(jsregex.TRANSLATIONS, "direct", 3)
    patterns.plan_pattern.cache_clear()
    jsregex.compile_js.cache_clear()
    reads = []
    load_shared = cache._load_shared
    monkeypatch.setattr(cache, "_load_shared", lambda name: reads.append(name) or (kept if name == "plans" else load_shared(name)))
    chosen = sorted(kept)[:5]
    plans = [patterns.plan_pattern(pattern) for pattern in chosen]
    assert [name for name in reads if name == "plans"] == ["plans"]  # the first three made directly, then the kept ones read once
    assert [patterns.plan_record(plan) for plan in plans] == [kept[pattern] for pattern in chosen]
    patterns.plan_pattern.cache_clear()
    jsregex.compile_js.cache_clear()


def test_values_kept_per_file_survive_a_run_on_a_revision(tmp_path, settled):
    """Lint of a store read from git blobs (no file of the working tree) does not drop what the working tree's runs kept."""
    import copy

    from rawko_tui.core.lint import linter as lint

    root = random_store(tmp_path / "store", seed=7, now_ms=parse_now(FIXED_NOW), size=30)
    lint.lint_store(load_store(root))
    kept = cache.load_derived(root, "lint", lint.LINT_MODULES)
    assert len(kept) >= 30
    at_revision = load_store(root)
    at_revision.files = [copy.copy(f) for f in at_revision.files]
    for file in at_revision.files:
        file.read_ns = 0  # as load_store_at makes them: no reading of the working tree
    lint.lint_store(at_revision)
    assert cache.load_derived(root, "lint", lint.LINT_MODULES).keys() == kept.keys()


def test_a_store_s_readings_are_named_alike_by_the_load_that_kept_them_and_by_the_next(tmp_path, monkeypatch, settled):
    """``Store.kept_readings`` stands for every file's reading while the files are exactly those the parse cache keeps:
    the load that writes the cache and every later one that finds it name them alike (so tables kept by one are used
    by the next), a changed file names them anew, and a store with a file the cache does not keep has none."""
    from rawko_tui.core import store as store_package
    from rawko_tui.core.arbiters import rankcache
    from rawko_tui.core.arbiters.loaders import load_view
    from rawko_tui.core.arbiters.profiles import BUILT_IN

    root = write_store(tmp_path, {f"m{i}.md": memory(title=f"Memory {i}") for i in range(6)})
    profile = BUILT_IN["spec-0007"]

    def key(store):
        return rankcache._key(store, load_view(store, profile, False), profile)

    cold, warm = load_store(root), load_store(root)
    assert cold.kept_readings is not None and warm.kept_readings == cold.kept_readings
    assert key(warm) == key(cold) and key(warm) is not None
    assert cache.readings_digest(warm.files, warm.kept_readings) != cache.readings_digest(warm.files[1:], warm.kept_readings)
    (root / ".rawko" / "memories" / "m3.md").write_text(memory(title="Memory 3, again"))
    changed, after = load_store(root), load_store(root)
    assert changed.kept_readings not in (None, cold.kept_readings) and after.kept_readings == changed.kept_readings
    assert key(after) == key(changed) != key(cold)
    assert load_store(root, previous=after).kept_readings == after.kept_readings  # a reload that changed nothing
    (root / ".rawko" / "memories" / "m3.md").unlink()
    removed = load_store(root)
    assert removed.kept_readings not in (None, after.kept_readings) and load_store(root).kept_readings == removed.kept_readings
    limited = write_store(tmp_path / "limited", {f"m{i}.md": memory(title=f"Memory {i}") for i in range(3)})
    past_limit = store_package.loading._past_store_limit
    first_size = (limited / ".rawko" / "memories" / "m0.md").stat().st_size
    monkeypatch.setattr(store_package.loading, "_past_store_limit", lambda scanned: past_limit(scanned, limit=first_size))  # one is read
    limited_store = load_store(limited)
    assert [bool(f.read_ns) for f in limited_store.files] == [True, False, False]
    assert limited_store.kept_readings is None and load_store(limited).kept_readings is None
    monkeypatch.setenv("RAWKO_TUI_CACHE", "off")
    assert load_store(root).kept_readings is None


def test_lints_kept_report_writes_what_a_fresh_lint_writes_with_the_findings_made_afresh_in_their_places(tmp_path, monkeypatch, settled, capsys):
    """The second run on the very same readings writes the kept report (no finding made, none sorted), with a date
    still to come, the journal's, the settings', the store's other files' and the person's findings each in its
    place; a store with a line that is not printable as it is is shown line by line, as ever."""
    from rawko_tui.cli import main
    from rawko_tui.core.lint import linter

    root = random_store(tmp_path / "store", seed=8, now_ms=parse_now(FIXED_NOW), size=120)
    memories = root / ".rawko" / "memories"
    (memories / "future.md").write_text(memory(title="Future", at="2026-06-01T00:00:00Z"))
    (memories / "été.md").write_text(memory(title="Été à Paris", when='"paris"'))
    # findings of one path, severity and line, whose order is the order lint_store lists them in: a file's own
    # "no discoveredBy" before the store-wide duplicate-title; a flow mapping's fields have no line of their own, so
    # its date still to come goes before its "no discoveredBy" as each file's own findings are listed
    for name in ("same-a.md", "same-b.md"):
        (memories / name).write_text(memory(title="Same title", by=None))
    (memories / "flow.md").write_text('---\n{title: Flow, whenToUse: "auth", importance: high, discoveredAt: "2026-06-01T00:00:00Z"}\n---\n\nBody.\n')
    (root / ".rawko" / "checks.yaml").write_text("tasks: [\n")  # a saved-tasks finding, made afresh on each run
    (root / ".rawko" / "agents").mkdir()
    (root / ".rawko" / "agents" / "developer.md").write_text("---\nmemory: 3\n---\n")  # an agent-config finding
    person = tmp_path / "person.yaml"
    person.write_text("theme: [\n")
    monkeypatch.setenv("RAWKO_TUI_CONFIG", str(person))

    def lint(*argv, cache="on"):
        with monkeypatch.context() as patch:
            patch.setenv("RAWKO_TUI_CACHE", cache)
            code = main(["lint", str(root), *argv])
        out, err = capsys.readouterr()
        return code, out, err

    times = [(), ("--now", FIXED_NOW), ("--now", "2026-07-01T00:00:00Z"), ("--arbiter", "spec-0005", "--now", FIXED_NOW)]
    expected = {argv: lint(*argv, cache="off") for argv in times}
    def future_of_future_md(out):
        return [line for line in out.splitlines() if line.startswith(".rawko/memories/future.md") and "in the future" in line]

    assert future_of_future_md(expected[times[1]][1]) and not future_of_future_md(expected[times[2]][1])
    assert all(said in expected[()][1] for said in ("[saved-tasks]", "[agent-config]", f"{person}:", "été.md"))
    for argv in times:  # one report is kept per store: another --arbiter's makes its own
        assert lint(*argv) == expected[argv]  # the findings made and kept (unless kept already), the report made from them
        with monkeypatch.context() as patch:
            patch.setattr(linter, "lint_store", lambda *a, **k: pytest.fail("linted again"))
            assert lint(*argv) == expected[argv]
    # a file name with a tab: every line is shown by inline, from the findings
    (memories / "tab\there.md").write_text(memory(title="Tab"))
    shown = lint(cache="off")
    assert "tab␉here.md" in shown[1]
    assert lint() == shown and lint() == shown


@pytest.mark.parametrize("encoding", ["utf-8", "latin-1"])
def test_lints_kept_report_is_written_as_a_fresh_lint_is_whatever_standard_outputs_encoding(tmp_path, encoding):
    """The kept report's bytes go to a UTF-8 standard output as they are; to another, as text, as a fresh lint's do."""
    import subprocess
    import sys

    root = random_store(tmp_path / "store", seed=9, now_ms=parse_now(FIXED_NOW), size=40)
    (root / ".rawko" / "memories" / "café.md").write_text(memory(title="Café crème", when='"cafe"'))
    code = (
        "import sys\n"
        "from rawko_tui.core.disk import cache\n"
        "cache.RACY_NS = 0  # the files were written a moment ago: trusted all the same\n"
        "from rawko_tui.cli import main\n"
        f"code = main(['lint', {str(root)!r}, '--now', {FIXED_NOW!r}])\n"
        "sys.stdout.flush()\n"
        "sys.stderr.write(str(code))\n"
    )

    def lint(cache_setting: str):
        env = {**os.environ, "PYTHONIOENCODING": encoding, "RAWKO_TUI_CACHE": cache_setting}
        return subprocess.run([sys.executable, "-c", code], capture_output=True, env=env, timeout=60)

    fresh = lint("off")
    assert fresh.stderr == b"1" and "café.md".encode(encoding) in fresh.stdout
    runs = [lint("on") for _ in range(3)]  # the findings kept, then the report, then the report written
    assert [(run.stdout, run.stderr) for run in runs] == [(fresh.stdout, fresh.stderr)] * 3
