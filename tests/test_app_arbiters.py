"""The arbiter profiles in the app: always named, switched with one key, compared side by side."""

from __future__ import annotations

from textual.widgets import DataTable, Static

from conftest import FIXED_NOW, write_store
from storegen import disagreeing_memories
from rawko_tui.tui.app import create_app
from rawko_tui.tui.screens.compare_arbiters import CompareScreen
from rawko_tui.tui.widgets.preview.preview_pane import PreviewPane

SIZE = (150, 46)
DISAGREEING = disagreeing_memories()


async def settle(pilot):
    await pilot.pause()
    await pilot.app.settled()
    await pilot.pause()


def app_for(root, task="add an api to find the login", agent="tester"):
    return create_app(root, task=task, agent=agent, now=FIXED_NOW, poll_seconds=None)


def header(app) -> str:
    return str(app.query_one("#preview-arbiter", Static).render())


async def test_the_profile_is_named_switched_with_b_and_the_others_summed_up(tmp_path):
    root = write_store(tmp_path, DISAGREEING)
    app = app_for(root)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert app.title == "rawko-tui · spec-0007"
        assert "Arbiter: spec-0007 (the default)" in header(app)
        assert "Others: rawko-sdk: −no-tags · spec-0005: +capital +regex" in header(app)
        app.query_one("#memory-table").focus()
        await pilot.press("b")
        await settle(pilot)
        assert app.title == "rawko-tui · rawko-sdk"
        assert app.preview.profile.name == "rawko-sdk"
        assert [c.file.name for c in app.preview.injected] == ["tester-tags.md", "adding-api.md", "regex.md"][:2] + [c.file.name for c in app.preview.injected][2:]
        assert "Arbiter: rawko-sdk (chosen with b)" in header(app)
        assert "Others: spec-0007: +no-tags · spec-0005: +capital +no-tags +regex" in header(app)
        await pilot.press("b")
        await settle(pilot)
        assert app.preview.profile.name == "spec-0005" and len(app.preview.injected) == 5
        table = app.query_one(PreviewPane).query_one("#results", DataTable)
        assert str(table.get_row_at(0)[1]) == "—"  # spec-0005 scores nothing
        await pilot.press("b")
        await settle(pilot)
        assert app.preview.profile.name == "spec-0007"


async def test_v_opens_the_side_by_side_view_with_the_deciding_rule(tmp_path):
    root = write_store(tmp_path, DISAGREEING)
    app = app_for(root)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.query_one("#memory-table").focus()
        await pilot.press("v")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, CompareScreen)
        table = screen.query_one("#compare-table", DataTable)
        rows = {str(table.get_row_at(i)[0]): [str(c) for c in table.get_row_at(i)] for i in range(table.row_count)}
        assert set(rows) == {"adding-api.md", "tester-tags.md", "capital.md", "regex.md", "no-tags.md"}
        assert rows["no-tags.md"][-1] == "loading: under rawko-sdk, rawko-sdk skips this file: `tags` is missing (its validation gate)"
        assert rows["no-tags.md"][2].startswith("not injected: rawko-sdk skips this file")
        await pilot.press("escape")
        await settle(pilot)
        assert not isinstance(app.screen, CompareScreen)


async def test_the_other_profiles_are_read_for_their_line_and_let_go_after_it(tmp_path):
    """The Others line and the side-by-side view say what a full comparison says, task after task, while the
    store keeps only the shown profile's view and index (the others' and lint's are dropped once used)."""
    import pytest

    from rawko_tui.core.arbiters.compare import compare_profiles, summary_line
    from rawko_tui.core.arbiters.decision import parse_now
    from rawko_tui.core.arbiters.profiles import BUILT_IN
    from rawko_tui.core.store.loading import load_store

    root = write_store(tmp_path, DISAGREEING)
    app = app_for(root)
    async with app.run_test(size=SIZE) as pilot:
        for task in ("add an api to find the login", "find the login"):
            app.query_one(PreviewPane).set_task(task)
            await settle(pilot)
            assert app.comparison.task == task and app.findings
            fresh = compare_profiles(load_store(root), task, "tester", list(BUILT_IN.values()), parse_now(FIXED_NOW))
            assert [d.to_dict() for d in app.comparison.differences] == [d.to_dict() for d in fresh.differences]
            assert summary_line(app.comparison, "spec-0007") == summary_line(fresh, "spec-0007")
            assert "Others: " + summary_line(fresh, "spec-0007") in header(app)
            kept = {key[0]: key for key in app.store._indexes}
            assert {key[1] for key in app.store._indexes if key[0] == "view"} == {"spec-0007"}
            assert set(kept) == {"view", "index"} and kept["index"][3] == "spec-0007"
            with pytest.raises(RuntimeError, match="kept only what it injects"):
                app.comparison.previews["rawko-sdk"].candidate("no-tags.md")
        app.query_one("#memory-table").focus()
        await pilot.press("v")
        await settle(pilot)
        table = app.screen.query_one("#compare-table", DataTable)
        assert [str(table.get_row_at(i)[0]) for i in range(table.row_count)] == [d.path.removeprefix(".rawko/memories/") for d in fresh.differences]
        assert [str(table.get_row_at(i)[-1]).rstrip("…") for i in range(table.row_count)] == [d.rule[: len(str(table.get_row_at(i)[-1]).rstrip("…"))] for i, d in enumerate(fresh.differences)]


