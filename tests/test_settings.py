"""A store's settings cannot steer the person's keys, name, theme or model (docs/reference/configuration.md).

A store's ``.rawko/rawko-tui.yaml`` comes with a clone from anyone. ``keymap``,
``theme``, ``author`` and ``model`` are the person's: read from their own settings
file only, ignored in a store's with a lint warning and a notification saying
where they belong. Even the person's own keymap cannot make a confirmation
unsafe, and the confirmation says the keys actually in force.
"""

from __future__ import annotations

import json
import os
import subprocess

import pytest
from textual.widgets import TextArea

from conftest import FIXED_NOW, memory, write_store
from rawko_tui.cli import main
from rawko_tui.core.lint.linter import lint_store
from rawko_tui.core.store.settings import load_person_settings, settings_path
from rawko_tui.core.store.loading import load_store
from rawko_tui.core.record.writer import person_name
from rawko_tui.tui.keys import checked_keymap
from test_app import SIZE, app_for, settle

DEFAULTS = {"confirm-yes": "y", "confirm-no": "n,escape", "discard-yes": "y", "discard-no": "n,escape", "editor-save": "ctrl+s", "save-task": "t", "memories-sort": "s"}


def git(root, *args):
    env = {**os.environ, "GIT_AUTHOR_NAME": "Ada Person", "GIT_AUTHOR_EMAIL": "ada@example.com", "GIT_COMMITTER_NAME": "Ada Person", "GIT_COMMITTER_EMAIL": "ada@example.com"}
    return subprocess.run(["git", *args], cwd=root, check=True, capture_output=True, text=True, env=env).stdout


@pytest.fixture
def repo(tmp_path, monkeypatch):
    root = write_store(tmp_path / "store", {"jwt-tokens.md": memory(title="JWT tokens", when='"auth|token"', body="Tokens expire after 24 hours. " * 12)})
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "first")
    for name, value in (("GIT_AUTHOR_NAME", "Ada Person"), ("GIT_AUTHOR_EMAIL", "ada@example.com"), ("GIT_COMMITTER_NAME", "Ada Person"), ("GIT_COMMITTER_EMAIL", "ada@example.com")):
        monkeypatch.setenv(name, value)
    return root


@pytest.fixture
def own_settings(tmp_path, monkeypatch):
    """The person's own settings file, written by the test."""
    path = tmp_path / "home-config" / "rawko-tui" / "config.yaml"
    path.parent.mkdir(parents=True)
    monkeypatch.setenv("RAWKO_TUI_CONFIG", str(path))
    return path


def commits(root) -> int:
    return int(git(root, "rev-list", "--count", "HEAD").strip())


async def lint_done(pilot) -> None:
    """Until lint has reported (its findings are what the settings notification says); bounded, so a lint that never
    reports fails the test instead of hanging it."""
    for _ in range(400):
        if pilot.app.findings:
            break
        await pilot.pause(0.05)
    await settle(pilot)


async def open_confirmation(pilot, app):
    """An append to the selected memory, up to the one confirmation every write goes through."""
    from rawko_tui.tui.screens.confirm_write import ConfirmWrite

    app.query_one("#memory-table").focus()
    await pilot.press("a")
    await settle(pilot)
    area = app.screen.query_one("#merge-text", TextArea)
    area.text = area.text + "Tokens now expire after 12 hours."
    await pilot.press("ctrl+s")
    await settle(pilot)
    assert isinstance(app.screen, ConfirmWrite)
    return str(app.screen.query_one("#confirm-box").render()) + " ".join(str(s.render()) for s in app.screen.query("Static"))


@pytest.mark.parametrize("key", ["n", "escape"])
async def test_a_stores_keymap_cannot_make_n_or_esc_write(repo, key):
    (repo / ".rawko" / "rawko-tui.yaml").write_text('keymap: {confirm-yes: "escape,n,y", confirm-no: "y"}\n')
    before = (repo / ".rawko" / "memories" / "jwt-tokens.md").read_bytes()
    app = app_for(repo)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        said = await open_confirmation(pilot, app)
        assert "y writes exactly this and commits it · n or Esc goes back, nothing written" in said
        await pilot.press(key)
        await settle(pilot)
        await settle(pilot)
        assert type(app.screen).__name__ == "MemoryEditor"  # back in the editor: nothing written
    assert (repo / ".rawko" / "memories" / "jwt-tokens.md").read_bytes() == before
    assert commits(repo) == 1


