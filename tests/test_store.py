"""Reading the store: whenToUse forms, the entry log, fences, broken files."""

from __future__ import annotations

import os
import time

import pytest

from conftest import FIXED_NOW, memory, write_store
from rawko_tui.core.arbiters.decision import ArbiterOptions, parse_now
from rawko_tui.core.arbiters.ranking import run_preview
from rawko_tui.core.store.reading import StoreNotFound, find_store_root
from rawko_tui.core.store.loading import load_store

NOW = parse_now(FIXED_NOW)


@pytest.mark.parametrize(
    "when",
    [
        '"auth|login"',  # a string
        '["auth|login", "When implementing security"]',  # a list of strings
        '\n  - pattern: "auth|login"\n  - pattern: "implement.*auth"',  # SPEC-0005's list of maps
    ],
    ids=["string", "list", "maps"],
)
def test_all_three_when_to_use_forms_match(tmp_path, when):
    write_store(tmp_path, {"m.md": memory(when=when)})
    result = run_preview(load_store(tmp_path), "fix the login page", "developer", now_ms=NOW)
    candidate = result.candidate("m.md")
    assert candidate.matched and candidate.injected
    assert candidate.patterns[0].pattern == "auth|login"


def test_maps_form_is_flagged_as_crashing_the_verbatim_arbiter(tmp_path):
    write_store(tmp_path, {"m.md": memory(when='\n  - pattern: "auth"')})
    result = run_preview(load_store(tmp_path), "auth", "developer", now_ms=NOW)
    assert result.arbiter_failure.stage == "match"
    assert "injects nothing" in result.arbiter_failure.describe()


APPENDED = """---
title: "Password Hashing Approach"
whenToUse: "password"
importance: medium
discoveredAt: 2026-01-24T09:15:00Z
discoveredBy: developer
---

# Password Hashing Approach

Uses bcrypt with 10 salt rounds.

---

## Update (2026-01-25)

A horizontal rule and an update section, not a new entry.

---

---
title: "Password Hashing Approach"
importance: high
discoveredBy: reviewer
---

Actually 12 salt rounds.

---
importance: critical
---

Appended with the plain "\\n\\n" separator.
"""


def test_multi_entry_file_is_split_into_entries(tmp_path):
    write_store(tmp_path, {"password-hashing-approach.md": APPENDED})
    memory_file = load_store(tmp_path).files[0]
    entries = memory_file.entries
    assert [e.frontmatter.get("importance") for e in entries] == ["medium", "high", "critical"]
    assert "Update (2026-01-25)" in entries[0].body and "horizontal rule" in entries[0].body
    assert entries[1].body == "Actually 12 salt rounds."
    assert entries[2].line == APPENDED.split("\n").index("importance: critical")  # 1-based line of its "---"
    effective, origin = memory_file.effective()
    assert effective["importance"] == "critical" and origin["importance"] == 2
    assert effective["discoveredBy"] == "reviewer" and origin["title"] == 1
    # the spec's view: first frontmatter only, all the rest is body
    assert memory_file.spec.attrs["importance"] == "medium"
    assert "importance: critical" in memory_file.spec.body
    assert memory_file.differs_from_entries


def test_spec_arbiter_injects_appended_entries_as_body_text(tmp_path):
    write_store(tmp_path, {"password-hashing-approach.md": APPENDED})
    result = run_preview(load_store(tmp_path), "password", "developer", now_ms=NOW)
    assert result.injected[0].components["importance"] == 15  # medium, from the first entry only
    assert "*Importance: MEDIUM*" in result.prompt


def test_dashes_inside_a_fenced_code_block_are_not_an_entry_boundary(tmp_path):
    body = "Intro text.\n\n```yaml\n---\ntitle: not an entry\nimportance: high\n---\n```\n\n~~~\n---\ntitle: nor this\n---\n~~~\n\nEnd.\n"
    write_store(tmp_path, {"m.md": memory(body=body)})
    memory_file = load_store(tmp_path).files[0]
    assert len(memory_file.entries) == 1
    assert "title: not an entry" in memory_file.entries[0].body


def test_setext_underline_and_rule_followed_by_prose_are_not_entries(tmp_path):
    body = "Heading\n---\ntitle: looks like a field\n---\n\nText.\n\n---\nJust: prose with a colon\n---\n"
    write_store(tmp_path, {"m.md": memory(body=body)})
    assert len(load_store(tmp_path).files[0].entries) == 1


