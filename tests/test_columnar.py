"""The columnar parse cache: a warm load is the cold read, file for file, and a changed file is never served from it."""

from __future__ import annotations

import copy
import gc
import os
import pickle
import random

import pytest
from conftest import FIXED_NOW, memory, write_store
from hostile import CASES, make_store
from storegen import random_store

from rawko_tui.core.arbiters.decision import parse_now
from rawko_tui.core.arbiters.ranking import run_preview
from rawko_tui.core.disk import cache
from rawko_tui.core.store.columnar import LazySpecView
from rawko_tui.core.store.reading import SpecView
from rawko_tui.core.store.loading import load_store


@pytest.fixture
def settled(monkeypatch):
    """Files written by a test are seconds old at most: let the cache trust them (the racy window is tested apart)."""
    monkeypatch.setattr(cache, "RACY_NS", 0)


def described(store) -> list:
    """Everything a load decides, file by file and for the store."""
    files = [
        (
            f.rel_path, f.name, os.fspath(f.location), f.top_level, f.symlink, f.size, f.mtime_ns, f.signature,
            f.text, f.bom, f.bad_utf8, f.error, f.single_entry(),
            None if f.spec is None else (repr(f.spec.attrs), f.spec.frontmatter_text, f.spec.frontmatter_line, f.spec.body_length, f.spec.body),
            [(e.index, e.line, repr(e.frontmatter), e.body) for e in f.entries], f.suspect_blocks, f.entries_cut,
        )
        for f in store.files
    ]  # fmt: skip
    return [files, store.errors, store.skipped, store.directory_order, sorted(store.agents), store.config]


def cold(root, monkeypatch):
    with monkeypatch.context() as off:
        off.setenv("RAWKO_TUI_CACHE", "off")
        return load_store(root)


def served_from_cache(memory_file) -> bool:
    return type(memory_file.spec) is LazySpecView


@pytest.mark.parametrize("seed", [1, 2])
def test_a_warm_load_of_a_hostile_store_is_its_cold_read(tmp_path, monkeypatch, settled, seed):
    root = make_store(tmp_path / "store")
    random_store(root, seed=seed, now_ms=parse_now(FIXED_NOW), size=120)
    first = load_store(root)  # read, and kept
    run_preview(first, "auth token login", "developer")  # the rank index's tables kept too
    warm = load_store(root)
    assert all(served_from_cache(f) for f in warm.files if f.spec is not None)
    assert sum(f.spec is not None for f in warm.files) > 100
    preview = run_preview(warm, "auth token login", "developer")
    assert sum(not served_from_cache(f) for f in warm.files if f.spec is not None) < len(warm.files) // 2  # decoded when used
    # each load is compared with the first's description, then let go (collected: a store and its rank index refer
    # to each other): the three loads of the hostile store and their descriptions held at once took 0.38 GB
    expected = described(first)
    del first
    gc.collect()
    reference = cold(root, monkeypatch)
    assert preview.prompt == run_preview(reference, "auth token login", "developer").prompt
    assert described(reference) == expected
    del reference
    gc.collect()
    assert described(warm) == expected


def _rewrite_same_length(path, text: str) -> None:
    before = os.stat(path)
    path.write_text(text)
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))


def _replace_with_new_inode(path, text: str) -> None:
    before = os.stat(path)
    other = path.with_name("other.tmp")
    other.write_text(text)
    os.utime(other, ns=(before.st_atime_ns, before.st_mtime_ns))
    os.replace(other, path)


def _symlink_to_copy(path, text: str) -> None:
    target = path.parent.parent / "copy-of-a.txt"
    target.write_text(path.read_text())
    path.unlink()
    path.symlink_to(target)


CHANGES = {
    "changed": lambda path: _rewrite_same_length(path, memory(title="Alpha TWO")),
    "replaced": lambda path: _replace_with_new_inode(path, memory(title="Alpha TWO")),
    "grown": lambda path: path.write_text(path.read_text() + "\nmore text\n"),
    "symlinked": lambda path: _symlink_to_copy(path, ""),
    "deleted": lambda path: path.unlink(),
}


