"""Whose setting is it: the person's (their own settings file) or the store's (``.rawko/rawko-tui.yaml``).

A store comes with a clone from anyone, and its ``rawko-tui.yaml`` with it. What
describes the store -- which arbiter decides, whether subfolders load, a pinned
``now``, when a memory counts as stale, token budgets -- belongs to the store. What
is the person's cannot come from a stranger's file: the keys they press (a store
could bind ``n`` to "write and commit"), the theme they read, the name their
entries are signed with, and the Claude model their API key pays for. Those are
read from the person's own file only (``settings_path``); in a store's file they
are ignored, and lint and the app say where they belong.

See docs/reference/configuration.md.
"""

from __future__ import annotations

import difflib
import json
import os
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

ENV_VAR = "RAWKO_TUI_CONFIG"  # a settings file other than the default one (tests, a second profile)
PERSON_KEYS = {
    "keymap": "the keys you press",
    "theme": "how the app looks to you",
    "author": "the name your entries are signed with",
    "model": "the Claude model your API key pays for",
}
STORE_KEYS = ("arbiter", "arbiters", "recursive", "now", "staleDays", "budgets")
IGNORED = "_person_keys"  # in a store's settings: the person's keys its file set, which are ignored
MAX_BYTES = 1 << 20
STORE_FILE = ".rawko/rawko-tui.yaml"
ERROR, WARNING = "error", "warning"


def settings_path() -> Path:
    """The person's settings file: ``$RAWKO_TUI_CONFIG``, else ``$XDG_CONFIG_HOME/rawko-tui/config.yaml``,
    else ``~/.config/rawko-tui/config.yaml`` (an XDG_CONFIG_HOME that is not absolute is ignored, as the
    XDG specification says)."""
    given = os.environ.get(ENV_VAR)
    if given:
        return Path(given).expanduser()
    base = os.environ.get("XDG_CONFIG_HOME", "")
    return (Path(base) if os.path.isabs(base) else Path.home() / ".config") / "rawko-tui" / "config.yaml"


def shown_path() -> str:
    """``settings_path()`` as a person reads it: ``~/.config/rawko-tui/config.yaml``."""
    path, home = settings_path(), Path.home()
    return f"~/{path.relative_to(home)}" if home in path.parents else str(path)


@dataclass(frozen=True)
class PersonSettings:
    """The person's settings that can be used, and what was wrong with the rest (each said once, plainly)."""

    path: Path
    values: dict = field(default_factory=dict)
    problems: tuple[str, ...] = ()

    def get(self, key: str, default=None):
        return self.values.get(key, default)


def load_person_settings(path: Path | None = None) -> PersonSettings:
    """Read the person's settings file (missing: no settings, no problem). Never raises."""
    path = settings_path() if path is None else path
    try:
        if not path.exists():
            return PersonSettings(path)
        if not path.is_file():
            return PersonSettings(path, problems=("not a file: ignored",))
        if path.stat().st_size > MAX_BYTES:
            return PersonSettings(path, problems=(f"larger than {MAX_BYTES:,} bytes: ignored",))
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        return PersonSettings(path, problems=(f"cannot be read ({exc.strerror or exc}): ignored",))
    except UnicodeDecodeError as exc:
        return PersonSettings(path, problems=(f"not UTF-8 text (byte {exc.start}): ignored",))
    from .yamljs import load_with_ruamel, plain_yaml_error

    try:
        data = load_with_ruamel(text)
    except Exception as exc:  # noqa: BLE001 - ruamel raises many types; the file is only advisory
        reason, line = plain_yaml_error(exc)
        return PersonSettings(path, problems=(f"{reason}{f' (line {line})' if line else ''}: ignored",))
    if data is None:
        return PersonSettings(path)
    if not isinstance(data, dict):
        return PersonSettings(path, problems=("not a mapping of settings: ignored",))
    return PersonSettings(path, *_checked(data))


def _checked(data: dict) -> tuple[dict, tuple[str, ...]]:
    values: dict = {}
    problems: list[str] = []
    for key, value in data.items():
        key = str(key)
        if key == "keymap":
            if isinstance(value, dict) and all(isinstance(v, (str, int)) and not isinstance(v, bool) for v in value.values()):
                values[key] = {str(k): str(v) for k, v in value.items()}
            else:
                problems.append("keymap is not a mapping of binding id to key (? lists the ids): ignored")
        elif key in ("theme", "author", "model"):
            if isinstance(value, str) and value.strip():
                values[key] = value.strip()
            else:
                problems.append(f"{key} is not text: ignored")
        elif key in STORE_KEYS:
            problems.append(f"{key} describes a store: it belongs in that store's .rawko/rawko-tui.yaml, not here (ignored)")
        else:
            problems.append(f"unknown setting {key!r} (yours are {', '.join(PERSON_KEYS)}): ignored")
    return values, tuple(problems)


