"""What a warm store holds stays bounded: decoded fields and texts are let go past a bound, other profiles' views
borrow the spec reading's fields, and the kept pattern lists are read in parts. Each gives what the whole gave."""

from __future__ import annotations

import copy
import pickle

import pytest
from conftest import FIXED_NOW
from storegen import random_store

from rawko_tui.core.arbiters import loaders, rankcache
from rawko_tui.core.arbiters.decision import ArbiterOptions, parse_now
from rawko_tui.core.arbiters.profiles import BUILT_IN
from rawko_tui.core.arbiters.ranking import run_preview, run_preview_reference
from rawko_tui.core.disk import cache
from rawko_tui.core.store import columnar, reading
from rawko_tui.core.store.loading import load_store
from rawko_tui.core.store.reading import LazyText, SameFieldsView, SpecView

NOW = parse_now(FIXED_NOW)


@pytest.fixture
def store_root(tmp_path, monkeypatch):
    monkeypatch.setattr(cache, "RACY_NS", 0)  # files written by the test are trusted from the cache at once
    root = random_store(tmp_path / "store", seed=5, now_ms=NOW, size=150)
    load_store(root)  # read, and kept
    return root


def fields(files) -> list:
    return [None if f.spec is None else (repr(f.spec.attrs), f.spec.body_length, f.spec.frontmatter_line, f.spec.frontmatter_text, f.spec.body) for f in files]


def test_decoded_fields_past_the_bound_are_encoded_again_and_read_the_same(store_root, monkeypatch):
    with monkeypatch.context() as off:
        off.setenv("RAWKO_TUI_CACHE", "off")
        expected = fields(load_store(store_root).files)
    monkeypatch.setattr(columnar, "KEPT_DECODED", 5)
    warm = load_store(store_root)
    assert fields(warm.files) == expected
    decoded = [f for f in warm.files if f.spec is not None and type(f.spec) is SpecView]
    assert 0 < len(decoded) <= 5  # a pass over every file keeps the last few only
    assert fields(warm.files) == expected  # and reads the others again, the same


def test_decoded_texts_past_the_bound_are_let_go_and_read_the_same(store_root, monkeypatch):
    with monkeypatch.context() as off:
        off.setenv("RAWKO_TUI_CACHE", "off")
        expected = [f.text for f in load_store(store_root).files]
    monkeypatch.setattr(reading, "KEPT_TEXT_CHARACTERS", 2000)
    warm = load_store(store_root)
    assert [f.text for f in warm.files] == expected
    kept = [f._text._value for f in warm.files if isinstance(f._text, LazyText) and f._text._value is not None]
    assert kept and sum(map(len, kept)) <= 2000 + max(map(len, kept))
    assert [f.text for f in warm.files] == expected


def test_another_profile_s_view_borrows_the_spec_reading_s_fields_and_reads_as_its_own(store_root, monkeypatch):
    sdk = BUILT_IN["rawko-sdk"]
    with monkeypatch.context() as off:
        off.setenv("RAWKO_TUI_CACHE", "off")
        expected = fields(loaders.load_view(load_store(store_root), sdk, False).loaded)
    loaders.load_view(load_store(store_root), sdk, False)  # the readings kept
    monkeypatch.setattr(columnar, "KEPT_DECODED", 3)
    view = loaders.load_view(load_store(store_root), sdk, False)
    borrowed = [m.spec for m in view.loaded if type(m.spec) is SameFieldsView]
    assert borrowed
    assert fields(view.loaded) == expected
    orders = [order for _, order, _ in (reading._SPEC_ATTRS.__get__(spec) for spec in borrowed) if order is not None]
    assert orders and len({id(order) for order in orders}) == len(set(orders))  # the view holds each order of keys once
    for spec in borrowed[:5]:
        for copied in (copy.copy(spec),):
            assert type(copied) is SpecView and copied == spec and copied.body == spec.body