@pytest.mark.parametrize(
    "keymap, refused",
    [
        ('{confirm-yes: "escape,n,y"}', "confirm-yes would be Esc, n, which always mean no"),
        ('{confirm-yes: "ctrl+left_square_brace"}', "confirm-yes would be Ctrl+[, which always mean no"),
        ('{confirm-yes: "x", confirm-no: "x,escape"}', "x would both confirm (confirm-yes) and cancel (confirm-no)"),
        ('{confirm-no: "y"}', "y would both confirm (confirm-yes) and cancel (confirm-no)"),
        ('{save-task: "y"}', "y would also open a confirmation (save-task): pressed twice, it would write what was never read"),
        ('{editor-save: "ctrl+y", confirm-yes: "ctrl+y"}', "Ctrl+Y would also open a confirmation (editor-save)"),
        ('{discard-yes: "escape"}', "discard-yes would be Esc, which always mean no"),
    ],
)
async def test_even_the_persons_own_keymap_cannot_make_a_confirmation_unsafe(repo, own_settings, keymap, refused):
    own_settings.write_text(f"keymap: {keymap}\n")
    before = (repo / ".rawko" / "memories" / "jwt-tokens.md").read_bytes()
    app = app_for(repo)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        notes = " ".join(n.message for n in app._notifications)
        assert refused in notes and "refused, the default keys of" in notes
        said = await open_confirmation(pilot, app)
        assert "y writes exactly this and commits it · n or Esc goes back, nothing written" in said
        await pilot.press("escape")
        await settle(pilot)
        assert type(app.screen).__name__ == "MemoryEditor"
    assert (repo / ".rawko" / "memories" / "jwt-tokens.md").read_bytes() == before


async def test_the_confirmation_names_the_keys_in_force(repo, own_settings):
    own_settings.write_text('keymap: {confirm-yes: "ctrl+y", confirm-no: "q,escape"}\n')
    app = app_for(repo)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        said = await open_confirmation(pilot, app)
        assert "Ctrl+Y writes exactly this and commits it · q or Esc goes back, nothing written" in said
        assert "Nothing is written until you say Ctrl+Y" in str(app.screen.query_one("#confirm-box").border_title)
        await pilot.press("y")  # no longer the key that writes
        await settle(pilot)
        assert type(app.screen).__name__ == "ConfirmWrite" and commits(repo) == 1
        await pilot.press("ctrl+y")
        await settle(pilot)
        await settle(pilot)
    assert commits(repo) == 2


def test_checked_keymap_keeps_safe_remaps_and_drops_the_unsafe_ones():
    kept, problems = checked_keymap({"memories-sort": "f5", "confirm-yes": "ctrl+y"}, DEFAULTS)
    assert kept == {"memories-sort": "f5", "confirm-yes": "ctrl+y"} and problems == []
    kept, problems = checked_keymap({"memories-sort": "f5", "confirm-yes": "n", "confirm-no": "q"}, DEFAULTS)
    assert kept == {"memories-sort": "f5"} and len(problems) == 1
    kept, problems = checked_keymap({"save-task": "y", "memories-sort": "f5"}, DEFAULTS)
    assert kept == {"memories-sort": "f5"}
    # `a` opens the torn-write screen on a memory holding one: its take-back (or acknowledge) key may not be `a`
    torn = {**DEFAULTS, "append-update": "a", "torn-take-back": "t", "torn-acknowledge": "k", "torn-back": "escape"}
    for binding in ("torn-take-back", "torn-acknowledge"):
        kept, problems = checked_keymap({binding: "a", "memories-sort": "f5"}, torn)
        assert kept == {"memories-sort": "f5"} and "pressed twice" in problems[0], (binding, problems)


async def test_a_stores_theme_is_ignored_and_the_persons_applies(repo, own_settings):
    (repo / ".rawko" / "rawko-tui.yaml").write_text("theme: textual-light\n")
    app = app_for(repo)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert app.theme != "textual-light"
    own_settings.write_text("theme: textual-light\n")
    app = app_for(repo)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert app.theme == "textual-light"


async def test_the_app_says_where_a_persons_setting_in_a_store_belongs(repo):
    (repo / ".rawko" / "rawko-tui.yaml").write_text('keymap: {confirm-yes: "n"}\nauthor: Mallory\nrecursive: true\n')
    app = app_for(repo)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await lint_done(pilot)
        await settle(pilot)
        said = [n.message for n in app._notifications if "rawko-tui.yaml" in n.message]
        assert said == [
            ".rawko/rawko-tui.yaml: keymap, author are yours to set, not a store's: a store comes with a clone from anyone, "
            "so they are ignored here. Put them in your own settings file, /nonexistent/rawko-tui/config.yaml"
        ]
        assert app.preview.recursive is True  # what describes the store still applies


