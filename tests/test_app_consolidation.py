"""The consolidation queue in the app: kinds filtered, stale folded, each decision one confirmed commit, the queue kept open."""

from __future__ import annotations

from conftest import FIXED_NOW, memory
from test_consolidation import DISTRACTORS, JWT_A, JWT_B, committed_store, git
from textual.widgets import DataTable, Static, TextArea

from rawko_tui.tui.app import create_app

SIZE = (150, 46)
ROTATION = (
    "JWT refresh tokens rotate on every use",
    "Refreshing in src/auth/token.ts issues a new refresh token and revokes the old one; reusing a revoked one logs the family out.",
)


def committed(tmp_path, monkeypatch, files):
    monkeypatch.setenv("RAWKO_TUI_CACHE_DIR", str(tmp_path / "cache"))
    return committed_store(tmp_path, monkeypatch, files)


async def settle(pilot):
    await pilot.pause()
    await pilot.app.settled()
    await pilot.pause()


async def open_queue(pilot):
    from rawko_tui.tui.screens.consolidation import ConsolidationScreen

    await settle(pilot)
    await pilot.press("c")
    await settle(pilot)
    await pilot.pause(0.2)
    await settle(pilot)
    assert isinstance(pilot.app.screen, ConsolidationScreen)
    return pilot.app.screen


async def write_confirmed(pilot):
    """y in the confirmation, then the write, the commit and the queue found again."""
    await pilot.press("y")
    await settle(pilot)
    await pilot.pause(0.3)
    await settle(pilot)


def commits(root) -> int:
    return int(git(root, "rev-list", "--count", "HEAD"))


async def test_stale_items_fold_into_one_row_kinds_filter_and_a_link_keeps_the_queue_open_on_the_next_item(tmp_path, monkeypatch):
    from rawko_tui.tui.screens.confirm_write import ConfirmWrite
    from rawko_tui.tui.screens.consolidation import STALE_SUMMARY, ConsolidationScreen

    old = {
        f"old-{area}.md": memory(title=f"How {area} work", at="2024-01-01T00:00:00Z", body=f"Notes on {area}: see src/{area}/index.ts.")
        for area in ("queues", "billing", "uploads")
    }
    root = committed(
        tmp_path,
        monkeypatch,
        {
            "expiry.md": memory(title=f'"{JWT_A[0]}"', body=JWT_A[1]),
            "rotation.md": memory(title=f'"{ROTATION[0]}"', body=ROTATION[1]),
            **DISTRACTORS,
            **old,
        },
    )
    app = create_app(root, now=FIXED_NOW, poll_seconds=None)
    async with app.run_test(size=SIZE) as pilot:
        queue = await open_queue(pilot)
        assert [g if g == STALE_SUMMARY else g.kind for g in queue.groups] == ["related", STALE_SUMMARY]  # three stale memories, one row
        table = queue.query_one("#candidates", DataTable)
        table.move_cursor(row=1)
        await pilot.press("enter")
        await settle(pilot)
        assert [g.kind for g in queue.groups] == ["related", "stale", "stale", "stale"]
        await pilot.press("f")  # near-duplicates only: none here
        await settle(pilot)
        assert queue.groups == [] and "showing near-duplicate" in queue.sub_title
        await pilot.press("f", "f")  # contradictions (none), then related
        await settle(pilot)
        assert [g.kind for g in queue.groups] == ["related"]
        await pilot.press("f", "f", "f")  # stale, unused, then every kind again
        await settle(pilot)
        assert queue.kind_filter is None
        table.move_cursor(row=0)
        await pilot.press("l")
        await settle(pilot)
        assert isinstance(app.screen, ConfirmWrite) and commits(root) == 1  # nothing written on one key
        shown = str(app.screen.query_one("#confirm-bytes").render())
        assert "to .rawko/memories/expiry.md" in shown and "to .rawko/memories/rotation.md" in shown and "- rotation" in shown
        await write_confirmed(pilot)
        assert isinstance(app.screen, ConsolidationScreen) and commits(root) == 2
        assert [g if g == STALE_SUMMARY else g.kind for g in queue.groups] == ["stale", "stale", "stale"]  # the next item took the row
        assert table.cursor_row == 0
    assert set(git(root, "show", "--name-only", "--format=", "HEAD").split()) == {
        ".rawko/memories/expiry.md",
        ".rawko/memories/rotation.md",
    }