async def test_the_other_profiles_are_compared_before_lint_and_both_are_shown(tmp_path, monkeypatch):
    """Lint waits for the ranking thread's first query, its comparison included (the comparison after lint grew
    on top of lint's findings): the Others line and every finding are shown all the same."""
    import rawko_tui.tui.app as app_module

    order = []
    compare, lint = app_module._compare_with_others, app_module.lint_store
    monkeypatch.setattr(app_module, "_compare_with_others", lambda *args, **kwargs: order.append("compare") or compare(*args, **kwargs))
    monkeypatch.setattr(app_module, "lint_store", lambda *args, **kwargs: order.append("lint") or lint(*args, **kwargs))
    root = write_store(tmp_path, DISAGREEING)
    app = app_for(root)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert order == ["compare", "lint"]
        assert "Others: rawko-sdk: −no-tags · spec-0005: +capital +regex" in header(app)
        assert {f.path.rsplit("/", 1)[-1] for f in app.findings if f.code == "arbiter-skips"} >= {"no-tags.md", "capital.md"}


async def test_the_store_chooses_the_profile_and_a_saved_task_records_it(tmp_path):
    from rawko_tui.core.curation.checks import load_checks

    root = write_store(tmp_path, DISAGREEING)
    (root / ".rawko" / "rawko-tui.yaml").write_text("arbiter: rawko-sdk\n")
    app = app_for(root)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert app.title == "rawko-tui · rawko-sdk"
        assert "Arbiter: rawko-sdk (from rawko-tui.yaml)" in header(app)
        assert "Plan prompt (rawko-sdk gives the planner every loaded memory)" in str(app.query_one("#preview-summary", Static).render())
        app.query_one("#memory-table").focus()
        await pilot.press("t")
        await settle(pilot)
        await pilot.press("enter")  # the suggested name
        await settle(pilot)
        await pilot.press("y")
        await settle(pilot)
    saved, _ = load_checks(root)
    assert [(t.task, t.arbiter) for t in saved] == [("add an api to find the login", "rawko-sdk")]


async def test_the_app_opens_under_the_arbiter_given_on_the_command_line(tmp_path, capsys):
    from rawko_tui.cli import main

    root = write_store(tmp_path, DISAGREEING)
    app = create_app(root, task="add an api to find the login", agent="tester", now=FIXED_NOW, poll_seconds=None, arbiter="spec-0005")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert app.title == "rawko-tui · spec-0005"
        assert "Arbiter: spec-0005 (--arbiter)" in header(app)
    assert main([str(root), "--arbiter", "nope"]) == 2  # refused before the app opens
    assert "unknown arbiter profile 'nope'" in capsys.readouterr().err


async def test_a_failure_of_the_other_arbiters_never_stops_the_ranking(tmp_path, monkeypatch):
    import rawko_tui.tui.app as app_module

    def broken(*_args):
        raise RuntimeError("disk on fire")

    monkeypatch.setattr(app_module, "_compare_with_others", broken)
    root = write_store(tmp_path, DISAGREEING)
    app = app_for(root)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert "Others: the other arbiters could not rank this task (RuntimeError: disk on fire)" in header(app)
        app.query_one(PreviewPane).set_task("find the login")
        await settle(pilot)
        assert app.preview.task == "find the login" and len(app.preview.injected) == 3  # still ranking


async def test_an_arbiter_the_store_names_that_is_no_profile_ranks_nothing_in_its_place(tmp_path):
    """The rule of every command: lint says error, the commands refuse, the app ranks nothing until one is chosen."""
    from rawko_tui.core.arbiters.settingscheck import arbiter_problem
    from rawko_tui.core.store.reading import load_config

    root = write_store(tmp_path, DISAGREEING)
    (root / ".rawko" / "rawko-tui.yaml").write_text("arbiter: rawko-sdkk\n")
    problem = arbiter_problem(load_config(root))
    app = app_for(root)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert app.preview is None and app.query_one("#results", DataTable).row_count == 0
        banner = str(app.query_one("#preview-failure", Static).render())
        assert problem.message[:60] in banner.replace("\n", " ") and "Press b" in banner.replace("\n", " ")
        app.query_one("#memory-table").focus()
        await pilot.press("b")  # the person chooses one for this session: then it ranks, named as chosen
        await settle(pilot)
        assert app.preview is not None and app.preview.profile.name == "spec-0007"
        assert "chosen with b" in header(app)
