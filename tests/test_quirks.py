"""Each quirk of SPEC-0007's JavaScript that the preview must keep, one test each."""

from __future__ import annotations

import time

import pytest

from conftest import FIXED_NOW, memory, write_store
from rawko_tui.core.arbiters.decision import ArbiterOptions, content_preview, parse_now
from rawko_tui.core.arbiters.ranking import run_preview
from rawko_tui.core.js.regexp import compile_js
from rawko_tui.core.arbiters.patterns import match_pattern
from rawko_tui.core.store.reading import spec_extract
from rawko_tui.core.store.loading import load_store
from rawko_tui.core.js.jsyaml import YamlError, load_yaml

NOW = parse_now(FIXED_NOW)


def preview(root, task, agent="developer", **options):
    return run_preview(load_store(root), task, agent, ArbiterOptions(**options), NOW)


def by_path(result, name):
    return result.candidate(f".rawko/memories/{name}")


# --- matchPattern ------------------------------------------------------------


def test_pipe_pattern_is_split_into_literal_alternatives():
    result = match_pattern("find.*file|locate", "find the config file developer")
    assert result.interpretation == "alternatives"
    assert not result.matched  # ".*" is not a wildcard inside a "|" pattern
    assert match_pattern("find.*file|locate", "grep find.*file developer").matched


def test_empty_alternative_matches_everything():
    assert match_pattern("auth|", "nothing related at all developer").matched
    assert match_pattern("|", "x").matched


def test_star_and_question_mark_become_dot_star_and_dot():
    result = match_pattern("implement*auth", "implement the auth flow developer")
    assert result.interpretation == "wildcard" and result.regex_source == "implement.*auth" and result.matched
    result = match_pattern("te?t", "a tent developer")
    assert result.regex_source == "te.t" and result.matched


def test_dot_star_written_by_the_user_becomes_dot_dot_star():
    result = match_pattern("scope.*too", "scopetoo developer")
    assert result.regex_source == "scope..*too" and not result.matched
    assert any("'..*'" in note for note in result.notes)


def test_question_mark_rewrite_mangles_regex_groups():
    result = match_pattern("(?:auth).{0,3}x", "auth  x developer")
    assert result.interpretation == "wildcard" and result.regex_source == "(.:auth).{0,3}x"
    assert not result.matched  # "(.:auth)" needs a character and a colon before "auth"


def test_pattern_with_dot_and_brace_is_a_regex():
    result = match_pattern("implement.{0,5}auth", "implement  auth developer")
    assert result.interpretation == "regex" and result.matched
    assert not match_pattern("implement.{0,5}auth", "implement the new auth developer").matched
    # a dot without a brace is a plain substring
    assert match_pattern("v1.2", "bump to v1.2 developer").interpretation == "substring"


def test_invalid_regex_falls_through_to_substring():
    result = match_pattern("impl*(", "impl*( literally developer")
    assert result.interpretation == "substring" and result.matched
    assert result.fell_through and "not a valid JavaScript regex" in result.fell_through[0]
    result = match_pattern("(auth.{1", "(auth.{1 developer")
    assert result.interpretation == "substring" and result.matched


def test_pattern_is_lowercased_and_trimmed_so_escapes_change_meaning():
    # "\D" (not a digit) becomes "\d" once the spec lower-cases the pattern
    result = match_pattern(r"x\D{1}.", "x5y developer")
    assert result.regex_source == r"x\d{1}." and result.matched
    assert match_pattern("  AUTH  ", "fix auth developer").matched


def test_the_agent_name_is_part_of_the_searched_text():
    assert match_pattern("developer", "unrelated task developer").matched