def _one_stale_memory(tmp_path, monkeypatch):
    """A committed store of one memory nobody confirmed for two years."""
    return committed(tmp_path, monkeypatch, {"old.md": memory(title="How queues work", at="2024-01-01T00:00:00Z", body="Notes on queues: see src/queues/index.ts.")})


async def test_confirming_a_stale_memory_is_one_confirmed_append(tmp_path, monkeypatch):
    from rawko_tui.tui.screens.consolidation import STALE_SUMMARY

    root = _one_stale_memory(tmp_path, monkeypatch)
    app = create_app(root, now=FIXED_NOW, poll_seconds=None)
    async with app.run_test(size=SIZE) as pilot:
        queue = await open_queue(pilot)
        assert queue.groups == [STALE_SUMMARY]
        await pilot.press("f", "f", "f", "f")  # stale only: listed
        await settle(pilot)
        assert [g.kind for g in queue.groups] == ["stale"]
        await pilot.press("c")
        await settle(pilot)
        shown = str(app.screen.query_one("#confirm-bytes").render())
        assert "to .rawko/memories/old.md" in shown and "confirmed: true" in shown
        await write_confirmed(pilot)
        assert queue.groups == [] and commits(root) == 2


async def test_related_memories_are_listed_in_the_memory_pane_and_enter_goes_to_one(tmp_path, monkeypatch):
    root = committed(
        tmp_path,
        monkeypatch,
        {
            "expiry.md": memory(title="Expiry", extra="relatedMemories: [rotation, gone]", body=JWT_A[1]),
            "rotation.md": memory(title="Rotation", body=ROTATION[1]),
        },
    )
    app = create_app(root, now=FIXED_NOW, poll_seconds=None)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.select_memory(".rawko/memories/expiry.md")
        await settle(pilot)
        related = app.query_one("#memory-related", DataTable)
        assert related.display and related.row_count == 2
        related.focus()
        await pilot.press("enter")
        await settle(pilot)
        assert app.selected == ".rawko/memories/rotation.md"
        app.select_memory(".rawko/memories/expiry.md")
        await settle(pilot)
        related.focus()
        await pilot.press("down", "enter")
        await settle(pilot)
        assert app.selected == ".rawko/memories/expiry.md"  # 'gone' names no file: said, and nothing moves


async def test_a_new_memory_shows_the_closest_existing_one_and_can_go_to_it_as_an_append(tmp_path, monkeypatch):
    from rawko_tui.tui.screens.memory_editor import MemoryEditor

    root = committed(tmp_path, monkeypatch, {"jwt-expiry.md": memory(title=f'"{JWT_A[0]}"', when='"jwt"', body=JWT_A[1]), **DISTRACTORS})
    app = create_app(root, now=FIXED_NOW, poll_seconds=None)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.action_new_memory()
        await settle(pilot)
        editor = app.screen
        assert isinstance(editor, MemoryEditor)
        editor.query_one("#merge-text", TextArea).text = f'---\ntitle: "{JWT_B[0]}"\nwhenToUse: jwt\n---\n\n{JWT_B[1]}\n'
        await pilot.pause(0.8)
        await settle(pilot)
        closest = str(editor.query_one("#editor-closest").render())
        assert "jwt-expiry.md" in closest and "may already hold this lesson" in closest and "src/auth/token.ts" in closest
        area = editor.query_one("#merge-text", TextArea)
        area.move_cursor((5, 4))
        await pilot.press("ctrl+a")  # the text area's own key: to the line start, nothing else
        await settle(pilot)
        assert area.cursor_location == (5, 0) and app.screen is editor
        await pilot.press("ctrl+o")
        await settle(pilot)
        shown = str(app.screen.query_one("#confirm-bytes").render())
        assert "to .rawko/memories/jwt-expiry.md" in shown and "one day (24 hours)" in shown
        await write_confirmed(pilot)
    assert commits(root) == 2 and not (root / ".rawko" / "memories" / "jwt-token-expiry-is-24-hours.md").exists()
    assert git(root, "log", "-1", "--format=%s").startswith("rawko-tui: append jwt-expiry.md")  # an append, named as one
    assert "instead of creating a new one" in git(root, "log", "-1", "--format=%B")
    assert "one day (24 hours)" in (root / ".rawko" / "memories" / "jwt-expiry.md").read_text()


