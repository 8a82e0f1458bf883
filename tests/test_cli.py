"""The command line, as a user runs it."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import FIXED_NOW, REPO_ROOT, memory, write_store
from rawko_tui.cli import main
from rawko_tui.cli.parser import build_app_parser, build_parser

ARGS = ["--task", "Add OAuth integration to existing auth system", "--agent", "developer", "--now", FIXED_NOW]


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def store(tmp_path):
    return write_store(
        tmp_path,
        {
            "oauth-too-broad.md": memory(title="OAuth Too Broad", when='"oauth|social.*auth"', importance="high"),
            "jwt.md": memory(title="Project uses JWT authentication", when='["auth"]', importance="critical", by="planner"),
            "email.md": memory(title="Email", when='"email"', importance="low"),
            "deep/nested.md": memory(title="Nested", when='"auth"'),
            "broken.md": "---\ntitle: [\n---\n",
        },
    )


def test_preview_json_has_the_documented_shape(capsys, store):
    code, out, _ = run(capsys, "preview", str(store), *ARGS, "--json")
    assert code == 0
    data = json.loads(out)
    # oauth: high 25 + recency 5 + keywords "oauth", "to", "auth" 15 + same agent 10 = 55; jwt: 30 + 5 + "auth" 5 = 40
    assert [(i["path"], i["score"]) for i in data["injected"]] == [(".rawko/memories/oauth-too-broad.md", 55), (".rawko/memories/jwt.md", 40)]
    first = data["injected"][0]
    assert set(first) >= {"path", "title", "score", "components"}
    assert set(first["components"]) == {"importance", "recency", "keyword", "agentTags", "sameAgent"}
    assert first["score"] == sum(first["components"].values())
    paths = {c["path"]: c for c in data["candidates"]}
    assert set(paths) == {f".rawko/memories/{n}" for n in ("oauth-too-broad.md", "jwt.md", "email.md", "deep/nested.md", "broken.md")}
    for candidate in data["candidates"]:
        assert set(candidate) >= {"path", "matched", "score", "components", "injected", "reason"}
    assert paths[".rawko/memories/email.md"]["reason"] == "no-pattern-matched"
    assert paths[".rawko/memories/deep/nested.md"]["reason"] == "not-loaded-subfolder"
    assert data["errors"] == [{"path": ".rawko/memories/broken.md", "line": 2, "reason": data["errors"][0]["reason"], "stage": "yaml"}]
    assert data["arbiterFailure"]["stage"] == "load"
    assert data["prompt"].startswith("## Background Knowledge from Previous Runs\n\n")


@pytest.mark.parametrize(
    ("now", "shown"),
    [
        ("2026-01-24T12:00:00Z", "2026-01-24T12:00:00Z"),
        ("2026-01-24T12:00:00.250Z", "2026-01-24T12:00:00.250000Z"),
        ("+010000-01-01T00:00:00Z", "+010000-01-01T00:00:00.000Z"),  # past Python's dates: as JavaScript writes it
        ("0000-06-01T00:00:00Z", "0000-06-01T00:00:00.000Z"),
        ("-000001-01-01T00:00:00Z", "-000001-01-01T00:00:00.000Z"),
    ],
)
def test_any_date_a_javascript_date_holds_is_a_now_json_can_say(capsys, store, now, shown):
    code, out, err = run(capsys, "preview", str(store), "--task", "auth", f"--now={now}", "--json")  # = : a date may start with "-"
    assert (code, err) == (0, "")
    assert json.loads(out)["now"] == shown
    code, out, err = run(capsys, "compare", str(store), "--task", "auth", f"--now={now}", "--json")
    assert (code, err) == (0, "") and json.loads(out)["now"].startswith(shown[:19])


def test_preview_prompt_prints_exactly_the_injected_text(capsys, store):
    _, out_json, _ = run(capsys, "preview", str(store), *ARGS, "--json")
    _, out_prompt, _ = run(capsys, "preview", str(store), *ARGS, "--prompt")
    assert out_prompt == json.loads(out_json)["prompt"]


def test_preview_text_lists_injected_cut_and_unmatched(capsys, store):
    code, out, _ = run(capsys, "preview", str(store), *ARGS, "--max", "1")
    assert code == 0
    assert "Injected (1):" in out and "OAuth Too Broad" in out
    assert "Matched but not injected (1):" in out and "cut by the top-1 limit at rank 2" in out
    assert "not loaded by a SPEC-0007 arbiter (top level only)" in out
    assert "!! An arbiter running SPEC-0007's code verbatim throws" in out


def test_explain_renders_the_tree(capsys, store):
    code, out, _ = run(capsys, "explain", "email.md", str(store), *ARGS)
    assert code == 0
    assert "not injected: no whenToUse pattern matched" in out
    assert "'email': literal substring 'email' -- no match" in out
    assert "importance: low (+5)" in out
    code, out, _ = run(capsys, "explain", ".rawko/memories/oauth-too-broad.md", str(store), *ARGS, "--json")
    data = json.loads(out)
    assert data["injected"] and data["explanation"]["value"] == data["score"]


def test_explain_unknown_memory_is_a_usage_error(capsys, store):
    code, _, err = run(capsys, "explain", "nope.md", str(store), *ARGS)
    assert code == 2 and "no memory file 'nope.md'" in err


def test_lint_exit_codes(capsys, store, tmp_path):
    code, out, _ = run(capsys, "lint", str(store))
    assert code == 1 and "broken.md:2: error:" in out
    clean = write_store(tmp_path / "clean", {"clean-memory.md": memory(title="Clean memory", body="word " * 60)})
    code, out, _ = run(capsys, "lint", str(clean), "--json")
    assert code == 0 and json.loads(out)["errors"] == 0


@pytest.mark.parametrize(
    "argv",
    [
        ["preview"],  # --task missing
        ["preview", "--task", "x", "--agent", "a", "--min-importance", "huge"],
        ["preview", "--task", "x", "--agent", "a", "--now", "tuesday"],
        ["lint", "/definitely/not/here"],
        ["explain", "no-such-memory", "--task", "x"],
        ["--now", "tuesday"],  # the app's own options are checked before it opens
    ],
)
def test_usage_errors_exit_2(capsys, argv, store, monkeypatch):
    monkeypatch.chdir(store)
    try:
        code = main(argv)
    except SystemExit as exc:  # argparse's own usage errors
        code = exc.code
    assert code == 2
    assert capsys.readouterr().err.strip()


def test_no_store_gives_a_clear_message(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code, _, err = run(capsys, "lint")
    assert code == 2 and "no .rawko/ directory" in err and "Traceback" not in err


def test_console_script_runs_on_the_demo_store():
    proc = subprocess.run(
        [sys.executable, "-m", "rawko_tui", "preview", "--task", "Implement password reset", "--agent", "developer", "--now", FIXED_NOW, "--json"],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert ".rawko/memories/password-hashing-approach.md" in [i["path"] for i in data["injected"]]


def test_paths_use_forward_slashes_relative_to_the_store(capsys, store):
    _, out, _ = run(capsys, "preview", str(store), *ARGS, "--json")
    for candidate in json.loads(out)["candidates"]:
        assert candidate["path"].startswith(".rawko/memories/") and "\\" not in candidate["path"]
        assert not Path(candidate["path"]).is_absolute()


def test_explain_shows_the_entry_log_beside_the_spec_view(capsys, tmp_path):
    appended = memory(title="Hashing", when='"password"', importance="medium") + "\n\n---\nimportance: critical\ndiscoveredBy: reviewer\n---\n\nCorrection.\n"
    write_store(tmp_path, {"hashing.md": appended})
    code, out, _ = run(capsys, "explain", "hashing.md", str(tmp_path), "--task", "password", "--agent", "developer", "--now", FIXED_NOW)
    assert code == 0
    assert "Entry log (2 entries)" in out
    assert "entry 2 (line" in out and "importance: critical" in out
    assert "Folded, the entries say importance: critical (entry 2), discoveredBy: reviewer (entry 2)" in out
    assert "where the spec's view says importance: medium, discoveredBy: developer." in out
    _, out, _ = run(capsys, "explain", "hashing.md", str(tmp_path), "--task", "password", "--agent", "developer", "--now", FIXED_NOW, "--json")
    assert [e["fields"].get("importance") for e in json.loads(out)["entries"]] == ["medium", "critical"]


def test_config_file_turns_on_recursive_loading(capsys, tmp_path):
    write_store(tmp_path, {"deep/inner.md": memory(title="Inner")})
    (tmp_path / ".rawko" / "rawko-tui.yaml").write_text("recursive: true\n")
    _, out, _ = run(capsys, "preview", str(tmp_path), "--task", "auth", "--agent", "developer", "--now", FIXED_NOW, "--json")
    data = json.loads(out)
    assert data["options"]["recursive"] is True and data["options"]["sources"]["recursive"] == ".rawko/rawko-tui.yaml"
    assert [i["path"] for i in data["injected"]] == [".rawko/memories/deep/inner.md"]


def test_an_unreadable_body_file_is_a_usage_error_and_writes_nothing(tmp_path, capsys):
    root = write_store(tmp_path / "store", {"m.md": memory(title="M")})
    before = (root / ".rawko" / "memories" / "m.md").read_bytes()
    (tmp_path / "latin1.txt").write_bytes(b"caf\xe9")
    for body_file, said in [(tmp_path / "missing.txt", "No such file or directory"), (tmp_path, "Is a directory"), (tmp_path / "latin1.txt", "is not UTF-8 text (byte 3)")]:
        assert main(["append", "m.md", str(root), "--body-file", str(body_file)]) == 2
        assert "--body-file: " in (err := capsys.readouterr().err) and said in err
    assert (root / ".rawko" / "memories" / "m.md").read_bytes() == before


def test_matched_but_not_injected_is_listed_in_rank_order(capsys, tmp_path):
    # file-name order (a, b, c, d, e) differs from rank order (importance decides)
    files = {f"{letter}.md": memory(title=f"Memory {letter}", when='"auth"', importance=level) for letter, level in zip("abcde", ["low", "critical", "medium", "high", "low"])}
    root = write_store(tmp_path, files)
    code, out, _ = run(capsys, "preview", str(root), "--task", "auth", "--agent", "developer", "--now", FIXED_NOW, "--max", "1")
    assert code == 0
    cut = out.split("Matched but not injected")[1].split("\n\n")[0]
    ranks = [int(line.split(".")[0]) for line in cut.splitlines()[1:]]
    assert ranks == [2, 3, 4, 5]


def test_the_failure_banner_says_whether_the_ranking_below_keeps_the_file(capsys, tmp_path):
    kept = write_store(tmp_path / "kept", {"a.md": memory(title="A", when="\n  - pattern: auth"), "b.md": memory(title="B", when='"auth"')})
    _, out, _ = run(capsys, "preview", str(kept), "--task", "auth", "--agent", "developer", "--now", FIXED_NOW)
    assert "Below: the ranking with that file included, its {pattern: …} items read as their pattern string." in out
    assert "without that file" not in out and "[.rawko/memories/a.md]" in out.split("Injected")[1].split("Not injected")[0]
    left_out = write_store(tmp_path / "left-out", {"a.md": memory(title=None, when='"auth"'), "b.md": memory(title="B", when='"auth"')})
    _, out, _ = run(capsys, "preview", str(left_out), "--task", "auth", "--agent", "developer", "--now", FIXED_NOW)
    assert "Below: the ranking without that file." in out
    assert "[.rawko/memories/a.md]" not in out.split("Injected")[1].split("Not injected")[0]


def test_counts_are_worded_in_the_right_number(capsys, tmp_path):
    root = write_store(tmp_path, {"solo.md": memory(title="Solo", at=None, body="word " * 80)})
    _, out, _ = run(capsys, "lint", str(root))
    assert out.strip().endswith("1 file: 0 errors, 1 warning, 1 info")  # no discoveredAt, which rawko-sdk skips it for
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    subprocess.run(["git", "add", "-A"], cwd=root, check=True)
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "one"], cwd=root, check=True)
    _, out, _ = run(capsys, "verify", str(root))
    assert "(1 commit, the index and the working tree; 1 change checked)" in out


def test_the_agent_defaults_to_developer_and_explain_takes_a_name_without_md(capsys, store):
    code, out, _ = run(capsys, "preview", str(store), "--task", "auth", "--now", FIXED_NOW)
    assert code == 0 and "Agent: developer" in out
    code, out, _ = run(capsys, "explain", "jwt", str(store), "--task", "auth", "--now", FIXED_NOW)
    assert code == 0 and out.startswith("Project uses JWT authentication  [.rawko/memories/jwt.md]")
    code, _, err = run(capsys, "explain", "oauth-to-broad", str(store), "--task", "auth")
    assert code == 2 and "did you mean oauth-too-broad.md?" in err


def test_help_shows_the_apps_own_options(capsys):
    with pytest.raises(SystemExit):
        main(["--help"])
    out = capsys.readouterr().out
    assert "rawko-tui [PATH] [--task TEXT] [--agent NAME] [--now ISO] [--at REV]" in out
    assert "--at REV      the store as it was at this git revision (read-only)" in out


def test_init_starts_a_store_the_app_and_commands_open(capsys, tmp_path):
    code, out, _ = run(capsys, "init", str(tmp_path))
    assert code == 0 and "Created .rawko/memories/" in out and "Created .rawko/rawko-tui.yaml" in out
    assert (tmp_path / ".rawko" / "memories").is_dir()
    code, out, _ = run(capsys, "init", str(tmp_path))
    assert code == 0 and "nothing was changed" in out
    code, out, _ = run(capsys, "lint", str(tmp_path))
    assert code == 0 and "0 files" in out  # the starter settings are all comments: no finding


def test_a_one_shot_command_exits_fast_and_writes_all_its_output(capsys, tmp_path):
    # the console entry skips the collector and the teardown (os._exit): every byte must still be flushed,
    # the exit code kept, and a reader that leaves early (… | head) must not see a traceback
    from storegen import random_store

    root = random_store(tmp_path / "store", seed=5, now_ms=1769256000000.0, size=300)
    argv = ["preview", str(root), "--task", "add the auth middleware", "--now", FIXED_NOW, "--json"]
    code, expected, _ = run(capsys, *argv)
    proc = subprocess.run([sys.executable, "-m", "rawko_tui", *argv], capture_output=True, text=True, timeout=60, check=False)
    assert (proc.returncode, proc.stdout) == (code, expected) and len(expected) > 100_000  # beyond a pipe buffer (64 KiB)
    lint = subprocess.run([sys.executable, "-m", "rawko_tui", "lint", str(tmp_path / "nowhere")], capture_output=True, text=True, timeout=60, check=False)
    assert lint.returncode == 2 and "rawko-tui:" in lint.stderr
    reader = subprocess.Popen([sys.executable, "-m", "rawko_tui", *argv], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    reader.stdout.read(100)
    reader.stdout.close()
    assert reader.wait(timeout=60) == 0 and b"Traceback" not in reader.stderr.read()


# --------------------------------------------------------------------------
# Help, usage and numbers: what a person reads before anything runs
# --------------------------------------------------------------------------


def _commands(parser, words=()):
    """(words, parser) of every command and sub-command (``hook install``)."""
    import argparse

    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield (*words, name), sub
                yield from _commands(sub, (*words, name))


def test_every_option_and_argument_of_every_command_has_a_help_line():
    parsers = [(("rawko-tui",), build_parser()), (("the app",), build_app_parser()), *_commands(build_parser())]
    missing = [f"{' '.join(words)}: {'/'.join(action.option_strings) or action.dest}" for words, parser in parsers for action in parser._actions if not action.help]
    assert missing == []
    assert len(parsers) > 25


def test_every_command_is_run_by_one_module_of_commands():
    """The parser's commands, COMMANDS and the groups of commands name the same commands, each run by its module's ``cmd_<name>``."""
    from rawko_tui.cli.commands import COMMANDS, GROUPS, handler

    grouped = [command for commands in GROUPS.values() for command in commands]
    assert sorted(grouped) == sorted(COMMANDS) and len(set(grouped)) == len(grouped)
    assert {words[0] for words, _ in _commands(build_parser())} == set(COMMANDS)
    assert all(handler(command).__name__ == f"cmd_{command}" for command in COMMANDS)


@pytest.mark.parametrize("words", [words for words, _ in _commands(build_parser())], ids=" ".join)
def test_each_commands_help_starts_with_its_own_usage_line(capsys, words):
    with pytest.raises(SystemExit) as stopped:
        main([*words, "--help"])
    out = capsys.readouterr().out
    assert stopped.value.code == 0 and out.startswith(f"usage: rawko-tui {' '.join(words)} "), out[:200]
    assert "COMMAND [PATH] [options]" not in out  # the top usage is not glued in front of it


def test_an_unknown_option_is_said_with_the_commands_own_usage(capsys):
    for words in (["init"], ["hook", "install"]):
        with pytest.raises(SystemExit) as stopped:
            main([*words, "--bogus"])
        err = capsys.readouterr().err
        assert stopped.value.code == 2 and err.startswith(f"usage: rawko-tui {' '.join(words)} [-h]"), err
        assert f"rawko-tui {' '.join(words)}: error: unrecognized arguments: --bogus" in err and "COMMAND" not in err


def test_inits_path_is_the_folder_it_starts_the_store_in(capsys):
    with pytest.raises(SystemExit):
        main(["init", "--help"])
    out = " ".join(capsys.readouterr().out.split())
    assert "the folder to start the store in" in out and "searched upward" not in out


@pytest.mark.parametrize("value", ["-3", "0", "two"])
@pytest.mark.parametrize("command", ["preview", "explain"])
def test_a_max_that_is_not_a_number_of_memories_is_refused(capsys, store, command, value):
    memory_arg = ["jwt.md"] if command == "explain" else []
    with pytest.raises(SystemExit) as stopped:
        main([command, *memory_arg, str(store), "--task", "auth", "--max", value])
    err = capsys.readouterr().err
    assert stopped.value.code == 2 and f"rawko-tui {command}: error: argument --max:" in err
    assert ("give 1 or more" if value != "two" else "is not a whole number") in err and "top-" not in err


# --------------------------------------------------------------------------
# new: what rawko-tui writes passes its own lint
# --------------------------------------------------------------------------


def test_new_refuses_a_title_another_memory_has_and_names_it(capsys, tmp_path):
    from rawko_tui.core.lint.linter import lint_store
    from rawko_tui.core.store.loading import load_store

    root = write_store(tmp_path, {"postgres-pool-size.md": memory(title="Postgres pool size", body="word " * 60)})
    new = ["new", str(root), "--when", "pool", "--importance", "high", "--by", "developer", "--body", "word " * 60, "--no-commit"]
    code, out, err = run(capsys, *new, "--title", "postgres pool size ")
    assert code == 1 and ".rawko/memories/postgres-pool-size.md already has the title 'postgres pool size '" in err
    assert "--allow-duplicate-title" in err and "rawko-tui append postgres-pool-size.md" in err
    assert sorted(p.name for p in (root / ".rawko" / "memories").iterdir()) == ["postgres-pool-size.md"]
    code, out, _ = run(capsys, *new, "--title", "Postgres pool size", "--allow-duplicate-title")
    assert code == 0 and "Note: .rawko/memories/postgres-pool-size.md has this title too" in out
    found = lint_store(load_store(root))
    assert {f.code for f in found if f.path.endswith("postgres-pool-size-2.md")} == {"duplicate-title"}  # asked for; no file-name
    code, _, _ = run(capsys, *new, "--title", "Postgres: pool size?")  # another title, the same slug: a name lint accepts
    assert code == 0 and not [f for f in lint_store(load_store(root)) if f.code == "file-name"]


# --------------------------------------------------------------------------
# init: one store per project, every key of its file, the hook offered
# --------------------------------------------------------------------------


def test_init_inside_a_store_refuses_naming_it_unless_nested(capsys, tmp_path):
    assert run(capsys, "init", str(tmp_path))[0] == 0
    inner = tmp_path / "services" / "api"
    code, _, err = run(capsys, "init", str(inner))
    assert code == 2 and f"{tmp_path} holds a store already, and {inner} is inside it" in err and "--nested" in err
    assert not inner.exists()
    code, out, _ = run(capsys, "init", str(inner), "--nested")
    assert code == 0 and (inner / ".rawko" / "memories").is_dir()


def test_inits_settings_file_lists_every_store_key_commented_out_and_none_of_the_persons(capsys, tmp_path):
    import re

    from rawko_tui.core.store.settings import PERSON_KEYS, STORE_KEYS
    from rawko_tui.core.lint.settingsproblems import store_settings_problems
    from rawko_tui.core.store.reading import config_from

    run(capsys, "init", str(tmp_path))
    text = (tmp_path / ".rawko" / "rawko-tui.yaml").read_text()
    assert config_from(text) == {}  # all comments
    for key in STORE_KEYS:
        assert re.search(rf"^# {key}: .*# \w", text, re.MULTILINE), key  # each with its line saying what it is
    for key in PERSON_KEYS:
        assert not re.search(rf"^#\s*{key}:", text, re.MULTILINE), key
    # uncommented, it is a valid store file: the examples are ones rawko-tui accepts
    uncommented = "\n".join(line[2:] for line in text.splitlines() if re.match(r"# (\w+:|  )", line))
    config = config_from(uncommented)
    assert set(config) == set(STORE_KEYS) and store_settings_problems(config) == []


def test_init_offers_the_hook_and_installs_it_only_when_asked(capsys, tmp_path):
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    code, out, _ = run(capsys, "init", str(tmp_path))
    assert code == 0 and f"rawko-tui hook install {tmp_path}" in out
    assert not (tmp_path / ".git" / "hooks" / "pre-commit").exists()
    other = tmp_path / "other"
    subprocess.run(["git", "init", "-q", str(other)], check=True)
    code, out, _ = run(capsys, "init", str(other), "--nested", "--hook")
    assert code == 0 and "Installed" in out and "rawko-tui hook uninstall" in out
    assert "installed by rawko-tui" in (other / ".git" / "hooks" / "pre-commit").read_text()
    code, _, err = run(capsys, "init", str(tmp_path.parent / f"{tmp_path.name}-no-git"), "--hook")
    assert code == 2 and "not in a git repository" in err and not (tmp_path.parent / f"{tmp_path.name}-no-git").exists()


# --------------------------------------------------------------------------
# check and matrix on a new store; a memory's path finds its store
# --------------------------------------------------------------------------


@pytest.mark.parametrize("command", ["check", "matrix"])
def test_check_and_matrix_with_no_saved_tasks_say_so_and_pass(capsys, store, command):
    code, out, err = run(capsys, command, str(store))
    assert code == 0 and "No saved tasks" in out and "checks.yaml" in out and err == ""
    code, out, _ = run(capsys, command, str(store), "--json")
    data = json.loads(out)
    assert code == 0 and (data["results"] == [] if command == "check" else data["tasks"] == [])


def test_a_memory_path_finds_its_store_from_anywhere(capsys, store, tmp_path_factory, monkeypatch):
    import os

    elsewhere = tmp_path_factory.mktemp("elsewhere")  # no store here or above
    monkeypatch.chdir(elsewhere)
    absolute = str(store / ".rawko" / "memories" / "jwt.md")
    code, out, err = run(capsys, "explain", absolute, "--task", "auth", "--now", FIXED_NOW)
    assert code == 0, err
    assert out.startswith("Project uses JWT authentication  [.rawko/memories/jwt.md]")
    relative = os.path.relpath(store / ".rawko" / "memories" / "deep" / "nested.md", elsewhere)
    code, out, err = run(capsys, "explain", relative, "--task", "auth", "--now", FIXED_NOW, "--json")
    assert code == 0 and json.loads(out)["path"] == ".rawko/memories/deep/nested.md", err
    code, out, err = run(capsys, "confirm", absolute, "--dry-run")
    assert code == 0 and "--- appended to .rawko/memories/jwt.md" in out, err
    code, _, err = run(capsys, "explain", str(elsewhere / "nothing.md"), "--task", "auth")
    assert code == 2 and "no .rawko/ directory" in err


def _subparsers(parser):
    import argparse

    return next(action for action in parser._actions if isinstance(action, argparse._SubParsersAction)).choices


@pytest.mark.parametrize("command", __import__("rawko_tui.cli.commands", fromlist=["COMMANDS"]).COMMANDS)
def test_a_command_runs_with_its_own_parser_alone_which_is_the_full_parsers_own(command):
    whole, alone = _subparsers(build_parser())[command], _subparsers(build_parser(command))
    assert list(alone) == [command]  # the others are never built
    assert alone[command].format_help() == whole.format_help()
    nested = [_subparsers(p) for p in (whole, alone[command]) if any(a.__class__.__name__ == "_SubParsersAction" for a in p._actions)]
    if nested:  # hook install / uninstall
        assert [(name, p.format_help()) for name, p in nested[0].items()] == [(name, p.format_help()) for name, p in nested[1].items()]
    defaults = lambda p: sorted((a.dest, repr(a.default), a.required, tuple(a.option_strings)) for a in p._actions)  # noqa: E731
    assert defaults(alone[command]) == defaults(whole)