def test_regex_follows_javascript_semantics():
    # "$" does not match before a final newline (Python's re would)
    assert not compile_js("auth$").test("auth\n")
    # \d and \w are ASCII only
    assert not compile_js(r"\d").test("٣")
    assert not compile_js(r"\w").test("é")
    # "." does not match a line terminator, and sees an astral character as two units
    assert not compile_js("a.b").test("a\nb")
    assert not compile_js("a.b").test("a😀b") and compile_js("a..b").test("a😀b")
    # case-insensitive matching uses Canonicalize, not Unicode folding
    assert not compile_js("s", True).test("ſ")
    assert compile_js("é").test("É")


def test_catastrophic_pattern_runs_in_linear_time(tmp_path):
    write_store(tmp_path, {"bomb.md": memory(title="Bomb", when='"(a+)+$*"')})
    start = time.perf_counter()
    result = preview(tmp_path, "a" * 40 + "b")
    elapsed = time.perf_counter() - start
    assert elapsed < 1.0
    # "(a+)+$*" becomes /(a+)+$.*/i; "$" needs the end of "aaa…b developer", so no match
    pattern = by_path(result, "bomb.md").patterns[0]
    assert pattern.regex_source == "(a+)+$.*" and pattern.engine == "re2" and not pattern.matched


# --- scoring -----------------------------------------------------------------


def test_leading_whitespace_gives_an_empty_word_that_every_title_contains(tmp_path):
    write_store(tmp_path, {"m.md": memory(title="Zebra", when='"zzz|"')})
    plain = by_path(preview(tmp_path, "nothing"), "m.md")
    spaced = by_path(preview(tmp_path, "  nothing"), "m.md")
    assert plain.components["keyword"] == 0
    assert spaced.components["keyword"] == 5  # the empty word "" is in every title
    assert by_path(preview(tmp_path, " nothing "), "m.md").components["keyword"] == 10


def test_task_words_count_when_contained_in_the_title_not_the_other_way(tmp_path):
    write_store(tmp_path, {"m.md": memory(title="Authentication Module Structure", when='"auth"')})
    result = by_path(preview(tmp_path, "auth module"), "m.md")
    assert result.components["keyword"] == 10  # "auth" and "module" are inside the title
    result = by_path(preview(tmp_path, "authentication2 implement auth"), "m.md")
    assert result.components["keyword"] == 5  # only "auth"; "authentication2" is not in the title


def test_keyword_points_cap_at_twenty(tmp_path):
    write_store(tmp_path, {"m.md": memory(title="a b c d e f", when='"a"')})
    assert by_path(preview(tmp_path, "a b c d e f"), "m.md").components["keyword"] == 20


def test_unknown_importance_scores_zero_and_fails_every_threshold(tmp_path):
    write_store(tmp_path, {"m.md": memory(importance="High", when='"auth"'), "n.md": memory(importance="urgent", when='"auth"')})
    result = preview(tmp_path, "auth")
    for name in ("m.md", "n.md"):
        candidate = by_path(result, name)
        assert candidate.matched and candidate.components["importance"] == 0
        assert not candidate.meets_threshold and not candidate.injected
        assert candidate.reason == "below-importance-threshold"


def test_unparseable_date_gives_no_recency(tmp_path):
    write_store(tmp_path, {"m.md": memory(at='"last tuesday"'), "n.md": memory(at=None)})
    result = preview(tmp_path, "auth")
    assert by_path(result, "m.md").components["recency"] == 0
    assert by_path(result, "n.md").components["recency"] == 0


def test_future_date_counts_as_recent(tmp_path):
    write_store(tmp_path, {"m.md": memory(at="2027-06-01T00:00:00Z")})
    assert by_path(preview(tmp_path, "auth"), "m.md").components["recency"] == 10


