"""The YAML readers against the YAML test suite (yaml/yaml-test-suite, MIT; tests/data/yaml-test-suite).

For every case, rawko-tui's js-yaml reading (SPEC-0007's and SPEC-0005's arbiters) is compared with
js-yaml 4's ``load`` and its npm-yaml reading (rawko-sdk) with ``yaml@2.8.2``'s ``parse``: the value,
or the fact that it throws, which decides whether a memory loads (spec-0007 throws and injects nothing;
rawko-sdk skips the file). Every case where they differ is recorded in differences.json with its cause,
and docs/fidelity.md names each one; a case that starts or stops differing fails here.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rawko_tui.core.js.yaml2 import load_yaml12
from rawko_tui.core.js.jsyaml import YamlError, load_yaml
from test_profiles import _typed

SUITE = Path(__file__).parent / "data" / "yaml-test-suite"
CASES = json.loads((SUITE / "cases.json").read_text(encoding="utf-8"))["cases"]
RECORDED = json.loads((SUITE / "differences.json").read_text(encoding="utf-8"))
FIDELITY_PAGE = Path(__file__).parent.parent / "docs" / "fidelity.md"
READERS = {"jsYaml": load_yaml, "yaml": load_yaml12}


def _reading(read, document: str) -> dict:
    try:
        return {"value": _typed(read(document))}
    except YamlError:
        return {"error": True}


@pytest.fixture(scope="module")
def suite_differences(oracle) -> dict[str, set[str]]:
    expected = oracle.run([case["yaml"] for case in CASES], "yaml_suite_probe.js")
    found: dict[str, set[str]] = {name: set() for name in READERS}
    for case, want in zip(CASES, expected, strict=True):
        for name, read in READERS.items():
            got = _reading(read, case["yaml"])  # a traceback other than YamlError fails the test here
            same = ("error" in got) == ("error" in want[name]) and got.get("value") == want[name].get("value")
            if not same:
                found[name].add(case["id"])
    return found


def test_the_suite_is_kept_whole_with_its_licence():
    assert len(CASES) == 402 and sum(case["error"] for case in CASES) == 94
    assert (SUITE / "License").read_text(encoding="utf-8").startswith("MIT License")


@pytest.mark.parametrize("reader", sorted(READERS))
def test_every_suite_case_reads_as_the_javascript_library_reads_it_or_is_a_recorded_exception(suite_differences, reader):
    assert sorted(suite_differences[reader] - set(RECORDED[reader])) == [], "new differences"
    assert sorted(set(RECORDED[reader]) - suite_differences[reader]) == [], "recorded differences that are gone: update differences.json and docs/fidelity.md"


def test_the_fidelity_page_names_every_exception():
    page = FIDELITY_PAGE.read_text(encoding="utf-8")
    for reader, cases in RECORDED.items():
        for case_id in cases:
            assert case_id in page, f"{reader} {case_id}"
    assert len(RECORDED["jsYaml"]) + len(RECORDED["yaml"]) < 2 * len(CASES)


# Frontmatter-like documents where a reading once differed: each is compared with both libraries.
DOCUMENTS = [
    'example: |\n  const rocket = "\\ud83d\\ude80";\ntitle: "\\ud83d\\ude80 launch"',  # a surrogate escape in a block scalar is text
    "note: 'say \"\\ud83d\\ude80\" twice'",
    'title: "go now\n  the \\ud83d\\ude80 rocket"',  # a pair on a continuation line
    'title: "half \\ud83d of it"',  # a lone surrogate escape
    'title: "\\\\ud83d\\ude80"',
    "a: {-: 1}",
    "a: [-: 1]",
    "a: <<",
    "<<: {a: 1}\nb: 2",
    "# only a comment",
    "  \n\n",
    " ",
    "title: >\n  Alpha notes",
    "discoveredBy: |\n  developer",
    "title: ! 12",
    "a: &x 1\nb: *x\na2: &x 2\nb2: *x",
    "description: ># note\n  text",
    "extra: [-]",
    'title: "Alpha notes"# note',
]


def test_frontmatter_like_documents_read_as_both_libraries_read_them(oracle):
    expected = oracle.run(DOCUMENTS, "yaml_suite_probe.js")
    for document, want in zip(DOCUMENTS, expected, strict=True):
        for name, read in READERS.items():
            got = _reading(read, document)
            assert ("error" in got) == ("error" in want[name]) and got.get("value") == want[name].get("value"), (name, document, got, want[name])