def store_settings(data: dict) -> dict:
    """A store's settings as rawko-tui uses them: the person's keys taken out (``IGNORED`` names them)."""
    found = [key for key in data if key in PERSON_KEYS]
    if not found:
        return data
    kept = {key: value for key, value in data.items() if key not in PERSON_KEYS}
    kept[IGNORED] = found
    return kept


def ignored_person_keys(config: dict) -> list[str]:
    """The person's keys a store's settings file set (and rawko-tui ignored)."""
    found = config.get(IGNORED)
    return list(found) if isinstance(found, list) else []


def where_it_belongs(keys: list[str]) -> str:
    """Why a store's file cannot set these keys, and where they go."""
    one = len(keys) == 1
    return (
        f"{', '.join(keys)} {'is' if one else 'are'} yours to set, not a store's: a store comes with a clone from anyone, "
        f"so {'it is' if one else 'they are'} ignored here. Put {'it' if one else 'them'} in your own settings file, {shown_path()}"
    )


def pinned_now(config: dict) -> float | None:
    """``now:`` of rawko-tui.yaml (a store pinned to one moment, as a demo is) in epoch ms; None when unset or invalid."""
    import datetime as dt

    from .jsvalue import JsDate, js_new_date

    value = config.get("now")
    if value is None:
        return None
    if isinstance(value, dt.datetime):  # an unquoted YAML timestamp; without a zone it is UTC (YAML 1.1)
        value = (value if value.tzinfo else value.replace(tzinfo=dt.timezone.utc)).isoformat()
    date = value if isinstance(value, JsDate) else js_new_date(value) if isinstance(value, str) else None
    return date.ms if date is not None and date.valid else None


def person_author() -> str | None:
    """``author`` of the person's settings, or None."""
    return load_person_settings().get("author")


def person_model(default: str) -> str:
    """``model`` of the person's settings, else ``default``."""
    return load_person_settings().get("model") or default


# --------------------------------------------------------------------------
# Every settings problem, one rule for every surface (lint, the commands, the app)
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class SettingsProblem:
    """A setting that cannot be used, said the same way by lint (a finding on ``file``), the commands and the app.

    ``error``: nothing is previewed with the store's settings until it is fixed (its ``arbiter:`` names no
    profile: rawko-tui never previews another arbiter in its place); ``warning``: ignored, the default used.
    """

    file: str  # STORE_FILE, or the person's settings file as shown (``~/.config/rawko-tui/config.yaml``)
    key: str | None  # the setting it is about; None: the whole file
    severity: str
    code: str  # lint's: ``config`` (the store's file), ``person-setting`` (the person's key there), ``settings`` (the person's file)
    message: str

    def __str__(self) -> str:
        return f"{self.file}: {self.message}"

    def to_dict(self) -> dict:
        return {"file": self.file, "key": self.key, "severity": self.severity, "code": self.code, "message": self.message}


def settings_problems(config: dict, person: PersonSettings | None = None, binding_ids=None, themes=None) -> list[SettingsProblem]:
    """Every problem of a store's settings (``store.config``) and of the person's own file (``person``; None: not
    read). ``binding_ids`` and ``themes``: what a keymap and a theme may name (default: the app's, as recorded
    in data/app_names.json; the app passes its own)."""
    found = store_settings_problems(config)
    if person is not None:
        found += person_settings_problems(person, binding_ids, themes)
    return found


def arbiter_problem(config: dict) -> SettingsProblem | None:
    """The store's ``arbiter:`` when it names no usable profile: an error, the one that stops a preview."""
    from .arbiters.profiles import ProfileError, profile_names, resolve_profile

    try:
        resolve_profile(config)
    except ProfileError as exc:
        chosen = config.get("arbiter")
        hint = _did_you_mean(chosen, [n for n in profile_names(config) if n != chosen]) if isinstance(chosen, str) else ""
        return SettingsProblem(
            STORE_FILE, "arbiter", ERROR, "config",
            f"arbiter: {exc}{hint}. rawko-tui previews no other arbiter in its place: correct it, or choose one with --arbiter NAME",
        )  # fmt: skip
    return None