@pytest.mark.parametrize("change", sorted(CHANGES))
def test_a_changed_file_is_never_served_from_the_cache(tmp_path, monkeypatch, settled, change):
    root = write_store(tmp_path / "store", {"a.md": memory(title="Alpha one"), "b.md": memory(title="Beta"), "sub/c.md": memory(title="Gamma")})
    load_store(root)
    assert all(served_from_cache(f) for f in load_store(root).files)
    CHANGES[change](root / ".rawko" / "memories" / "a.md")
    after = load_store(root)
    changed = after.file("a.md")
    assert (changed is None) == (change == "deleted")
    if changed is not None:
        assert not served_from_cache(changed)
    assert all(served_from_cache(f) for f in after.files if f.name != "a.md")
    assert described(after) == described(cold(root, monkeypatch))
    assert described(load_store(root)) == described(after)  # the rewritten cache serves the new reading


def test_a_file_written_within_two_seconds_of_its_read_is_read_again(tmp_path, monkeypatch):
    root = write_store(tmp_path / "store", {"a.md": memory(title="Alpha")})
    first = load_store(root).files[0]
    second = load_store(root).files[0]
    assert not served_from_cache(second) and second.read_ns > first.read_ns
    monkeypatch.setattr(cache, "RACY_NS", 0)
    load_store(root)
    assert served_from_cache(load_store(root).files[0])


def test_the_trust_rule_on_columns_is_the_rule_file_by_file():
    rng = random.Random(7)
    racy = cache.RACY_NS
    kept_signatures, fresh, read = [], [], []
    for _ in range(400):
        signature = (rng.randrange(1 << 20), rng.randrange(-(1 << 40), 1 << 62), rng.randrange(1 << 62), rng.randrange(1 << 64), rng.randrange(1 << 64))
        kept_signatures.append(signature)
        read.append(signature[2] + rng.choice([racy - 1, racy, racy + 1, 10 * racy]))
        column = rng.randrange(7)
        if column < 5:  # one field changed
            changed = list(signature)
            changed[column] += 1
            fresh.append(tuple(changed))
        else:
            fresh.append(cache.ABSENT if column == 5 else signature)
    kept = {name: [s[index] for s in kept_signatures] for index, (name, _) in enumerate(cache.SIGNATURE_COLUMNS)}
    from array import array

    kept = {name: array(code, kept[name]) for name, code in cache.SIGNATURE_COLUMNS} | {"read_ns": array("q", read)}
    expected = [cache.trusted(f, k, k[2], r) for f, k, r in zip(fresh, kept_signatures, read)]
    assert cache.trusted_columns(fresh, kept) == expected
    assert cache.trusted_columns(kept_signatures, kept) == [cache.trusted(k, k, k[2], r) for k, r in zip(kept_signatures, read)]
    assert True in expected and False in expected


def test_a_kept_view_copies_as_the_view_it_decodes_to(tmp_path, settled):
    root = write_store(tmp_path / "store", {"a.md": memory(title="Alpha")})
    load_store(root)
    views = [load_store(root).files[0].spec for _ in range(2)]
    assert all(type(view) is LazySpecView for view in views)
    copied = copy.copy(views[0])
    assert type(copied) is type(views[0]) is SpecView
    assert copied == views[1] and views[1].attrs["title"] == "Alpha" and type(views[1]) is SpecView


def test_a_cache_of_the_wrong_shape_is_no_cache(tmp_path, settled):
    root = write_store(tmp_path / "store", {"a.md": memory(title="Alpha"), "b.md": memory(title="Beta")})
    load_store(root)
    path = cache.cache_path(root)
    data = pickle.loads(path.read_bytes())
    short_column = {**data["columns"], "read_ns": data["columns"]["read_ns"][:1]}
    short_views = {**data["columns"], "specs": data["columns"]["specs"][:-1]}
    long_text = {**data["columns"], "text_length": type(data["columns"]["text_length"])("q", [1 << 40] * 2)}
    for columns in (short_column, short_views, long_text):
        path.write_bytes(pickle.dumps({**data, "columns": columns}))
        os.chmod(path, 0o600)
        store = load_store(root)
        assert [f.attrs["title"] for f in store.files] == ["Alpha", "Beta"] and not any(served_from_cache(f) for f in store.files)
        assert all(served_from_cache(f) for f in load_store(root).files)  # rewritten