async def test_claudes_opinion_on_a_pair_arrives_in_a_worker_and_is_shown_with_its_quotes(tmp_path, monkeypatch, fake):
    import json

    from test_consolidation import POOL_A, POOL_B

    root = committed(
        tmp_path,
        monkeypatch,
        {"a.md": memory(title=f'"{POOL_A[0]}"', when='"pool"', body=POOL_A[1]), "b.md": memory(title=f'"{POOL_B[0]}"', when='"pool"', body=POOL_B[1]), **DISTRACTORS},
    )
    fake.answers.append((200, json.dumps({"verdict": "contradiction", "quoteA": "`max: 20`", "quoteB": "`max: 50`", "why": "Two sizes for one pool."})))
    app = create_app(root, now=FIXED_NOW, poll_seconds=None)
    async with app.run_test(size=SIZE) as pilot:
        queue = await open_queue(pilot)
        assert [g.kind for g in queue.groups] == ["contradiction"]
        await pilot.pause(0.3)
        await settle(pilot)
        reason = str(queue.query_one("#candidate-reason").render())
        assert "left:  The Postgres pool in src/db/pool.ts is configured with `max: 20`." in reason
        today = "today: 'Database connection pool size' (developer): the arbiter injects both, side by side in one prompt"
        assert today in reason
        await pilot.press("o")
        await settle(pilot)
        await pilot.pause(0.3)
        await settle(pilot)
        reason = str(queue.query_one("#candidate-reason").render())
        assert "Claude: contradiction: Two sizes for one pool.  left: '`max: 20`'  right: '`max: 50`'" in reason
        assert today in reason  # the opinion joins what was shown; it does not replace it
    assert len([s for s in fake.seen if s["path"].startswith("/v1/messages") and "count_tokens" not in s["path"]]) == 1


async def test_keep_and_merge_are_not_offered_on_a_related_pair_and_their_keys_say_why(tmp_path, monkeypatch):
    from rawko_tui.tui.screens.consolidation import ConsolidationScreen

    root = committed(
        tmp_path,
        monkeypatch,
        {"expiry.md": memory(title=f'"{JWT_A[0]}"', body=JWT_A[1]), "rotation.md": memory(title=f'"{ROTATION[0]}"', body=ROTATION[1]), **DISTRACTORS},
    )
    app = create_app(root, now=FIXED_NOW, poll_seconds=None)
    async with app.run_test(size=SIZE) as pilot:
        queue = await open_queue(pilot)
        assert [g.kind for g in queue.groups] == ["related"]
        offered = {active.binding.action for active in queue.active_bindings.values()}
        assert {"link", "dismiss_group"} <= offered and not offered & {"keep_left", "supersede", "merge"}  # the footer
        for key in ("k", "s", "m"):
            await pilot.press(key)
            await settle(pilot)
            assert isinstance(app.screen, ConsolidationScreen)  # no retirement, no merge editor
        notes = [n.message for n in app._notifications]
        assert len([n for n in notes if "This pair is related" in n and "l links them" in n]) == 3
    assert commits(root) == 1


