"""No text from a store reaches the screen as markup, on any screen, notifications included.

Every string a store can hold (``everywhere.hostile_store``: titles, patterns,
tags, bodies and their link targets, file and folder names, appended entries,
agents, profiles, the settings a store must not set, saved tasks, sessions,
commit messages and authors) carries Textual markup: an unbalanced closing tag
(``[/oops]``: Textual fails on it), a click action that would quit the app, bold,
and a ``file://`` link. The app is driven through every screen and pane, its
links are clicked and its notifications raised: it must never crash, quit or
style any of it, and the markup must be on screen as the literal text it is.
"""

from __future__ import annotations

import pytest
from textual.widgets import DataTable, Markdown

from everywhere import NOW, TASK, hostile_store
from test_app import SIZE, _screen_text, settle
from rawko_tui.tui.app import create_app
from rawko_tui.tui.widgets.memories.memory_list import MemoryList

MARKUP = "[/oops][@click=app.quit]Q[/][b]B[/b][link=file:///etc/passwd]L[/link]"
NAME_MARKUP = "[b]B[@click=app.quit]Q"  # a file name holds no slash


def value(field: str) -> str:
    return f"{field}{MARKUP}"


def name(field: str) -> str:
    return f"{field}{NAME_MARKUP}"


@pytest.fixture
def hostile(tmp_path, monkeypatch):
    root = tmp_path / "store"
    root.mkdir()
    names = hostile_store(root, value, name)
    # the person's own settings file may hold markup too: it is said literally
    settings = tmp_path / "config.yaml"
    settings.write_text(f'theme: "{MARKUP}"\nkeymap: {{"{MARKUP}": f5}}\n')
    monkeypatch.setenv("RAWKO_TUI_CONFIG", str(settings))
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    monkeypatch.setenv("ANTHROPIC_BASE_URL", "http://127.0.0.1:9")  # nothing answers there: every Claude call fails plainly
    return root, names


def alive(app) -> None:
    assert app.is_running and app.return_code is None, "the app quit"
    assert app._exception is None, f"the app failed: {app._exception!r}"


def literal_on_screen(app, *fields: str, markup: str = MARKUP) -> None:
    """Each field's markup is on screen as written (at least its start: cells and lines are cut)."""
    shown = _screen_text(app)
    for field in fields:
        expected = f"{field}{markup}"[: len(field) + 16]
        assert expected in shown, f"{expected!r} is not on screen as written:\n{shown}"
    assert "B[/b]" in shown or NAME_MARKUP in shown or markup[:16] in shown


def toast(app, fragment: str) -> None:
    """A notification on screen holds ``fragment`` as written (a toast wraps its lines: its text is compared)."""
    shown = [" ".join(toast.render().plain.split()) for toast in app.screen.query("Toast")]
    assert any(" ".join(fragment.split()) in text for text in shown), f"no toast shows {fragment!r}: {shown}"


def notified(app, *fragments: str) -> None:
    messages = " ".join(n.message for n in app._notifications)
    for fragment in fragments:
        assert fragment in messages, f"no notification holds {fragment!r}: {[n.message for n in app._notifications]}"


async def lint_done(pilot) -> None:
    """Until lint has reported (its findings are what the settings notification says); bounded, so a lint that never
    reports fails the test instead of hanging it."""
    for _ in range(400):
        if pilot.app.findings:
            break
        await pilot.pause(0.05)
    await settle(pilot)


async def back(pilot) -> None:
    await pilot.press("escape")
    await settle(pilot)


