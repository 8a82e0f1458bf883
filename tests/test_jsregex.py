"""JavaScript regex semantics, checked against V8 on random patterns and texts."""

from __future__ import annotations

import json
import random
import subprocess

import pytest

from conftest import ORACLE_DIR
from rawko_tui.core.js.regexp import JsRegexSyntaxError, compile_js
from rawko_tui.core.js.values import utf16_length

TOKENS = [
    "a", "b", "A", "é", "É", "ſ", "s", "k", "K", "😀", "1", "_", " ", "-", ".", "*", "+", "?", "*?", "|", "(", ")",
    "(?:", "(?=", "(?!", "(?<=", "(?<!", "(?<n>", "\\k<n>", "\\1", "\\2", "[", "]", "[^", "^", "$", "\\d", "\\D",
    "\\w", "\\W", "\\s", "\\S", "\\b", "\\B", "{2}", "{1,3}", "{2,}", "{", "}", "{1", "\\u0041", "\\x61", "\\u{41}",
    "\\c", "\\cJ", "\\0", "\\07", "\\8", "\\", "\\.", "\\-", "\\n", "\n", "\\/", "\\p{L}",
]
TEXT_ALPHABET = "ab AB1_-é É ſsSkK😀\n.\\{}"


def _random_case(rng: random.Random) -> tuple[str, str, str]:
    source = "".join(rng.choice(TOKENS) for _ in range(rng.randint(1, 7)))
    text = "".join(rng.choice(TEXT_ALPHABET) for _ in range(rng.randint(0, 10)))
    return source, rng.choice(["i", "i", ""]), text