def store_settings_problems(config: dict) -> list[SettingsProblem]:
    """The problems of a store's ``.rawko/rawko-tui.yaml`` (as ``load_config`` read it)."""
    from .arbiters.profiles import defined_profiles
    from .jsvalue import display_value, js_to_string

    def warn(key: str | None, message: str, code: str = "config") -> None:
        found.append(SettingsProblem(STORE_FILE, key, WARNING, code, message))

    found: list[SettingsProblem] = []
    if "_error" in config:
        warn(None, f"{config['_error']}; the settings are ignored")
    arbiter = arbiter_problem(config)
    if arbiter is not None:
        found.append(arbiter)
    for problem in defined_profiles(config)[1]:
        warn("arbiters", f"{problem}: that profile cannot be used")
    if "recursive" in config and not isinstance(config["recursive"], bool):
        warn("recursive", f"recursive is {js_to_string(config['recursive'])!r}, not true or false: ignored, the default (false) is used")
    if "now" in config and pinned_now(config) is None:
        warn("now", f"now is {display_value(config['now'])!r}, not an ISO 8601 date: ignored, the clock is used")
    stale_days = config.get("staleDays")
    if "staleDays" in config and not _positive_whole(stale_days):
        warn("staleDays", f"staleDays is {display_value(stale_days)!r}, not a whole number of days: ignored, 180 is used")
    budgets = config.get("budgets")
    if "budgets" in config:
        if not isinstance(budgets, dict):
            warn("budgets", f"budgets is {display_value(budgets)!r}, not a mapping of agent names to token budgets: ignored")
        else:
            wrong = [f"{agent}: {display_value(value)}" for agent, value in budgets.items() if not _positive_whole(value)]
            if wrong:
                them = "it" if len(wrong) == 1 else "them"
                warn("budgets", f"budgets ({', '.join(wrong)}): not a whole number of tokens above 0: ignored, no budget is checked for {them}")
    keys = ignored_person_keys(config)
    if keys:
        warn(None, where_it_belongs(keys), "person-setting")
    for key in config:
        if key not in STORE_KEYS and key not in (IGNORED, "_error"):
            warn(key, f"unknown setting {str(key)!r}{_did_you_mean(str(key), STORE_KEYS)} (a store's are {', '.join(STORE_KEYS)}): ignored")
    return found


def person_settings_problems(person: PersonSettings, binding_ids=None, themes=None) -> list[SettingsProblem]:
    """The problems of the person's own settings file: what ``load_person_settings`` could not use, a keymap naming
    no binding and a theme that is not one. (The keymap remaps no keymap may make, a confirmation made unsafe,
    are the app's to refuse: ``tui.keys.checked_keymap``, which reads keys as Textual does.)"""
    names = _app_names()
    binding_ids = names["bindingIds"] if binding_ids is None else binding_ids
    themes = names["themes"] if themes is None else themes
    where = shown_path() if person.path == settings_path() else str(person.path)
    found = [SettingsProblem(where, None, WARNING, "settings", problem) for problem in person.problems]
    keymap = person.get("keymap") or {}
    unknown = [binding for binding in keymap if binding not in binding_ids]
    if unknown:
        named = ", ".join(repr(u) for u in unknown) + _did_you_mean(unknown[0], binding_ids)
        found.append(SettingsProblem(where, "keymap", WARNING, "settings", f"keymap: no key binding has the id {named} (? in the app lists the ids): ignored"))
    theme = person.get("theme")
    if theme is not None and theme not in themes:
        examples = ", ".join(sorted(themes)[:4])
        message = f"theme {theme!r} is not a theme here{_did_you_mean(theme, themes)}; the default is used (e.g. {examples})"
        found.append(SettingsProblem(where, "theme", WARNING, "settings", message))
    return found


def _positive_whole(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value > 0


def _did_you_mean(given: str, choices) -> str:
    by_lower = {str(choice).lower(): str(choice) for choice in choices}
    close = difflib.get_close_matches(given.lower(), list(by_lower), n=1, cutoff=0.75)
    return f" (did you mean {by_lower[close[0]]}?)" if close else ""


@lru_cache(maxsize=1)
def _app_names() -> dict:
    """The app's binding ids and themes (data/app_names.json; a test keeps it equal to the app's)."""
    return json.loads((Path(__file__).parent / "data" / "app_names.json").read_text(encoding="utf-8"))