async def test_markup_in_every_string_of_a_store_is_literal_on_every_screen(hostile):
    root, names = hostile
    memory = f".rawko/memories/{names['memory']}.md"
    app = create_app(root, task=TASK, agent="developer", now=NOW, poll_seconds=None)
    async with app.run_test(size=SIZE, notifications=True, tooltips=True) as pilot:  # toasts drawn, as in a terminal
        await settle(pilot)
        await lint_done(pilot)  # the settings notification comes with lint
        await settle(pilot)
        alive(app)
        # the person's settings file with markup, and the store's settings it cannot set: said literally
        notified(app, f"theme '{MARKUP}' is not a theme here", f"no key binding has the id '{MARKUP}'", "theme, keymap, author, model are yours to set, not a store's", "Put them in your own settings file, /tmp/")

        # memories and the preview: titles, file names, tags
        literal_on_screen(app, "title")
        assert f"{names['memory']}" in _screen_text(app) or "memory[b]B" in _screen_text(app)

        # the memory: header, fields, related memories, timeline, history, findings, body
        app.query_one(MemoryList).select_path(memory)
        await settle(pilot)
        alive(app)
        literal_on_screen(app, "title")
        view = app.query_one("#memory")
        fields_text = " ".join(str(cell) for row in app.query_one("#memory-fields", DataTable).rows for cell in app.query_one("#memory-fields", DataTable).get_row(row))
        for field in ("discoveredBy", "discoveredIn", "source", "note", "late-note"):
            assert f"{field}{MARKUP}"[:40] in fields_text

        # a related memory that is not in the store: Enter says so
        related = app.query_one("#memory-related", DataTable)
        related.focus()
        await pilot.press("enter")
        await settle(pilot)
        alive(app)
        notified(app, f"No memory named 'related{MARKUP}'")

        # links in the body, clicked
        markdown = app.query_one("#memory-body", Markdown)
        paragraph = markdown.query("MarkdownParagraph").first()
        paragraph.scroll_visible(animate=False)
        await settle(pilot)
        await pilot.click(paragraph, offset=(2, 0))
        await settle(pilot)
        alive(app)
        notified(app, f"Link not opened: href{MARKUP}")
        toast(app, f"Link not opened: href{MARKUP}")
        await pilot.click(paragraph, offset=(12, 0))  # the second link: <…> lets its target hold spaces
        await settle(pilot)
        alive(app)
        notified(app, f"Link not opened: href-spaced{MARKUP}")

        # the history: a commit's diff (hostile author, message, file name)
        commits = app.query_one("#memory-commits", DataTable)
        assert commits.row_count >= 2
        commits.focus()
        await pilot.press("enter")
        await settle(pilot)
        alive(app)
        assert type(app.screen).__name__ == "DiffScreen"
        assert NAME_MARKUP in _screen_text(app)
        await back(pilot)

        # why and prompt
        app.query_one("#memory-table").focus()
        await pilot.press("4")
        await settle(pilot)
        literal_on_screen(app, "title")
        await pilot.press("p")
        await settle(pilot)
        literal_on_screen(app, "title")
        alive(app)

        # help
        app.query_one("#memory-table").focus()
        await pilot.press("question_mark")
        await settle(pilot)
        alive(app)
        await back(pilot)

        # the arbiters side by side: a profile the store names
        await pilot.press("v")
        await settle(pilot)
        alive(app)
        assert type(app.screen).__name__ == "CompareScreen"
        literal_on_screen(app, "profile")
        await back(pilot)

        # saved tasks and the matrix: a task's name, agent and expectations
        await pilot.press("k")
        await settle(pilot)
        alive(app)
        literal_on_screen(app, "check-name")
        app.screen.query_one("#checks-tabs").active = "tab-matrix"
        await settle(pilot)
        alive(app)
        literal_on_screen(app, "ca", markup=MARKUP[:7])
        await back(pilot)

        # consolidation: the pair, its reason, Claude asked about it (and failing plainly)
        await pilot.press("c")
        await settle(pilot)
        alive(app)
        assert type(app.screen).__name__ == "ConsolidationScreen"
        assert NAME_MARKUP in _screen_text(app)
        await pilot.press("o")
        await settle(pilot)
        alive(app)
        notified(app, f"Asking Claude about {names['memory']}.md")
        await pilot.press("m")  # the merge editor: both memories' names and texts in the draft
        await settle(pilot)
        alive(app)
        assert type(app.screen).__name__ == "MergeScreen"
        await pilot.press("ctrl+d")  # Claude's draft, asked for and failing plainly
        await settle(pilot)
        alive(app)
        await back(pilot)
        if type(app.screen).__name__ == "ConfirmDiscard":
            await pilot.press("y")
            await settle(pilot)
        await back(pilot)

        # sessions: ids, items, Claude's extraction asked for (and failing plainly)
        await pilot.press("o")
        await settle(pilot)
        alive(app)
        literal_on_screen(app, "session-id")
        await pilot.press("x")
        await settle(pilot)
        alive(app)
        notified(app, f"Asking Claude what session session-id{MARKUP} taught")
        await back(pilot)

        # a new memory: the editor, the closest memories, the confirmation and its impact
        app.query_one("#memory-table").focus()
        await pilot.press("n")
        await settle(pilot)
        alive(app)
        app.screen.query_one("#merge-text").text = (
            "---\ntitle: Login token refresh\nwhenToUse: [auth, login]\ntags: [auth]\nimportance: high\n"
            "discoveredAt: 2026-01-24T11:00:00Z\ndiscoveredBy: developer\n---\n\n" + "The refresh token rotates on every use in the login flow. " * 8 + "\n"
        )
        await settle(pilot)
        for _ in range(400):  # the closest memories are looked for once typing pauses (a timer): bounded wait
            if app.screen.closest:
                break
            await pilot.pause(0.05)
        app.clear_notifications()  # earlier toasts (they stay longer on a loaded machine) would cover the closest memories
        await settle(pilot)
        literal_on_screen(app, "twin", markup=NAME_MARKUP)  # the closest existing memory, by its name
        await pilot.press("ctrl+s")
        await settle(pilot)
        alive(app)
        assert type(app.screen).__name__ == "ConfirmWrite"
        impact = str(app.screen.query_one("#confirm-impact").render())  # below the bytes: read from the widget
        # the saved task is quoted literally (the store's broken memory makes every run throw, before and after
        # this write alike, so no injection changes: what is quoted is the task its patterns match)
        assert f"check-task{MARKUP}"[:21] in impact, impact
        await pilot.press("n")
        await settle(pilot)
        await back(pilot)
        assert type(app.screen).__name__ == "ConfirmDiscard"
        await pilot.press("y")
        await settle(pilot)
        alive(app)

        # an append to the hostile memory: its name in the editor and the confirmation
        app.query_one(MemoryList).select_path(memory)
        await settle(pilot)
        app.query_one("#memory-table").focus()
        await pilot.press("a")
        await settle(pilot)
        alive(app)
        assert NAME_MARKUP in _screen_text(app)
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert type(app.screen).__name__ == "ConfirmWrite"
        assert NAME_MARKUP in _screen_text(app)
        await pilot.press("n")
        await settle(pilot)
        await back(pilot)
        alive(app)

        # the command palette: an agent the store names
        await pilot.press("ctrl+p")
        await pilot.pause(0.3)
        await pilot.press(*"preview as agent")
        await pilot.pause(0.5)
        await settle(pilot)
        alive(app)
        literal_on_screen(app, "Preview as agent-name", markup=MARKUP[:10])
        await pilot.press("escape")
        await settle(pilot)
        alive(app)