@pytest.mark.parametrize(("hours", "points"), [(23.9, 10), (24, 5), (71.9, 5), (72, 0)])
def test_recency_boundaries(tmp_path, hours, points):
    from datetime import datetime, timezone

    at = datetime.fromtimestamp(NOW / 1000 - hours * 3600, tz=timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    write_store(tmp_path, {"m.md": memory(at=at)})
    assert by_path(preview(tmp_path, "auth"), "m.md").components["recency"] == points


def test_offsetless_date_time_is_local_time(tmp_path, monkeypatch):
    write_store(tmp_path, {"m.md": memory(at='"2026-01-23T14:00:00"')})
    assert by_path(preview(tmp_path, "auth"), "m.md").components["recency"] == 10  # 22 h old in UTC
    monkeypatch.setenv("TZ", "Etc/GMT+3")  # UTC-3: 14:00 local is 17:00 UTC, 19 h old
    time.tzset()
    assert by_path(preview(tmp_path, "auth"), "m.md").components["recency"] == 10
    monkeypatch.setenv("TZ", "Etc/GMT-11")  # UTC+11: 14:00 local is 03:00 UTC, 33 h old
    time.tzset()
    assert by_path(preview(tmp_path, "auth"), "m.md").components["recency"] == 5


def test_agent_tags_and_same_agent(tmp_path):
    write_store(tmp_path, {"m.md": memory(tags="[code, patterns, code, code]", by="developer")})
    candidate = by_path(preview(tmp_path, "auth", "developer"), "m.md")
    assert candidate.components["agentTags"] == 15  # four shared tags, capped at 15
    assert candidate.components["sameAgent"] == 10
    other = by_path(preview(tmp_path, "auth", "Developer"), "m.md")  # strict equality, and no tag map entry
    assert other.components["agentTags"] == 0 and other.components["sameAgent"] == 0


def test_ties_keep_path_order(tmp_path):
    files = {f"{name}.md": memory(title=f"T {name}") for name in ("b", "a", "C", "é", "_")}
    write_store(tmp_path, files)
    result = preview(tmp_path, "auth")
    assert len({c.score for c in result.injected}) == 1
    # JavaScript's default sort: UTF-16 code units ("C" < "_" < "a" < "b" < "é")
    assert [c.file.name for c in result.injected] == ["C.md", "_.md", "a.md", "b.md", "é.md"]


def test_top_n_and_min_importance(tmp_path):
    write_store(tmp_path, {f"m{i}.md": memory(title=f"M{i}", importance=imp) for i, imp in enumerate(["low", "medium", "high", "critical"])})
    result = preview(tmp_path, "auth", max_memories=2, min_importance="medium")
    assert [c.file.name for c in result.injected] == ["m3.md", "m2.md"]
    assert by_path(result, "m1.md").reason == "cut-by-top-n" and by_path(result, "m1.md").rank == 3
    assert by_path(result, "m0.md").reason == "below-importance-threshold"
    assert preview(tmp_path, "auth", max_memories=-1).injected.__len__() == 3  # slice(0, -1)
    assert preview(tmp_path, "auth", max_memories=0).injected == []


def test_min_importance_that_is_not_a_level_lets_nothing_through(tmp_path):
    write_store(tmp_path, {"m.md": memory(importance="critical")})
    result = preview(tmp_path, "auth", min_importance="urgent")
    assert result.injected == [] and any("not a level" in n for n in result.notes)


# --- formatting --------------------------------------------------------------


def test_preview_cuts_at_first_level_heading_before_500():
    assert content_preview("intro\n# Next\nmore") == "intro"
    assert content_preview("# Heading first\nrest") == "# Heading first\nrest"  # index 0 is not > 0
    long = "x" * 600
    assert content_preview(long) == "x" * 500 + "..."
    late_heading = "y" * 520 + "\n# Late"
    assert content_preview(late_heading) == "y" * 500 + "..."
    assert content_preview("## Second level\nkept") == "## Second level\nkept"


def test_preview_cut_counts_utf16_units():
    body = "a" * 499 + "😀" + "tail"
    cut = content_preview(body)
    # 500 units end in the middle of the emoji: a lone surrogate, as in JavaScript
    assert cut == "a" * 499 + "\ud83d..."


def test_prompt_format_and_undefined_discoverer(tmp_path):
    write_store(tmp_path, {"m.md": memory(title="T", by=None, body="Line one.\n\n# Next\nhidden")})
    prompt = preview(tmp_path, "auth").prompt
    assert prompt == (
        "## Background Knowledge from Previous Runs\n\n"
        "The following information was learned from prior runs and may be relevant:\n\n"
        "### T\n*Importance: HIGH*\n*Discovered by: undefined*\n\nLine one.\n\n\n"
    )


# --- loading -----------------------------------------------------------------


def test_extract_drops_whitespace_only_lines_after_the_closing_delimiter():
    view = spec_extract("---\ntitle: x\n---\n\n   \n\n  indented first line\nnext\n")
    assert view.body == "  indented first line\nnext\n"


def test_extract_accepts_dots_as_closing_delimiter():
    assert spec_extract("---\ntitle: x\n...\nbody").body == "body"


def test_extract_must_match_at_the_start():
    with pytest.raises(ValueError):
        spec_extract("\n---\ntitle: x\n---\nbody")


def test_crlf_file_parses_as_the_javascript_regex_reads_it():
    # V8's multiline "$" matches before "\r", so Deno's regex accepts CRLF; the body keeps its "\r"s
    view = spec_extract("---\r\ntitle: x\r\n---\r\n\r\nbody\r\n")
    assert view.attrs == {"title": "x"} and view.body == "body\r\n"


def test_yaml_is_read_as_yaml_1_2():
    assert load_yaml("a: yes\nb: on\nc: 0123\nd: 0o17\ne: 1_000\nf: ~") == {"a": "yes", "b": "on", "c": 123, "d": 15, "e": "1_000", "f": None}


def test_duplicate_key_is_an_error():
    with pytest.raises(YamlError, match="duplicated mapping key"):
        load_yaml("title: a\ntitle: b")


def test_unsafe_tags_are_errors_not_executed():
    with pytest.raises(YamlError, match="unknown tag"):
        load_yaml("x: !!python/object/apply:os.system ['touch /tmp/pwned']")


def test_subfolders_are_listed_but_not_loaded_unless_recursive(tmp_path):
    write_store(tmp_path, {"top.md": memory(title="Top"), "deep/inner.md": memory(title="Inner")})
    result = preview(tmp_path, "auth")
    inner = result.candidate(".rawko/memories/deep/inner.md")
    assert not inner.loaded and inner.reason == "not-loaded-subfolder"
    assert "top level only" in inner.explanation.description
    recursive = preview(tmp_path, "auth", recursive=True)
    assert recursive.candidate(".rawko/memories/deep/inner.md").injected


def test_agent_config_applies_and_options_override_it(tmp_path):
    write_store(
        tmp_path,
        {f"m{i}.md": memory(title=f"M{i}", importance="high") for i in range(4)},
        agents={"developer": "---\nname: developer\nmemory:\n  maxInjected: 2\n  minImportance: critical\n---\n"},
    )
    from rawko_tui.core.arbiters.decision import resolve_options

    store = load_store(tmp_path)
    options = resolve_options(store, "developer")
    assert options.max_memories == 2 and options.min_importance == "critical"
    assert run_preview(store, "auth", "developer", options, NOW).injected == []
    overridden = resolve_options(store, "developer", max_memories=3, min_importance="low")
    assert len(run_preview(store, "auth", "developer", overridden, NOW).injected) == 3
    from rawko_tui.core.js.values import UNDEFINED

    assert resolve_options(store, "tester").max_memories is UNDEFINED  # no agent file: the spec's "?? 5"


def test_next_line_and_line_separators_are_ordinary_characters_as_in_yaml_1_2():
    # libyaml (YAML 1.1) breaks lines at U+0085, U+2028 and U+2029; js-yaml (YAML 1.2) keeps them
    assert load_yaml('t: "0\x85"\nu: a\u2028 b\nv: "x\u2029y"') == {"t": "0\x85", "u": "a\u2028 b", "v": "x\u2029y"}