def test_a_kept_view_damaged_on_disk_is_read_again_from_the_text(tmp_path, monkeypatch, settled):
    """Sizes and positions are checked at load, a view's bytes only when decoded: damaged bytes mean the text is read again."""
    root = write_store(tmp_path / "store", {"a.md": memory(title="Alpha"), "b.md": memory(title="Beta", tags=["x"])})
    load_store(root)
    path = cache.cache_path(root)
    data = pickle.loads(path.read_bytes())
    views = data["columns"]["specs"]
    damaged = {**data["columns"], "specs": bytes([0xFF]) + views[1:]}  # the first view's encoding byte: none known
    path.write_bytes(pickle.dumps({**data, "columns": damaged}))
    os.chmod(path, 0o600)
    store = load_store(root)
    assert all(served_from_cache(f) for f in store.files)
    assert described(store) == described(cold(root, monkeypatch))


def test_a_kept_view_decodes_to_the_very_values_it_was_made_of():
    """Marshalled or pickled, a view's fields come back with their types, their order and their shared parts."""
    import math

    from rawko_tui.core.js.values import UNDEFINED, JsDate
    from rawko_tui.core.store.columnar import _decode, _encode

    shared = ["a", "b"]
    cases = [
        {"title": "T", "discoveredAt": JsDate(1.7e12), "importance": "high", "tags": shared, "also": shared},
        {"when": [JsDate(5.0)], "n": 1},  # a date inside a list: pickled
        {"x": UNDEFINED, "y": True, "z": 1, "f": -0.0, "nan": math.nan, "big": 1 << 80, "t": (1, 2)},
        {1: "int key", None: "null key", "nested": {"deep": [{"k": JsDate(math.nan)}]}},
        ["a list", "not a mapping"],
        "text",
        None,
    ]
    for attrs in cases:
        view = SpecView(attrs, "the body", "fm: text", 2)
        back, body_length, frontmatter_text, frontmatter_line = _decode(_encode(view))
        assert repr(back) == repr(attrs) and (body_length, frontmatter_text, frontmatter_line) == (8, "fm: text", 2)
        if isinstance(attrs, dict):
            assert list(back) == list(attrs) and [type(v) for v in back.values()] == [type(v) for v in attrs.values()]
    back = _decode(_encode(SpecView(cases[0], "", "", 1)))[0]
    assert back["tags"] is back["also"] and back["discoveredAt"] == JsDate(1.7e12)
    assert math.copysign(1, _decode(_encode(SpecView(cases[2], "", "", 1)))[0]["f"]) == -1


@pytest.mark.parametrize("seed", [1, 2])
def test_a_kept_text_is_searched_as_its_decoded_text_without_keeping_it(tmp_path, settled, seed):
    from rawko_tui.core.lint.linter import lint_store
    from rawko_tui.core.store.reading import LazyText

    root = make_store(tmp_path / "store")
    random_store(root, seed=seed, now_ms=parse_now(FIXED_NOW), size=120)
    (root / ".rawko" / "memories" / "wide.md").write_text("---\ntitle: é relatedMemories\nrelatedMemories: [gone]\n---\n\n日本 relatedMemories\n")
    first = load_store(root)
    lint_store(first)  # kept for the warm lint below
    warm = load_store(root)
    lazy = [f for f in warm.files if isinstance(f._text, LazyText)]
    assert len(lazy) > 100
    assert lint_store(warm) == lint_store(first)  # its related-missing findings among them
    decoded = [f for f in lazy if f._text._value is not None]
    assert len(decoded) < len(lazy) // 2, len(decoded)  # lint's pass over every file keeps no text it only searched
    for needle in ("relatedMemories", "---", "\n---", "é", "日本", "", "\x00", "no such text"):
        assert [f.text_contains(needle) for f in warm.files] == [needle in (f.text or "") for f in first.files]


LIFECYCLES = {
    "retired.md": "---\ntitle: a\nstatus: retired\nreason: old\n---\nbody\n",
    "retired-later.md": "---\ntitle: b\n---\nbody\n\n---\nstatus: retired\nreason: later\nretiredAt: 2026-01-02T00:00:00Z\n---\n",
    "retitled.md": "---\ntitle: c\n---\nbody\n\n---\ntitle: c2\nupdatedAt: 2026-01-02T00:00:00Z\n---\nmore\n",
    "superseded.md": "---\ntitle: d\nsupersededBy: x.md\n---\nbody\n",
    "escaped-key.md": '---\ntitle: f\n"st\\x61tus": retired\n---\nbody\n',
    "escaped-later.md": '---\ntitle: g\n---\nbody\n\n---\n"st\\x61tus": retired\nreason: esc\n---\n',
    "upper-date.md": "---\ntitle: h\nstatus: RETIRED\nreason: 2024-01-01\n---\n",
    "list.md": "---\n- a list\n---\nbody\n",
    "restored.md": "---\ntitle: j\nstatus: retired\n---\nx\n\n---\nstatus: active\nupdatedAt: 2026-01-03T00:00:00Z\n---\n",
}