def _v8(cases):
    import shutil

    node = shutil.which("node")
    proc = subprocess.run([node, str(ORACLE_DIR / "regex_probe.js")], input=json.dumps(cases), capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def _ours(source, flags, text):
    try:
        compiled = compile_js(source, ignore_case="i" in flags)
    except JsRegexSyntaxError as exc:
        return {"error": str(exc)}
    span = compiled.search(text)
    return {"span": None if span is None else list(span)}


def _python_index(text: str, unit: int) -> int:
    """The index of the character holding UTF-16 unit ``unit`` (half an emoji maps to the emoji)."""
    for index in range(len(text) + 1):
        if utf16_length(text[: index + 1]) > unit or index == len(text):
            return index
    return len(text)


@pytest.mark.parametrize("seed", range(8))
def test_random_patterns_agree_with_v8(oracle, seed):
    rng = random.Random(seed)
    cases = [_random_case(rng) for _ in range(600)]
    expected = _v8(cases)
    mismatches = []
    for case, want in zip(cases, expected, strict=True):
        got = _ours(*case)
        if "error" in want or "error" in got:
            same = ("error" in want) == ("error" in got)
        else:
            # the span is compared only where it is unambiguous: the match's existence and start
            same = (want["span"] is None) == (got["span"] is None) and (
                want["span"] is None or _python_index(case[2], want["span"][0]) == got["span"][0]
            )
        if not same:
            mismatches.append((case, want, got))
    assert not mismatches, mismatches[:5]


def test_syntax_errors_read_like_v8():
    for source, message in [("a**", "Nothing to repeat"), ("[z-a]", "Range out of order"), ("(", "Unterminated group"), (")", "Unmatched ')'"), ("x{2,1}", "numbers out of order")]:
        with pytest.raises(JsRegexSyntaxError, match=message.replace("(", r"\(").replace(")", r"\)")):
            compile_js(source)


def test_patterns_without_lookaround_or_backreferences_run_on_re2():
    assert compile_js("implement.{0,10}auth").linear_time
    assert compile_js("(a+)+$.*").linear_time
    assert not compile_js(r"(a)\1").linear_time


def test_forgetting_the_compiled_translations_changes_no_answer():
    from rawko_tui.core.js.regexp import forget_compiled_re2

    kept = compile_js("login|auth.{0,10}token")
    assert kept.search("fix the auth jwt token") is not None
    forget_compiled_re2()  # the app's comparison lets go of its one-off compilations
    assert kept.search("fix the auth jwt token") is not None and kept.search("nothing here") is None
    again = compile_js("login|auth.{0,10}token")
    assert again.search("fix the auth jwt token") is not None and again.search("nothing here") is None


ASCII_TEXT = "ab AB1_-sSkK.\\{}xy"


@pytest.mark.parametrize("seed", range(4))
def test_required_needles_never_rule_out_a_match(seed):
    # the first query of a preview skips a regex whose needles the (ASCII) text lacks: that must never skip a match
    rng = random.Random(seed)
    tested = skipped = 0
    for _ in range(4000):
        source = "".join(rng.choice(TOKENS) for _ in range(rng.randint(1, 7)))
        text = "".join(rng.choice(ASCII_TEXT) for _ in range(rng.randint(0, 12)))
        try:
            compiled = compile_js(source, ignore_case=rng.random() < 0.7)
        except JsRegexSyntaxError:
            continue
        tested += 1
        if not compiled.may_match(text.lower()):
            skipped += 1
            assert not compiled.test(text), (source, text, compiled.needles)
    assert tested > 1500 and skipped > tested // 10  # the filter is exercised, not vacuous


def test_required_needles_of_usual_patterns():
    from rawko_tui.core.js.regexp import _Parser, required_needles

    def needles(source):
        return required_needles(_Parser(source, True).parse())

    assert needles(".*service-alert.*") == ("service-alert",)
    assert needles("session..*download_payment") == ("download_payment",)  # the longer of two required parts
    assert needles("(foo|bar)baz") == ("barbaz", "foobaz")
    assert needles("\\bAuth\\b") == ("auth",)  # lowered: the text is matched lowered
    assert needles("colou?r") == ("colo",)
    assert needles("[é]") == ()  # cannot match ASCII text at all
    for unknown in (".", "\\d+", "abc|.*", "(?=abc)", "[^a]"):
        assert needles(unknown) is None, unknown


def test_deeply_nested_capturing_groups_are_searched_in_little_memory():
    """A memory's pattern of 24,000 nested capturing groups: RE2 searched it with two slots per group in every
    thread (gigabytes); without captures, the answer is the same within a few megabytes (here under a 1 GB cap)."""
    import sys

    code = (
        "import resource; resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))\n"
        "from rawko_tui.core.js.regexp import compile_js, JsRegexUndecided\n"
        "regex = compile_js('(' * 24000 + 'deploy' + ')' * 24000, True)\n"
        "try:\n    print(regex.test('we deploy on friday'))\n"
        "except JsRegexUndecided as exc:\n    print(exc.kind, exc.matched_if_accepted)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split() == ["v8-limit", "True"]  # V8 may refuse it; if it runs, it matches


def test_re2_translations_capture_nothing_and_match_the_same():
    from rawko_tui.core.js.regexp import _compiled_re2

    regex = compile_js(r"(dep(lo)y)|(a(b)c)", True)
    import re

    assert regex.engine == "re2" and re.search(r"(?<!\\)\((?!\?)", regex.translated) is None, regex.translated
    assert _compiled_re2(regex.translated).search("we deploy").span() == (3, 9)


def test_a_regex_of_words_and_their_alternation_matches_ascii_text_as_v8_does(oracle):
    """``literal_alternation``: a pattern of ASCII words joined by ``|`` is decided on ASCII text by whether one of its
    words occurs (lowered, with the i flag), without compiling it: the same answer as V8's on 6,000 generated cases
    (words of mixed case, digits, ``_``, ``-`` and spaces; texts holding them, their case changed, or near misses)."""
    from rawko_tui.core.js.regexp import literal_alternation

    rng = random.Random(12)
    letters = "abcdeKkSsXyZ019_- "
    cases, words_of = [], []
    for _ in range(6000):
        words = ["".join(rng.choice(letters) for _ in range(rng.randint(1, 6))) for _ in range(rng.randint(1, 4))]
        source, flags = "|".join(words), rng.choice(["i", ""])
        pieces = [rng.choice(words), rng.choice(words).swapcase(), rng.choice(words)[1:], "".join(rng.choice(letters + ".,;") for _ in range(rng.randint(0, 8)))]
        text = " ".join(rng.sample(pieces, rng.randint(0, len(pieces))))
        cases.append((source, flags, text))
        words_of.append(literal_alternation(compile_js(source, ignore_case=flags == "i")))
    expected = _v8(cases)
    decided = 0
    for (source, flags, text), words, want in zip(cases, words_of, expected, strict=True):
        if words is None:  # not the shape (a pattern of spaces alone still is one): the engine decides it
            continue
        searched = text.lower() if flags == "i" else text
        assert any(word in searched for word in words) == (want["span"] is not None), (source, flags, text)
        decided += 1
    assert decided > 5000
    assert literal_alternation(compile_js("a.b|c")) is None and literal_alternation(compile_js("a||b")) is None
    assert literal_alternation(compile_js("Cache-Test|react", ignore_case=False)) == ("Cache-Test", "react")