async def test_linking_a_pair_linked_already_says_so_and_writes_nothing(tmp_path, monkeypatch):
    from rawko_tui.tui.screens.consolidation import ConsolidationScreen

    root = committed(
        tmp_path,
        monkeypatch,
        {
            "a.md": memory(title=f'"{JWT_A[0]}"', extra="relatedMemories: [b]", body=JWT_A[1]),
            "b.md": memory(title=f'"{JWT_B[0]}"', extra="relatedMemories: [a]", body=JWT_B[1]),
            **DISTRACTORS,
        },
    )
    app = create_app(root, now=FIXED_NOW, poll_seconds=None)
    async with app.run_test(size=SIZE) as pilot:
        queue = await open_queue(pilot)
        assert [g.kind for g in queue.groups] == ["near-duplicate"]  # linked, but still the same knowledge
        await pilot.press("l")
        await settle(pilot)
        assert isinstance(app.screen, ConsolidationScreen)
        assert "a.md and b.md are linked already: each lists the other in relatedMemories. Nothing was written." in [n.message for n in app._notifications]
    assert commits(root) == 1


async def test_retiring_a_stale_memory_asks_for_the_reason_and_never_writes_the_placeholder_or_the_queues_note(tmp_path, monkeypatch):
    from rawko_tui.tui.screens.confirm_write import ConfirmWrite
    from rawko_tui.tui.screens.consolidation import ConsolidationScreen
    from rawko_tui.tui.screens.memory_editor import MemoryEditor

    root = _one_stale_memory(tmp_path, monkeypatch)
    app = create_app(root, now=FIXED_NOW, poll_seconds=None)
    async with app.run_test(size=SIZE) as pilot:
        queue = await open_queue(pilot)
        await pilot.press("f", "f", "f", "f")  # stale only: listed
        await settle(pilot)
        assert [g.kind for g in queue.groups] == ["stale"]
        await pilot.press("r")
        await settle(pilot)
        editor = app.screen
        assert isinstance(editor, MemoryEditor)  # the retire editor every retirement goes through, not a ready-made write
        shown = " ".join(str(static.render()) for static in editor.query(Static))
        assert "Why the queue lists it (a note, not a reason): stale: discovered " in shown
        area = editor.query_one("#merge-text", TextArea)
        assert "reason: why it no longer holds" in area.text and "stale:" not in area.text  # the queue's note is shown, not written
        for reason in ("why it no longer holds", "''", "'   '"):
            area.text = area.text.replace("reason: why it no longer holds", f"reason: {reason}")
            await settle(pilot)
            await pilot.press("ctrl+s")
            await settle(pilot)
            assert app.screen is editor  # refused: no confirmation to say yes to
            assert "not written: " in str(editor.query_one("#merge-lint").render())
            area.text = area.text.replace(f"reason: {reason}", "reason: why it no longer holds")
        notes = [n.message for n in app._notifications if n.message.startswith("Not written:")]
        assert notes[0] == "Not written: the reason is still the placeholder ('why it no longer holds'): write why this memory no longer holds."
        assert notes[1] == notes[2] == "Not written: a retirement needs a reason: write why the memory no longer holds."
        area.text = area.text.replace("reason: why it no longer holds", "reason: the queues moved to SQS in March")
        await settle(pilot)
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert isinstance(app.screen, ConfirmWrite)
        await write_confirmed(pilot)
        assert isinstance(app.screen, ConsolidationScreen) and queue.groups == []  # written, and the queue found again
    assert commits(root) == 2
    text = (root / ".rawko" / "memories" / "old.md").read_text()
    assert "reason: the queues moved to SQS in March" in text and "never updated since" not in text


