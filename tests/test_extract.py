"""Where the arbiters' front-matter regexes match, found without their lazy scans: Deno std's
(``reading.extract_span``) and rawko-sdk's own (``loaders.sdk_frontmatter_span``).

SPEC-0007's arbiter reads a memory with Deno std's ``extract``:
``/^(\\ufeff?---$([\\s\\S]+?)^(?:---|\\.\\.\\.)\\s*$(?:\\n)?)/im``, a match at index 0. Its lazy
``[\\s\\S]+?`` tries every character for the closing line; ``extract_span`` visits only the ``---`` and ``...``
a file holds. Both are put to generated texts built of the tokens that decide the match (delimiters, each
JavaScript line break, white space that is and is not a line break, a BOM): against the Python translation
of the regex (the groups' spans) and against V8 running the regex itself (where the whole match ends).
"""

from __future__ import annotations

import json
import random
import shutil
import subprocess

import pytest
from conftest import ORACLE_DIR

from rawko_tui.core.arbiters.loaders import SDK_FRONTMATTER, sdk_frontmatter_span
from rawko_tui.core.store import reading
from rawko_tui.core.store.reading import _EXTRACT_RE, extract_span

JS_EXTRACT = r"^(\ufeff?---$([\s\S]+?)^(?:---|\.\.\.)\s*$(?:\n)?)"
TOKENS = ["---", "...", "--", "..", "-", ".", "\n", "\n", "\r", "\r\n", "\u2028", "\u2029", " ", "\t", "\u00a0", "\ufeff", "\v", "\u3000", "a", "b: c"]


def _texts(seed: int, count: int, astral: bool = True) -> list[str]:
    rng = random.Random(seed)
    texts = []
    for _ in range(count):
        body = "".join(rng.choice(TOKENS + (["😀"] if astral else [])) for _ in range(rng.randint(0, 24)))
        opening = rng.choices(["---\n", "---", "\ufeff---\n", "---\r\n", "---\u2028", "--- \n", ""], weights=[10, 2, 2, 2, 1, 1, 1])[0]
        texts.append(opening + body)
    return texts


def _regex_span(text: str) -> tuple[int, int, int] | None:
    match = _EXTRACT_RE.match(text)
    return None if match is None else (match.start(2), match.end(2), match.end())


@pytest.mark.parametrize("looked_at", [reading.CANDIDATES_LOOKED_AT, 0, 1, 3])
def test_the_span_is_the_regexs_on_generated_texts(monkeypatch, looked_at):
    """Under its own limit of delimiters looked at one by one and with the closing line's regex taking over
    after none, one or three of them."""
    monkeypatch.setattr(reading, "CANDIDATES_LOOKED_AT", looked_at)
    texts = _texts(1, 30_000) + ["---", "---\n", "---\n---", "---\n\n---", "---\n---\n", "---\n.\n...", "---\n\n... \t\u2028x", "---\n\n--- \n \nx"]
    wrong = [(text, extract_span(text), _regex_span(text)) for text in texts if extract_span(text) != _regex_span(text)]
    assert not wrong, wrong[:5]
    assert sum(_regex_span(text) is not None for text in texts) > 3_000  # both sides exercised


@pytest.mark.parametrize("looked_at", [reading.CANDIDATES_LOOKED_AT, 0])
def test_where_the_match_ends_is_v8s(monkeypatch, looked_at):
    monkeypatch.setattr(reading, "CANDIDATES_LOOKED_AT", looked_at)
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is needed for the V8 oracle")
    texts = _texts(2, 8_000, astral=False)  # V8 counts UTF-16 units: every token is one unit a character
    cases = [[JS_EXTRACT, "im", text] for text in texts]
    proc = subprocess.run([node, str(ORACLE_DIR / "regex_probe.js")], input=json.dumps(cases), capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    wrong = []
    for text, answer in zip(texts, json.loads(proc.stdout), strict=True):
        span = answer["span"]
        expected = span[1] if span is not None and span[0] == 0 else None  # Deno's extract takes a match at index 0 only
        got = extract_span(text)
        if (got[2] if got is not None else None) != expected:
            wrong.append((text, got, span))
    assert not wrong, wrong[:5]
    assert sum(answer["span"] is not None for answer in json.loads(proc.stdout)) > 1_000


def test_a_long_file_of_delimiters_that_close_nothing_reads_as_the_regex_reads_it():
    """Thousands of ``...`` and ``---`` that do not start a line or are followed by text (past the delimiters
    looked at one by one): no match, and one closing line after them all is found."""
    text = "---\n" + "a...b\n" * 200_000 + "---x\n" * 50_000
    assert extract_span(text) is None and _regex_span(text) is None
    for tail in ("\n--- \t\r\nbody", "\n...", "\n---\u2028\n", "--- \n"):
        closing = text + tail
        assert extract_span(closing) == _regex_span(closing), tail


SDK_JS = r"^---\n([\s\S]*?)\n---\n?([\s\S]*)$"  # rawko-sdk's loader (rawko/src/memory), no flags


def _sdk_regex_span(text: str) -> tuple[int, int, int] | None:
    match = SDK_FRONTMATTER.match(text)
    return None if match is None else (match.start(1), match.end(1), match.start(2))


def test_rawko_sdks_span_is_its_regexs_on_generated_texts_and_v8_agrees():
    """rawko-sdk's regex: its frontmatter up to the first ``\\n---`` after the opening ``---\\n``, its body the
    rest past one ``\\n``. The groups' spans against the Python translation; match or not, and where the match
    ends, against V8 running the regex itself."""
    texts = _texts(3, 30_000) + ["---\n", "---\n---", "---\n\n---", "---\n---\n", "---\n\n---\n\nbody", "---\r\n---\n", "\ufeff---\n\n---\n"]
    wrong = [(text, sdk_frontmatter_span(text), _sdk_regex_span(text)) for text in texts if sdk_frontmatter_span(text) != _sdk_regex_span(text)]
    assert not wrong, wrong[:5]
    assert sum(_sdk_regex_span(text) is not None for text in texts) > 1_000
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is needed for the V8 oracle")
    bmp = _texts(4, 8_000, astral=False)
    proc = subprocess.run([node, str(ORACLE_DIR / "regex_probe.js")], input=json.dumps([[SDK_JS, "", text] for text in bmp]), capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    answers = json.loads(proc.stdout)
    wrong = [(text, answer) for text, answer in zip(bmp, answers, strict=True) if (answer["span"] is not None) != (sdk_frontmatter_span(text) is not None) or (answer["span"] is not None and answer["span"] != [0, len(text)])]
    assert not wrong, wrong[:5]
    assert sum(answer["span"] is not None for answer in answers) > 250