@pytest.mark.parametrize("seed", [3, 4])
def test_every_status_from_a_warm_load_is_the_cold_fold_and_decodes_no_single_entry_view(tmp_path, monkeypatch, settled, seed):
    from rawko_tui.core.store.fold import status_of

    root = make_store(tmp_path / "store")
    random_store(root, seed=seed, now_ms=parse_now(FIXED_NOW), size=80)
    for name, text in LIFECYCLES.items():
        (root / ".rawko" / "memories" / name).write_text(text)
    load_store(root)  # read, and kept
    warm = load_store(root)
    statuses = [(f.name, status_of(f)) for f in warm.files if f.spec is not None]
    reference = cold(root, monkeypatch)
    assert statuses == [(f.name, status_of(f)) for f in reference.files if f.spec is not None]
    assert {name: status.active for name, status in statuses if name in LIFECYCLES} == {
        "retired.md": False, "retired-later.md": False, "retitled.md": True, "superseded.md": False, "escaped-key.md": False,
        "escaped-later.md": False, "upper-date.md": False, "list.md": True, "restored.md": True,
    }  # fmt: skip
    single = [f for f in warm.files if f.spec is not None and f.single_entry()]
    assert len(single) > 40 and all(served_from_cache(f) for f in single)  # their statuses came from the kept columns


def test_a_file_dated_past_what_a_column_holds_is_kept_and_its_change_still_seen(tmp_path, monkeypatch, settled):
    root = write_store(tmp_path, {"a.md": memory(title="Alpha"), "b.md": memory(title="Beta")})
    path = root / ".rawko" / "memories" / "a.md"
    os.utime(path, ns=(0, 14_000_000_000 * 10**9))  # the year 2413: past int64 nanoseconds (touch -d can set it)
    if os.stat(path).st_mtime_ns < 2**63:
        pytest.skip("this file system cannot hold such a date")
    first = load_store(root)  # kept, not a traceback
    warm = load_store(root)
    assert served_from_cache(warm.file("a.md")) and described(warm) == described(first) == described(cold(root, monkeypatch))
    _rewrite_same_length(path, memory(title="Alphx"))  # same size and times: the change time tells
    assert load_store(root).file("a.md").attrs["title"] == "Alphx"


def test_the_kept_texts_are_read_where_asked_as_the_bytes_they_hold(tmp_path):
    """``cache.TextFile`` (the kept texts read with pread, never mapped) slices and searches as the bytes do."""
    data = "---\ntitle: é\n---\n\n日本 body\x00 end".encode() * 3
    path = tmp_path / "texts.bin"
    path.write_bytes(data)
    os.chmod(path, 0o600)
    texts = cache.open_kept_bytes(path)
    assert isinstance(texts, cache.TextFile) and len(texts) == len(data)
    spans = [(0, len(data)), (0, 0), (5, 17), (len(data) - 4, len(data)), (len(data) - 4, len(data) + 10), (len(data) + 3, len(data) + 9)]
    for start, end in spans:
        assert texts[start:end] == data[start:end]
        for needle in (b"---", "日本".encode(), b"\x00", b"", b"end", b"nothing"):
            assert texts.find(needle, start, end) == data.find(needle, start, end), (start, end, needle)
    path.write_bytes(b"")
    assert cache.open_kept_bytes(path) == b""
    assert cache.open_kept_bytes(tmp_path / "missing.bin") is None