def test_lint_warns_about_a_persons_setting_in_a_stores_file(repo):
    (repo / ".rawko" / "rawko-tui.yaml").write_text("theme: [1]\nmodel: claude-from-a-stranger\nstaleDays: 30\n")
    store = load_store(repo)
    assert "model" not in store.config and "theme" not in store.config and store.config["staleDays"] == 30
    found = [(f.path, f.severity, f.code, f.message) for f in lint_store(store) if f.path == ".rawko/rawko-tui.yaml"]
    assert found == [(".rawko/rawko-tui.yaml", "warning", "person-setting", found[0][3])]
    assert found[0][3].startswith("theme, model are yours to set, not a store's")


def test_a_store_cannot_sign_the_persons_entries(repo, own_settings, capsys):
    (repo / ".rawko" / "rawko-tui.yaml").write_text("author: Mallory\n")
    assert person_name(repo) == "Ada Person"  # git's author, not the store's
    assert main(["append", "jwt-tokens.md", str(repo), "--body", "Checked.", "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert "updatedBy: Ada Person" in out and "Mallory" not in out
    own_settings.write_text("author: Ada Lovelace\n")
    assert person_name(repo) == "Ada Lovelace"


def test_a_store_cannot_choose_the_model_the_persons_key_pays_for(fake, repo, own_settings, capsys):
    from rawko_tui.core.text.tokens import DEFAULT_MODEL

    (repo / ".rawko" / "rawko-tui.yaml").write_text("model: claude-expensive-from-a-stranger\n")
    (repo.parent / "output.txt").write_text("Rotated the refresh token on every use.")
    extract = ["extract", str(repo), "--from", str(repo.parent / "output.txt"), "--agent", "developer", "--task", "Rotate tokens"]
    answer = json.dumps({"shouldCreateMemory": False, "reasoning": "nothing new"})
    fake.answers.append((200, answer))
    assert main(extract) == 0
    assert fake.seen[-1]["payload"]["model"] == DEFAULT_MODEL
    own_settings.write_text("model: claude-mine\n")
    fake.answers.append((200, answer))
    assert main(extract) == 0
    assert fake.seen[-1]["payload"]["model"] == "claude-mine"


def test_where_the_persons_settings_are(tmp_path, monkeypatch):
    monkeypatch.delenv("RAWKO_TUI_CONFIG")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    assert settings_path() == tmp_path / "home" / ".config" / "rawko-tui" / "config.yaml"
    monkeypatch.setenv("XDG_CONFIG_HOME", "relative/config")  # not absolute: ignored, as XDG says
    assert settings_path() == tmp_path / "home" / ".config" / "rawko-tui" / "config.yaml"
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    assert settings_path() == tmp_path / "xdg" / "rawko-tui" / "config.yaml"
    monkeypatch.setenv("RAWKO_TUI_CONFIG", str(tmp_path / "elsewhere.yaml"))
    assert settings_path() == tmp_path / "elsewhere.yaml"


@pytest.mark.parametrize(
    "text, problem",
    [
        ("keymap: [1, 2]\n", "keymap is not a mapping of binding id to key"),
        ("theme: {a: 1}\n", "theme is not text: ignored"),
        ("arbiter: rawko-sdk\n", "arbiter describes a store: it belongs in that store's .rawko/rawko-tui.yaml"),
        ("colour: blue\n", "unknown setting 'colour'"),
        ("theme: [unclosed\n", "not valid YAML"),
        ("- a list\n", "not a mapping of settings"),
    ],
)
def test_mistakes_in_the_persons_settings_are_said_and_the_rest_kept(own_settings, text, problem):
    own_settings.write_text(text + "author: Ada\n" if not text.startswith("- ") and "unclosed" not in text else text)
    settings = load_person_settings()
    assert any(problem in p for p in settings.problems), settings.problems
    assert set(settings.values) <= {"author"}


# --------------------------------------------------------------------------
# One rule for every surface: lint, the commands and the app read the same problems
# --------------------------------------------------------------------------


def test_lint_reports_what_the_app_cannot_use_in_the_persons_settings(repo, own_settings, capsys):
    own_settings.write_text("theme: textual-lite\nkeymap: {memories-srot: f5, memories-sort: f6}\ncolour: blue\n")
    assert main(["lint", str(repo)]) == 0  # warnings: the defaults are used
    out = capsys.readouterr().out
    assert f"{own_settings}: warning: theme 'textual-lite' is not a theme here (did you mean textual-light?); the default is used" in out
    assert f"{own_settings}: warning: keymap: no key binding has the id 'memories-srot' (did you mean memories-sort?)" in out
    assert f"{own_settings}: warning: unknown setting 'colour' (yours are keymap, theme, author, model): ignored [settings]" in out
    assert main(["lint", str(repo), "--json"]) == 0
    found = [f for f in json.loads(capsys.readouterr().out)["findings"] if f["path"] == str(own_settings)]
    assert [f["code"] for f in found] == ["settings"] * 3


def test_an_arbiter_the_store_names_that_does_not_exist_is_an_error_everywhere(repo, capsys):
    from rawko_tui.core.store.settings import STORE_FILE
    from rawko_tui.core.lint.settingsproblems import settings_problems
    from rawko_tui.core.store.reading import load_config

    (repo / ".rawko" / "rawko-tui.yaml").write_text("arbiter: rawko-sdkk\n")
    (problem,) = [p for p in settings_problems(load_config(repo)) if p.severity == "error"]
    assert (problem.file, problem.key, problem.code) == (STORE_FILE, "arbiter", "config")
    assert problem.message.startswith("arbiter: unknown arbiter profile 'rawko-sdkk': choose one of spec-0007, rawko-sdk, spec-0005 (did you mean rawko-sdk?)")
    assert main(["lint", str(repo)]) == 1
    out = capsys.readouterr().out
    assert f".rawko/rawko-tui.yaml: error: {problem.message} [config]" in out and "spec-0007 is used" not in out
    task = ["--task", "fix the login token", "--now", FIXED_NOW]
    for argv in (["preview", str(repo), *task], ["explain", "jwt-tokens.md", str(repo), *task], ["check", str(repo)], ["compare", str(repo), *task], ["matrix", str(repo)], ["candidates", str(repo)]):
        assert main(argv) == 2, argv
        assert capsys.readouterr().err == f"rawko-tui: .rawko/rawko-tui.yaml: {problem.message}\n", argv
    # --arbiter on the command line chooses for that command: nothing is refused
    assert main(["preview", str(repo), *task, "--arbiter", "rawko-sdk"]) == 0
    assert "Arbiter: rawko-sdk (--arbiter)" in capsys.readouterr().out
    assert main(["check", str(repo), "--arbiter", "spec-0005"]) == 0
    assert main(["compare", str(repo), *task, "--arbiters", "spec-0007,rawko-sdk"]) == 0
    capsys.readouterr()
    assert main(["arbiters", str(repo)]) == 1  # lists the profiles to choose from, and says the problem
    out = capsys.readouterr().out
    assert f"Problem: .rawko/rawko-tui.yaml: {problem.message}" in out and "(this store's arbiter)" not in out


def test_settings_problems_are_plain_data_for_the_app(own_settings):
    from rawko_tui.core.lint.settingsproblems import settings_problems
    from rawko_tui.core.store.reading import config_from

    own_settings.write_text("theme: solarised-dark\n")
    config = config_from("staledays: 30\nbudgets: {developer: -3, tester: 2000}\nauthor: Mallory\n")
    problems = settings_problems(config, load_person_settings(), themes=["solarized-dark", "nord"])
    assert [(p.file, p.key, p.severity, p.code) for p in problems] == [
        (".rawko/rawko-tui.yaml", "budgets", "warning", "config"),
        (".rawko/rawko-tui.yaml", None, "warning", "person-setting"),
        (".rawko/rawko-tui.yaml", "staledays", "warning", "config"),
        (str(own_settings), "theme", "warning", "settings"),
    ]
    assert problems[0].message == "budgets (developer: -3): not a whole number of tokens above 0: ignored, no budget is checked for it"
    assert problems[2].message.startswith("unknown setting 'staledays' (did you mean staleDays?)")
    assert "did you mean solarized-dark?" in problems[3].message
    assert json.loads(json.dumps([p.to_dict() for p in problems]))[3]["key"] == "theme"


def test_the_binding_ids_and_themes_lint_checks_are_the_apps():
    """data/app_names.json lets lint check a keymap and a theme without loading the app; it must stay the app's."""
    from rawko_tui.core.lint.settingsproblems import _app_names
    from rawko_tui.tui.app import create_app

    app = create_app(None, now=FIXED_NOW, poll_seconds=None)
    actual = {"bindingIds": [binding_id for _, _, binding_id in app._binding_sources()], "themes": sorted(app.available_themes)}
    recorded = {key: _app_names()[key] for key in actual}
    assert recorded == actual, f"update rawko_tui/core/data/app_names.json to: {json.dumps(actual)}"