async def test_the_merge_editor_lints_the_draft_as_lint_will_once_it_is_written(tmp_path, monkeypatch):
    from rawko_tui.core.lint.linter import lint_store
    from rawko_tui.core.store.loading import load_store
    from rawko_tui.tui.screens.consolidation import ConsolidationScreen
    from rawko_tui.tui.screens.merge import MergeScreen

    root = committed(
        tmp_path,
        monkeypatch,
        {
            "a.md": memory(title=f'"{JWT_A[0]}"', body=JWT_A[1]),
            "b.md": memory(title=f'"{JWT_B[0]}"', body=JWT_B[1]),
            # a third memory in force with a's title: a merged memory under that title would clash with it
            "c.md": memory(title=f'"{JWT_A[0]}"', when='"csp"', body="The CSP header set by helmet has no unsafe-inline; scripts need a nonce."),
            **DISTRACTORS,
        },
    )
    app = create_app(root, now=FIXED_NOW, poll_seconds=None)
    async with app.run_test(size=SIZE) as pilot:
        queue = await open_queue(pilot)
        assert queue.groups[0].kind == "near-duplicate" and {p.rsplit("/", 1)[-1] for p in queue.groups[0].paths} == {"a.md", "b.md"}
        await pilot.press("m")
        await settle(pilot)
        editor = app.screen
        assert isinstance(editor, MergeScreen)
        area = editor.query_one("#merge-text", TextArea)
        assert f"title: {JWT_B[0]}\n" in area.text  # the original's title nothing in force holds once the merge is written
        assert "Lint: clean" in str(editor.query_one("#merge-lint").render())
        area.text = area.text.replace(f"title: {JWT_B[0]}\n", f"title: {JWT_A[0]}\n")
        await settle(pilot)
        shown = str(editor.query_one("#merge-lint").render())
        assert "warning: the title is shared by .rawko/memories/c.md, .rawko/memories/jwt-tokens-expire-after-24-hours.md" in shown
        assert "a.md" not in shown  # a.md is retired by this merge: its title is no clash
        area.text = area.text.replace(f"title: {JWT_A[0]}\n", f"title: {JWT_B[0]}\n")
        await settle(pilot)
        assert "Lint: clean" in str(editor.query_one("#merge-lint").render())
        await pilot.press("ctrl+s")
        await settle(pilot)
        await write_confirmed(pilot)
        assert isinstance(app.screen, ConsolidationScreen)
    assert commits(root) == 2
    findings = lint_store(load_store(root))
    merged = ".rawko/memories/jwt-token-expiry-is-24-hours.md"
    assert (root / merged).is_file()
    assert [f for f in findings if f.path == merged] == []  # what the editor said: clean
    # b.md (the merged title's original) and a.md (c.md's) are retired by the merge: history, not a second memory of the title
    assert [f for f in findings if f.code == "duplicate-title"] == []


async def test_the_contradiction_view_says_the_arbiter_throws_when_it_does(tmp_path, monkeypatch):
    from test_consolidation import POOL_A, POOL_B

    root = committed(
        tmp_path,
        monkeypatch,
        {
            "a.md": memory(title=f'"{POOL_A[0]}"', when='"pool"', body=POOL_A[1]),
            "b.md": memory(title=f'"{POOL_B[0]}"', when='"pool"', body=POOL_B[1]),
            "broken.md": memory(title="42", when='"pool"'),  # SPEC-0007's scoring throws on a title that is not text
            **DISTRACTORS,
        },
    )
    app = create_app(root, now=FIXED_NOW, poll_seconds=None)
    async with app.run_test(size=SIZE) as pilot:
        queue = await open_queue(pilot)
        assert [g.kind for g in queue.groups] == ["contradiction"]
        await pilot.pause(0.3)
        await settle(pilot)
        reason = str(queue.query_one("#candidate-reason").render())
        assert "injects both" not in reason
        assert (
            "today: 'Database connection pool size' (developer): An arbiter running SPEC-0007's code verbatim throws while scoring "
            ".rawko/memories/broken.md: TypeError: memory.frontmatter.title.toLowerCase is not a function. It injects nothing at all."
        ) in reason