def test_agent_definitions_are_kept_by_their_bytes_and_read_again_when_one_byte_differs(tmp_path, monkeypatch):
    """A warm load parses no agent definition (nor imports the YAML readers); a definition whose bytes changed is
    parsed again, though its size and modification time are the same (the bytes are compared, not the stat)."""
    from rawko_tui.core.store import reading

    agents = tmp_path / ".rawko" / "agents"
    agents.mkdir(parents=True)
    (tmp_path / ".rawko" / "memories").mkdir()
    (tmp_path / ".rawko" / "memories" / "a.md").write_text(memory(), encoding="utf-8")
    developer = agents / "developer.md"
    developer.write_text("---\nname: developer\nmemory:\n  maxMemories: 3\n---\nWrites code.\n", encoding="utf-8")
    (agents / "tester.md").write_text("---\nname: tester\n---\n", encoding="utf-8")
    first = load_store(tmp_path)
    assert first.agents["developer"].memory_config == {"maxMemories": 3}

    parsed = []
    real_extract = reading.spec_extract
    monkeypatch.setattr(reading, "spec_extract", lambda text: parsed.append(text) or real_extract(text))
    again = load_store(tmp_path)
    assert not [text for text in parsed if "maxMemories" in text or "tester" in text]
    assert {name: (a.path, a.attrs, a.error) for name, a in again.agents.items()} == {name: (a.path, a.attrs, a.error) for name, a in first.agents.items()}

    stat = developer.stat()
    developer.write_text("---\nname: developer\nmemory:\n  maxMemories: 7\n---\nWrites code.\n", encoding="utf-8")
    os.utime(developer, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    changed = load_store(tmp_path)
    assert changed.agents["developer"].memory_config == {"maxMemories": 7}
    assert changed.agents["developer"].memory_config == cold(tmp_path, monkeypatch).agents["developer"].memory_config


def _lint_lines(root, now_ms=None, arbiter=None) -> list[str]:
    from rawko_tui.core.lint.linter import lint_store

    return [str(f) for f in lint_store(load_store(root), now_ms, arbiter=arbiter)]


def test_lint_kept_whole_is_a_fresh_lint_of_a_hostile_store_and_of_every_change(tmp_path, monkeypatch, settled):
    """Each file's findings, the store-wide ones and each profile's are kept for the very same readings: a warm lint is
    the cold one, and a changed file, a changed setting, agent or --arbiter is never answered from what was kept."""
    from rawko_tui.core.lint import keptstore

    root = make_store(tmp_path / "store")
    random_store(root, seed=3, now_ms=parse_now(FIXED_NOW), size=40)
    (root / ".rawko" / "memories" / "twin-1.md").write_text(memory(title="Twin title"))
    (root / ".rawko" / "memories" / "twin-2.md").write_text(memory(title="Twin title"))
    now = parse_now(FIXED_NOW)

    def cold_lint(arbiter=None):
        with monkeypatch.context() as off:
            off.setenv("RAWKO_TUI_CACHE", "off")
            return _lint_lines(root, now, arbiter)

    served = []
    real = keptstore.KeptStoreFindings.findings
    monkeypatch.setattr(keptstore.KeptStoreFindings, "findings", lambda self, now_ms: served.append(r := real(self, now_ms)) or r)
    first = _lint_lines(root, now)
    assert first == cold_lint() and any("duplicate-title" in line for line in first)
    assert _lint_lines(root, now) == first and served[-1] is not None  # served whole
    changes = [
        lambda: _rewrite_same_length(root / ".rawko" / "memories" / "twin-2.md", memory(title="Twin TITLE")),
        lambda: (root / ".rawko" / "rawko-tui.yaml").write_text("arbiter: rawko-sdk\n"),
        lambda: (root / ".rawko" / "agents").mkdir(exist_ok=True) or (root / ".rawko" / "agents" / "developer.md").write_text("---\nname: developer\n---\n"),
        lambda: (root / ".rawko" / "memories" / "twin-1.md").unlink(),
    ]
    for change in changes:
        change()
        after = _lint_lines(root, now)
        assert served[-1] is None and after == cold_lint()  # made again, as a cold lint makes it
        assert _lint_lines(root, now) == after and served[-1] is not None
    assert _lint_lines(root, now, "spec-0005") == cold_lint("spec-0005")


def test_a_kept_lint_says_a_date_to_come_at_each_run_s_own_time(tmp_path, settled):
    from rawko_tui.core.lint.linter import lint_store

    root = write_store(tmp_path / "store", {"a.md": memory(at="2031-05-01T00:00:00Z"), "b.md": memory(title="Other")})
    before, after = parse_now("2030-01-01T00:00:00Z"), parse_now("2032-01-01T00:00:00Z")
    lint_store(load_store(root), before)  # kept
    future = [f for f in lint_store(load_store(root), before) if "future" in f.message]
    assert future and not [f for f in lint_store(load_store(root), after) if "future" in f.message]


@pytest.mark.parametrize("seed", [5, 6])
def test_a_profile_s_reading_of_a_kept_file_holds_one_entry_exactly_when_its_text_says_so(tmp_path, settled, seed):
    """rawko-sdk reads a file's body trimmed: whether it holds one entry is taken from the parse cache's answer where
    that answer tells it, and is what working it out from the text gives, for every file of a hostile store."""
    from rawko_tui.core import records
    from rawko_tui.core.arbiters.loaders import load_view
    from rawko_tui.core.arbiters.profiles import BUILT_IN
    from rawko_tui.core.store.fold import status_of

    root = make_store(tmp_path / "store")
    random_store(root, seed=seed, now_ms=parse_now(FIXED_NOW), size=120)
    (root / ".rawko" / "memories" / "appended.md").write_text(memory(title="Appended") + "\n---\nstatus: retired\nreason: gone\n---\nLater.\n")
    (root / ".rawko" / "memories" / "spaced.md").write_text(memory(title="Spaced", body="\n\n  Body  \n\n---\n\n"))
    # a --- line near the start of a body with trailing space: read trimmed, the end holds none
    (root / ".rawko" / "memories" / "dashes.md").write_text(memory(title="Dashes", body="\n\n---\nrest" + "\n" * 12))
    load_store(root)
    warm = load_store(root)
    view = load_view(warm, BUILT_IN["rawko-sdk"], False)
    assert len(view.loaded) > 30 and {'spaced.md', 'dashes.md'} <= {read.name for read in view.loaded}
    for read in view.loaded:
        fresh = records.replace(read, _single=None)
        assert read.single_entry() == fresh.single_entry(), read.name
        assert status_of(read) == status_of(records.replace(read, _single=None)), read.name


def test_a_kept_file_made_in_one_positional_call_has_each_value_in_its_own_field():
    """``kept_memory_file`` passes the constructor its values by position (a load makes one per file): each lands in
    the field it names, whatever order the class's fields are declared in."""
    from rawko_tui.core import records
    from rawko_tui.core.store.reading import MemoryFile, kept_memory_file

    text, spec, error, bad = object(), object(), object(), (3, 1)
    made = kept_memory_file("sub/x.md", "/s/.rawko/memories/sub/x.md", True, (11, 22, 33, 44, 55), 66, text, spec, error, True, bad, False)
    expected = MemoryFile(
        location="/s/.rawko/memories/sub/x.md", rel_path=".rawko/memories/sub/x.md", name="sub/x.md", top_level=False, symlink=True,
        size=11, mtime_ns=22, signature=(11, 22, 33, 44, 55), read_ns=66, _text=text, spec=spec, error=error, bom=True, bad_utf8=bad, _single=False,
    )  # fmt: skip
    assert {f.name: getattr(made, f.name) for f in records.fields(MemoryFile)} == {f.name: getattr(expected, f.name) for f in records.fields(MemoryFile)}


@pytest.mark.parametrize("part", [4096, 2])
def test_kept_findings_put_each_date_to_come_where_a_fresh_lint_does(tmp_path, monkeypatch, settled, part):
    """The findings on a discoveredAt that may be in the future are kept apart from the rest (a run with no time
    reads none of them): at every time, each lands where a cold lint puts it, among its file's other findings
    (the record read in one part or in many)."""
    from rawko_tui.core.lint import keptstore
    from rawko_tui.core.lint.linter import lint_store

    monkeypatch.setattr(keptstore, "PART", part)

    files = {f"{name}.md": memory(title=f"Title {name}", at=at, body="few words") for name, at in
             [("a", "2031-05-01T00:00:00Z"), ("b", "2020-01-01"), ("c", "2033-01-01T00:00:00Z"), ("d", "2031-05-01"), ("e", "not a date")]}  # fmt: skip
    root = write_store(tmp_path / "store", files)
    times = [None, parse_now("2030-01-01T00:00:00Z"), parse_now("2032-01-01T00:00:00Z"), parse_now("2034-01-01T00:00:00Z")]
    with monkeypatch.context() as off:
        off.setenv("RAWKO_TUI_CACHE", "off")
        cold = {now: lint_store(load_store(root), now) for now in times}
    lint_store(load_store(root), times[1])  # kept
    served = []
    real = keptstore.KeptStoreFindings.findings
    monkeypatch.setattr(keptstore.KeptStoreFindings, "findings", lambda self, now_ms: served.append(r := real(self, now_ms)) or r)
    assert {now: lint_store(load_store(root), now) for now in times} == cold
    assert len(served) == len(times) and None not in served
    assert [f for f in cold[times[1]] if "future" in f.message] and not [f for f in cold[None] if "future" in f.message]