@pytest.mark.parametrize("profile", ["spec-0007", "rawko-sdk", "spec-0005"])
def test_kept_pattern_lists_are_read_in_parts_and_rank_as_the_whole(store_root, profile):
    options = ArbiterOptions(profile=BUILT_IN[profile])
    tasks = ["implement the auth flow", "redis then cache", "", "LOGIN auth token"]
    expected = [run_preview_reference(load_store(store_root), task, "developer", options, NOW).prompt for task in tasks]
    run_preview(load_store(store_root), tasks[0], "developer", options, NOW)  # made, and kept
    store = load_store(store_root)
    view = loaders.load_view(store, options.profile, False)
    kept = rankcache.load(store, view, options.profile)
    parted = [kept["patterns"][at] for at in rankcache.PARTED]
    assert all(isinstance(part, rankcache.KeptList) for part in parted)
    assert [list(part) for part in parted] == [list(part) for part in parted]  # read again, the same
    assert [run_preview(store, task, "developer", options, NOW).prompt for task in tasks] == expected
    path = next(cache.cache_dir().glob(f"{rankcache._kind(options.profile)}-*.bin"))
    path.write_bytes(path.read_bytes()[:-3])  # a cut file: no kept tables
    assert rankcache.load(load_store(store_root), view, options.profile) is None
    assert [run_preview(load_store(store_root), task, "developer", options, NOW).prompt for task in tasks] == expected


def test_a_kept_list_read_in_parts_is_the_list(tmp_path):
    items = [(i, str(i)) for i in range(3 * rankcache.CHUNK + 7)]
    chunks = [pickle.dumps(items[at : at + rankcache.CHUNK]) for at in range(0, len(items), rankcache.CHUNK)]
    from array import array

    ends, size = array("q"), 11
    for chunk in chunks:
        size += len(chunk)
        ends.append(size)
    path = tmp_path / "parts.bin"
    path.write_bytes(b"x" * 11 + b"".join(chunks))
    blob = cache.open_kept_bytes(path)
    for whole in (False, True):
        kept = rankcache.KeptList(blob, 11, ends, len(items), whole)
        assert len(kept) == len(items) and list(kept) == items
        assert [kept[at] for at in (0, rankcache.CHUNK, len(items) - 1, -1, 5)] == [items[at] for at in (0, rankcache.CHUNK, -1, -1, 5)]
        kept[3] = "set"
        assert kept[3] == "set" and list(kept)[3] == "set" and list(kept)[4] == items[4]
        with pytest.raises(IndexError):
            kept[len(items)]


def test_a_borrowing_view_s_statuses_are_its_files_own(store_root, monkeypatch):
    """A reading that borrows the spec reading's fields takes that reading's kept lifecycle where its own lifecycle
    fields are the same: every status is the one a view read without the cache gives."""
    from rawko_tui.core.store.fold import status_of, statuses_of

    sdk = BUILT_IN["rawko-sdk"]
    memories = store_root / ".rawko" / "memories"
    head = "---\ntitle: {}\nwhenToUse: [auth]\ntags: [auth]\nimportance: high\ndiscoveredAt: 2026-01-20T10:00:00Z\ndiscoveredBy: developer\n"
    (memories / "zz-retired.md").write_text(head.format("Retired") + "status: retired\nreason: wrong\n---\n\nOld.\n", encoding="utf-8")
    (memories / "zz-superseded.md").write_text(head.format("Superseded") + "supersededBy: zz-retired.md\n---\n\nOld.\n", encoding="utf-8")
    (memories / "zz-retired-later.md").write_text(head.format("Later") + "---\n\nBody.\n\n---\nstatus: retired\n---\n\nNo more.\n", encoding="utf-8")
    load_store(store_root)  # the new files kept
    with monkeypatch.context() as off:
        off.setenv("RAWKO_TUI_CACHE", "off")
        expected = [status_of(m) for m in loaders.load_view(load_store(store_root), sdk, False).loaded]
    loaders.load_view(load_store(store_root), sdk, False)  # the readings kept
    monkeypatch.setattr(columnar, "KEPT_DECODED", 3)
    view = loaders.load_view(load_store(store_root), sdk, False)
    borrowed = [m.spec for m in view.loaded if type(m.spec) is SameFieldsView]
    assert borrowed and any(spec.kept_lifecycle() is not None for spec in borrowed)
    assert statuses_of(view.loaded) == [status_of(m) for m in view.loaded] == expected
    assert any(not status.active for status in expected)