def test_torn_final_entry_is_reported(tmp_path):
    torn = memory() + "\n\n---\ntitle: \"Half written\"\nimportance: hi"
    write_store(tmp_path, {"m.md": torn})
    memory_file = load_store(tmp_path).files[0]
    assert len(memory_file.entries) == 1
    assert memory_file.suspect_blocks and "never closed" in memory_file.suspect_blocks[0].reason


BROKEN = {
    "bad-yaml.md": "---\ntitle: [unclosed\nimportance: high\n---\nbody\n",
    "no-frontmatter.md": "# Only a heading\n\nNo frontmatter.\n",
    "binary.md": bytes(range(256)) * 4,
    "empty.md": "",
    "wrong-types.md": memory(title="42", tags='"auth"', importance="7"),
    "list-frontmatter.md": "---\n- a\n- b\n---\nbody\n",
    "duplicate.md": "---\ntitle: a\ntitle: b\n---\nbody\n",
    "catastrophic.md": memory(title="Catastrophic", when='"(a+)+$*"'),
    "invalid-utf8.md": memory(title="Bytes").encode() + b"\xff\xfe\xc3(",
}


def test_broken_store_loads_the_good_files_and_reports_each_bad_one(tmp_path):
    write_store(tmp_path, {**BROKEN, "good.md": memory(title="Good memory", when='"auth|aaa"')})
    store = load_store(tmp_path)
    errors = {e.path.rsplit("/", 1)[-1]: e for e in store.errors}
    assert set(errors) == {"bad-yaml.md", "no-frontmatter.md", "binary.md", "empty.md", "list-frontmatter.md", "duplicate.md"}
    assert errors["bad-yaml.md"].line == 3 and "not valid YAML" in errors["bad-yaml.md"].reason
    assert errors["duplicate.md"].line == 3 and "duplicated mapping key" in errors["duplicate.md"].reason
    assert "no frontmatter" in errors["no-frontmatter.md"].reason
    assert "list" in errors["list-frontmatter.md"].reason
    start = time.perf_counter()
    result = run_preview(store, "a" * 40 + "b", "developer", now_ms=NOW)
    assert time.perf_counter() - start < 0.5
    assert [c.file.name for c in result.injected] == ["good.md"]
    wrong = result.candidate("wrong-types.md")
    assert not wrong.loaded and "throws" in wrong.explanation.description
    assert result.arbiter_failure.stage == "load"  # a verbatim arbiter stops at the first bad file
    assert result.candidate("invalid-utf8.md").loaded  # bad bytes become U+FFFD, as Deno decodes them


def test_symlinks_are_listed_not_followed(tmp_path):
    outside = tmp_path / "secret.md"
    outside.write_text(memory(title="Outside"))
    write_store(tmp_path / "store", {"real.md": memory(title="Real")})
    memories = tmp_path / "store" / ".rawko" / "memories"
    os.symlink(outside, memories / "link.md")
    os.symlink(memories, memories / "loop")
    store = load_store(tmp_path / "store")
    link = store.file("link.md")
    assert link.symlink and link.text is None
    result = run_preview(store, "auth", "developer", now_ms=NOW)
    assert result.candidate("link.md").reason == "not-loaded-symlink"
    assert [c.file.name for c in result.injected] == ["real.md"]


def test_store_is_found_from_path_or_upward(tmp_path, monkeypatch):
    write_store(tmp_path, {"m.md": memory()})
    assert find_store_root(tmp_path) == tmp_path.resolve()
    assert find_store_root(tmp_path / ".rawko") == tmp_path.resolve()
    nested = tmp_path / "a" / "b"
    nested.mkdir(parents=True)
    monkeypatch.chdir(nested)
    assert find_store_root() == tmp_path.resolve()
    with pytest.raises(StoreNotFound):
        find_store_root(tmp_path / "a")
    with pytest.raises(StoreNotFound):
        find_store_root(tmp_path / "missing")


def test_empty_store_and_missing_memories_folder(tmp_path):
    (tmp_path / ".rawko").mkdir()
    store = load_store(tmp_path)
    assert store.files == []
    result = run_preview(store, "anything", "developer", ArbiterOptions(), NOW)
    assert result.injected == [] and result.prompt == "" and result.arbiter_failure is None
