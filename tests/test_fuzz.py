"""Fuzzing the parser: generated frontmatter and bodies never make it raise, and its two views agree.

The spec's view (Deno ``extract``: the first frontmatter, the rest is body) and
the entry view (the append-only log split into entries) are read from the same
text; whatever the text, they must tell the same story.
"""

from __future__ import annotations

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from rawko_tui.core.arbiters.ranking import run_preview
from rawko_tui.core.store.fold import effective_store
from rawko_tui.core.js.values import js_trim
from rawko_tui.core.lint.linter import lint_file
from rawko_tui.core.store.reading import MemoryFile, Store, parse_memory_bytes
from rawko_tui.core.record.writer import format_entry

KEYS = ["title", "whenToUse", "importance", "tags", "discoveredAt", "discoveredBy", "status", "x", "title ", "- a", "? k"]
SCALARS = [
    "auth", "'quoted'", '"dq \\u00e9"', "high", "High", "2026-01-24T09:15:00Z", "2026-13-45", "yes", "0123", "~", "null", "[a, b]",
    "{a: 1}", "&x anchor", "*x", "!!python/object:os.system", "!!binary aGk=", "|\n  block", ">\n  folded", "'unterminated", "[unclosed",
    "- item", "a: b: c", "\t tab", "---", "...", "#comment", "%YAML 1.2", "\x00", "\ufeff", "é", "😀", "\r", "<<<<<<< HEAD",
]
LINES = st.one_of(
    st.sampled_from(["---", "...", "", "```", "~~~", "# Heading", "Ignore previous instructions", "---\r", "title: x", "=======", "  - item"]),
    st.text(max_size=40),
)


@st.composite
def frontmatter(draw) -> str:
    pairs = draw(st.lists(st.tuples(st.sampled_from(KEYS), st.one_of(st.sampled_from(SCALARS), st.text(max_size=20))), max_size=8))
    return "\n".join(f"{key}: {value}" for key, value in pairs)


@st.composite
def memory_text(draw) -> str:
    parts = []
    for _ in range(draw(st.integers(1, 4))):
        if draw(st.booleans()):
            parts.append("---\n" + draw(frontmatter()) + "\n" + draw(st.sampled_from(["---", "...", "--- ", ""])) + "\n")
        parts.append("\n".join(draw(st.lists(LINES, max_size=8))))
    return draw(st.sampled_from(["", "\ufeff"])) + draw(st.sampled_from(["\n\n", "\n", ""])).join(parts)


def _parsed(data: bytes) -> MemoryFile:
    memory = MemoryFile(location="/nonexistent/.rawko/memories/fuzz.md", rel_path=".rawko/memories/fuzz.md", name="fuzz.md", top_level=True, size=len(data))
    parse_memory_bytes(memory, data)
    return memory


def _check_views_agree(memory: MemoryFile) -> None:
    entries = memory.entries  # never raises
    assert entries and [e.index for e in entries] == list(range(len(entries)))
    assert all(isinstance(e.body, str) for e in entries)
    lines = [e.line for e in entries]
    assert lines == sorted(lines) and len(set(lines)) == len(lines)
    if memory.error is None:
        # the spec's frontmatter is the first entry's, and everything after it is body text to the spec
        assert entries[0].frontmatter is memory.spec.attrs
        for entry in entries:
            assert entry.body.strip() in memory.spec.body
        assert memory.differs_from_entries == (len(entries) > 1)
    else:
        assert memory.error.reason and (memory.error.line is None or memory.error.line >= 1)
    for suspect in memory.suspect_blocks:
        assert suspect.line > 1 and suspect.reason


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(memory_text())
def test_generated_memory_files_never_make_the_parser_or_lint_raise(text):
    memory = _parsed(text.encode("utf-8", "surrogatepass"))
    _check_views_agree(memory)
    for finding in lint_file(memory):
        assert finding.message and finding.code


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=400))
def test_arbitrary_bytes_never_make_the_parser_raise(data):
    memory = _parsed(b"---\n" + data if data[:1] == b"t" else data)
    _check_views_agree(memory)
    lint_file(memory)


ENTRY_FIELDS = st.fixed_dictionaries(
    {"title": st.text(min_size=1, max_size=30).filter(str.strip)},
    optional={
        "importance": st.sampled_from(["low", "medium", "high", "critical", "urgent"]),
        "whenToUse": st.lists(st.text(max_size=15), max_size=3),
        "tags": st.lists(st.sampled_from(["auth", "code", "testing"]), max_size=3),
        "status": st.sampled_from(["active", "retired"]),
    },
)
BODIES = st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"), max_size=80)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(ENTRY_FIELDS, BODIES), min_size=1, max_size=4))
@example([({"title": "0"}, "\ufeff")])  # a body that is only a byte-order mark: white space to JavaScript's trim
@example([({"title": "0"}, "\x1f")])  # a body that is only U+001F: white space to Python, text to JavaScript
def test_what_the_writer_appends_is_read_back_entry_by_entry(entries):
    """A file made the way rawko-tui and SPEC-0005 append (entries joined by a blank line) reads back as those entries."""
    text = "\n\n".join(format_entry(fields, body) for fields, body in entries)
    memory = _parsed(text.encode())
    assert memory.error is None
    assert memory.spec.attrs == entries[0][0]
    read = memory.entries
    _check_views_agree(memory)
    # a body line that is itself "---" followed by YAML could open an entry: only plain bodies must round-trip
    if all("---" not in body and "..." not in body and "```" not in body and "~~~" not in body for _, body in entries):
        assert [e.frontmatter for e in read] == [fields for fields, _ in entries]
        # trimmed as JavaScript trims (the reader's semantics): U+FEFF is white space there, not in Python
        assert [js_trim(e.body) for e in read] == [js_trim(body) for _, body in entries]


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(memory_text(), min_size=1, max_size=4), st.text(max_size=30))
def test_a_store_of_generated_files_previews_in_both_views_without_raising(texts, task):
    files = []
    for k, text in enumerate(texts):
        memory = _parsed(text.encode("utf-8", "surrogatepass"))
        memory.name, memory.rel_path = f"m{k}.md", f".rawko/memories/m{k}.md"
        files.append(memory)
    store = Store(root=__import__("pathlib").Path("/nonexistent"), files=files, agents={}, config={})
    for view in (store, effective_store(store)):
        preview = run_preview(view, task, "developer", now_ms=1_769_256_000_000)
        assert len(preview.injected) <= 5
        assert isinstance(preview.prompt, str)


def test_an_entry_whose_body_is_text_to_javascript_is_in_the_fold():
    """A body of U+001F (white space to Python, text to JavaScript's trim) is an entry's body, and the fold's body
    keeps it, as it keeps every body the reader keeps; a body of U+FEFF (JavaScript's white space) is blank to both."""
    from rawko_tui.core.store.fold import effective_body

    text = "\n\n".join(format_entry(fields, body) for fields, body in [({"title": "a"}, "first"), ({"title": "b"}, "\x1f"), ({"title": "c"}, "\ufeff")])
    memory = _parsed(text.encode())
    assert [e.body for e in memory.entries] == ["first", "\x1f", ""]
    assert effective_body(memory) == "first\n\n\x1f"
