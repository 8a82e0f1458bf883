"""Claude drafts through the real Anthropic SDK, against a fake server on loopback (never the network)."""

from __future__ import annotations

import json

import pytest

from conftest import memory, write_store
from fakeapi import KEY
from rawko_tui.cli import main
from rawko_tui.core.curation.claude import ClaudeError, EXTRACTION_PROMPT, build_extraction_prompt, parse_extraction
from rawko_tui.core.lint.linter import lint_store
from rawko_tui.core.store.loading import load_store

GOOD = {
    "shouldCreateMemory": True,
    "memoryTitle": "Rate limiter keys on the forwarded address",
    "frontmatter": {
        "title": "Rate limiter keys on the forwarded address",
        "whenToUse": ["rate limit|throttl", "login.{0,20}attempts"],
        "tags": ["implementation", "security"],
        "importance": "high",
        "discoveredBy": "developer",
    },
    "content": "The login rate limiter in src/middleware/rate-limit.ts allows five attempts per minute and keys on "
    "the X-Forwarded-For address set by the proxy. Behind a second proxy every user shares one key, so the limit "
    "trips for everyone at once; read the last trusted hop instead. Tests in tests/middleware cover one proxy only.",
}


@pytest.fixture
def store(tmp_path):
    root = write_store(tmp_path / "store", {"jwt.md": memory(title="JWT tokens", body="Tokens expire after 24 hours. " * 10)})
    (tmp_path / "output.txt").write_text("Added the rate limiter; it keys on X-Forwarded-For behind the proxy.")
    return root


def extract(store, *extra):
    return main(["extract", str(store), "--from", str(store.parent / "output.txt"), "--agent", "developer", "--task", "Add login rate limiting", *extra])


def test_the_prompt_is_the_specs_with_its_placeholders_filled():
    prompt = build_extraction_prompt("developer", "Add login rate limiting", "OUTPUT", "success", [("jwt.md", "JWT tokens")])
    assert prompt.startswith("\nYou are extracting long-term memories")
    assert "AGENT OUTPUT:\nOUTPUT\n\nTASK:\nAdd login rate limiting\n\nRESULT:\nsuccess" in prompt
    assert "- JWT tokens (jwt.md)" in prompt and '"discoveredBy": "developer"' in prompt
    assert EXTRACTION_PROMPT.count("{agent}") == 1


def test_a_proposed_memory_is_shown_and_written_and_lints_clean(fake, store, capsys):
    fake.answers.append((200, "Here you go:\n" + json.dumps(GOOD)))
    assert extract(store) == 0
    out = capsys.readouterr().out
    assert "--- new file .rawko/memories/rate-limiter-keys-on-the-forwarded-address.md ---" in out and "Proposed only" in out
    assert not (store / ".rawko" / "memories" / "rate-limiter-keys-on-the-forwarded-address.md").exists()
    sent = fake.seen[0]
    assert "AGENT OUTPUT:\nAdded the rate limiter" in sent["payload"]["messages"][0]["content"]
    fake.answers.append((200, json.dumps(GOOD)))
    assert extract(store, "--write") == 0
    written = load_store(store).file("rate-limiter-keys-on-the-forwarded-address.md")
    assert written.attrs["discoveredBy"] == "developer" and written.attrs["discoveredIn"] == "Task: Add login rate limiting"
    findings = [f for f in lint_store(load_store(store)) if f.path.endswith("rate-limiter-keys-on-the-forwarded-address.md")]
    assert [f for f in findings if f.severity in ("error", "warning")] == []


def test_no_memory_shows_the_reasoning(fake, store, capsys):
    fake.answers.append((200, json.dumps({"shouldCreateMemory": False, "reasoning": "Only debugging steps."})))
    assert extract(store) == 0
    assert "No memory proposed. Reasoning: Only debugging steps." in capsys.readouterr().out


@pytest.mark.parametrize(
    ("answer", "message"),
    [
        ((200, "not json at all"), "held no JSON object"),
        ((200, '{"shouldCreateMemory": true, "frontmatter": '), "held no JSON object"),
        ((200, '{"shouldCreateMemory": "yes"}'), "does not say shouldCreateMemory"),
        ((401, {"type": "error", "error": {"type": "authentication_error", "message": "invalid x-api-key"}}), "the API key was refused"),
        ((429, {"type": "error", "error": {"type": "rate_limit_error", "message": "slow down"}}), "rate limited"),
        ((500, {"type": "error", "error": {"type": "api_error", "message": "boom"}}), "the API answered 500"),
    ],
)
def test_failures_are_plain_and_never_show_the_key(fake, store, capsys, answer, message):
    fake.answers.extend([answer, answer])  # the SDK may retry once
    assert extract(store) == 1
    err = capsys.readouterr().err
    assert message in err and KEY not in err
    assert not list((store / ".rawko" / "memories").glob("rate-*"))


def test_no_key_says_how_to_get_drafts(store, capsys, monkeypatch):
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    assert extract(store) == 1
    assert "set ANTHROPIC_API_KEY" in capsys.readouterr().err


def test_unreachable_api(store, capsys, monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    monkeypatch.setenv("ANTHROPIC_BASE_URL", "http://127.0.0.1:9")  # nothing listens on the discard port
    assert extract(store) == 1
    assert "cannot reach the API" in capsys.readouterr().err


def test_malformed_json_is_reported_by_the_parser():
    with pytest.raises(ClaudeError, match="malformed"):
        parse_extraction('{"shouldCreateMemory": true, "frontmatter": {"title": "x"}, "content": "y",}')
