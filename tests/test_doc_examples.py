"""The documentation runs: every ```console example in README.md and docs/ is executed
against a throwaway copy of the demo store and must print what the page shows; every
relative link resolves; the key table is made from the app's own bindings.

The convention is in tests/docpages.py and docs/CONTRIBUTING.md. After a deliberate
change to what a command prints, `python scripts/update_doc_examples.py` rewrites the
pages from the real output; review its diff like any other change.
"""

from __future__ import annotations

import difflib

import pytest

from docpages import (
    KEYS_PAGE,
    ROOT,
    UPDATE_COMMAND,
    all_blocks,
    broken_links,
    keys_page_current,
    linked_pages,
    matches,
    pages,
    relative,
    rewritten_output,
    run_block,
)

BLOCKS = all_blocks()
STALE = f"run `{UPDATE_COMMAND}` to rewrite the pages from the real output, then review the diff"


def test_the_docs_hold_real_examples_of_every_workflow():
    commands = " ".join(command.text for block in BLOCKS for command in block.commands)
    workflows = ("preview", "explain", "compare", "arbiters", "lint", "verify", "check", "candidates", "sessions", "hook install", "new")
    for example in [f"rawko-tui {command}" for command in workflows] + ["--at ", "--compare "]:
        assert example in commands, f"no runnable example of {example!r}"


@pytest.mark.parametrize("block", BLOCKS, ids=[block.name for block in BLOCKS])
def test_the_example_prints_what_the_page_shows(block):
    assert not block.problems, f"{block.name}: {'; '.join(block.problems)}"
    failures = []
    for command, actual in zip(block.commands, run_block(block), strict=True):
        if not matches(command.expected, actual):
            real = rewritten_output(command.expected, actual)
            diff = difflib.unified_diff(command.expected, real, "the page", "the real output", lineterm="", n=2)
            failures.append(f"$ {command.text}\n" + "\n".join(diff))
    assert not failures, f"{block.name}: the output differs; {STALE}\n\n" + "\n\n".join(failures)


@pytest.mark.parametrize("page", pages(), ids=relative)
def test_every_relative_link_resolves(page):
    broken = broken_links(page)
    assert not broken, f"{relative(page)}: " + "; ".join(broken)


def test_every_page_is_linked_from_the_readme_and_the_index():
    readme, index = linked_pages(ROOT / "README.md"), linked_pages(ROOT / "docs" / "README.md")
    for page in pages()[1:]:
        assert page in readme, f"README.md does not link {relative(page)}"
        assert page == ROOT / "docs" / "README.md" or page in index, f"docs/README.md does not list {relative(page)}"


def test_the_readme_is_a_front_door():
    assert len((ROOT / "README.md").read_text(encoding="utf-8").splitlines()) <= 250


def test_the_key_table_is_made_from_the_apps_bindings():
    assert keys_page_current(), f"{relative(KEYS_PAGE)} is not the app's bindings; {STALE}"


def test_the_comparison_reads_an_elision_as_any_lines():
    assert matches(["a", "…", "d"], ["a", "b", "c", "d"]) and matches(["a", "  …", "d"], ["a", "d"])
    assert not matches(["a", "…", "d"], ["a", "b"]) and not matches(["a", "b"], ["a", "b", "c"])
    assert matches(["a", "…", "c", "…"], ["a", "b", "c", "d"]) and not matches(["a", "…", "x", "…"], ["a", "b", "c"])
    assert rewritten_output(["a", "…", "z"], ["1", "2", "3", "4"]) == ["1", "…", "4"]
    assert rewritten_output(["a", "…", "z"], ["1", "2"]) == ["1", "2"]
