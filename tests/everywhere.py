"""A store with hostile text in every string a store can hold.

``hostile_store(root, value, name)`` writes a store (a git repository) in which
each string field -- memory titles, patterns, tags, bodies, link targets, file
and folder names, appended entries, agent definitions, the store's settings
(profiles, ``now``, the person's keys it must not set), saved tasks, sessions,
commit messages and authors -- is ``value(field)`` (``name(field)`` where it is a
file or folder name). The tests choose what the text is: markup
(``test_markup.py``), line breaks (``test_cli_output.py``).

The store still works: the hostile memory matches ``TASK`` and is injected, a
near-duplicate of it makes a consolidation pair, a saved task fails naming it,
and a session, a broken memory and a memory in a subfolder are there too.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Callable

TASK = "fix the auth login"
NOW = "2026-01-24T12:00:00Z"
WORDS = (
    "The login endpoint validates the bearer token before the session lookup; the middleware "
    "returns 401 with a JSON body when the signature or the expiry check fails, and the refresh "
    "token rotates on every use so a stolen one is useful once. "
)


def yq(text: str) -> str:
    """A YAML double-quoted scalar holding ``text`` exactly (JSON's escapes are YAML's)."""
    return json.dumps(text)


def git(root: Path, *args: str, author: str = "Ada", message_env: dict | None = None) -> None:
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": author,
        "GIT_AUTHOR_EMAIL": "a@example.com",
        "GIT_COMMITTER_NAME": "Ada",
        "GIT_COMMITTER_EMAIL": "a@example.com",
        **(message_env or {}),
    }
    subprocess.run(["git", *args], cwd=root, check=True, capture_output=True, env=env)


def hostile_store(root: Path, value: Callable[[str], str], name: Callable[[str], str]) -> dict[str, str]:
    """Write the store; return the hostile file names used (``memory``, ``twin``, ``broken``, ``folder``, ``agent``, ``session``)."""
    names = {key: name(key) for key in ("memory", "twin", "broken", "folder", "agent", "session")}
    rawko = root / ".rawko"
    memories = rawko / "memories"
    (memories / names["folder"]).mkdir(parents=True)

    def memory_file(title: str, extra_body: str = "") -> str:
        return (
            "---\n"
            f"title: {yq(title)}\n"
            f"whenToUse: [auth, {yq(value('pattern'))}]\n"
            f"tags: [auth, {yq(value('tag'))}]\n"
            "importance: high\n"
            "discoveredAt: 2026-01-23T10:30:00Z\n"
            f"discoveredBy: {yq(value('discoveredBy'))}\n"
            f"discoveredIn: {yq(value('discoveredIn'))}\n"
            f"source: {yq(value('source'))}\n"
            f"relatedMemories: [{yq(value('related'))}]\n"
            "---\n\n"
            f"[a link]({value('href')}) and [another](<{value('href-spaced')}>) {value('body')}\n\n" + WORDS * 3 + extra_body + "\n"
        )

    # the hostile memory: injected for TASK, with an appended entry whose fields are hostile too
    (memories / f"{names['memory']}.md").write_text(
        memory_file(value("title"))
        + "\n---\n"
        + "updatedAt: 2026-01-24T09:00:00Z\n"
        + f"updatedBy: {yq(value('updatedBy'))}\n"
        + f"note: {yq(value('note'))}\n"
        + "---\n\n"
        + f"{value('entry-body')}\n"
    )
    # a near-duplicate: the consolidation queue pairs the two
    (memories / f"{names['twin']}.md").write_text(memory_file(value("twin-title")))
    (memories / f"{names['broken']}.md").write_text(f"---\ntitle: {yq(value('broken-title'))}\nwhenToUse: [\n---\nbroken\n")
    (memories / "odd-fields.md").write_text(
        f"---\ntitle: Odd fields\nwhenToUse: auth\nimportance: {yq(value('importance'))}\n"
        f"discoveredAt: {yq(value('date'))}\ndiscoveredBy: {yq(value('by-odd'))}\ntags: {yq(value('tags-not-a-list'))}\n---\n\n{WORDS}\n"
    )
    (memories / names["folder"] / "nested.md").write_text(memory_file(value("nested-title")))

    agents = rawko / "agents"
    agents.mkdir()
    (agents / "developer.md").write_text(f"---\nname: developer\nmemory:\n  maxInjected: 5\n  tags: [auth, {yq(value('agent-tag'))}]\n---\n")
    (agents / f"{names['agent']}.md").write_text(
        f"---\nname: {yq(value('agent-name'))}\nmemory:\n  maxInjected: {yq(value('maxInjected'))}\n  minImportance: {yq(value('minImportance'))}\n---\n"
    )

    profile = value("profile")
    (rawko / "rawko-tui.yaml").write_text(
        "arbiters:\n"
        f"  {yq(profile)}:\n    base: rawko-sdk\n    summary: {yq(value('profile-summary'))}\n"
        f"  {yq(value('broken-profile'))}:\n    base: {yq(value('profile-base'))}\n"
        f"now: {yq(value('now'))}\n"
        f"staleDays: {yq(value('staleDays'))}\n"
        # the person's own settings, which a store's file cannot set
        f"theme: {yq(value('theme'))}\n"
        f"keymap: {{confirm-yes: {yq(value('keymap'))}, memories-sort: {yq(value('keymap-sort'))}}}\n"
        f"author: {yq(value('author'))}\n"
        f"model: {yq(value('model'))}\n"
    )
    (rawko / "checks.yaml").write_text(
        "tasks:\n"
        f"  - name: {yq(value('check-name'))}\n"
        f"    task: {yq(TASK + ' ' + value('check-task'))}\n"
        f"    agent: {yq(value('ca'))}\n"
        f"    now: {NOW}\n"
        "    expect:\n"
        f"      inject: [{yq(value('expected'))}]\n"
        f"      not_inject: [{yq(names['memory'] + '.md')}]\n"
    )
    session = rawko / "sessions" / names["session"]
    session.mkdir(parents=True)
    (session / "agent-memory.yaml").write_text(
        'version: "1"\nschema: "agent-memory"\n'
        f"sessionId: {yq(value('session-id'))}\n"
        f"agent: {yq(value('session-agent'))}\n"
        f"createdAt: {yq(value('createdAt'))}\n"
        "discoveries:\n"
        f"  - id: {yq(value('discovery-id'))}\n"
        f"    timestamp: {yq(value('timestamp'))}\n"
        f"    importance: {yq(value('discovery-importance'))}\n"
        f"    content: {yq(value('discovery') + ' ' + WORDS)}\n"
        "attempts:\n"
        f"  - id: {yq(value('attempt-id'))}\n"
        f"    description: {yq(value('attempt'))}\n"
        f"    result: {yq(value('result'))}\n"
        f"    output: {yq(value('output'))}\n"
    )
    # history: three commits by a hostile author with hostile messages, the last an append
    git(root, "init", "-q", "-b", "main")
    git(root, "add", ".rawko/checks.yaml")  # first the saved task alone: `impact HEAD~2 HEAD` has a change to name
    git(root, "commit", "-q", "-m", value("first-commit"), author=value("git-author"))
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", value("second-commit"), author=value("git-author"))
    with open(memories / f"{names['memory']}.md", "a") as handle:
        handle.write(f"\n---\nupdatedAt: 2026-01-24T10:00:00Z\nnote: {yq(value('late-note'))}\n---\n\n{value('late-body')}\n")
    git(root, "commit", "-q", "-am", value("third-commit"), author=value("git-author"))
    return names
