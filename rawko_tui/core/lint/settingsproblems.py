"""Every settings problem, one rule for every surface: lint (a finding on the file), the commands and the app.

A store's ``.rawko/rawko-tui.yaml`` (an ``arbiter:`` naming no profile, bad budgets, unknown keys) and the
person's own settings file (a keymap naming no binding, a theme that is not one), as plain data.
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path

from ..arbiters.settingscheck import WARNING, SettingsProblem, arbiter_problem, did_you_mean
from ..store.settings import (
    IGNORED,
    STORE_FILE,
    STORE_KEYS,
    PersonSettings,
    ignored_person_keys,
    pinned_now,
    settings_path,
    shown_path,
    where_it_belongs,
)

def settings_problems(config: dict, person: PersonSettings | None = None, binding_ids=None, themes=None) -> list[SettingsProblem]:
    """Every problem of a store's settings (``store.config``) and of the person's own file (``person``; None: not
    read). ``binding_ids`` and ``themes``: what a keymap and a theme may name (default: the app's, as recorded
    in data/app_names.json; the app passes its own)."""
    found = store_settings_problems(config)
    if person is not None:
        found += person_settings_problems(person, binding_ids, themes)
    return found


def store_settings_problems(config: dict) -> list[SettingsProblem]:
    """The problems of a store's ``.rawko/rawko-tui.yaml`` (as ``load_config`` read it)."""
    from ..arbiters.profiles import defined_profiles
    from ..js.values import display_value, js_to_string

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
            warn(key, f"unknown setting {str(key)!r}{did_you_mean(str(key), STORE_KEYS)} (a store's are {', '.join(STORE_KEYS)}): ignored")
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
        named = ", ".join(repr(u) for u in unknown) + did_you_mean(unknown[0], binding_ids)
        found.append(SettingsProblem(where, "keymap", WARNING, "settings", f"keymap: no key binding has the id {named} (? in the app lists the ids): ignored"))
    theme = person.get("theme")
    if theme is not None and theme not in themes:
        examples = ", ".join(sorted(themes)[:4])
        message = f"theme {theme!r} is not a theme here{did_you_mean(theme, themes)}; the default is used (e.g. {examples})"
        found.append(SettingsProblem(where, "theme", WARNING, "settings", message))
    return found


def _positive_whole(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value > 0


@lru_cache(maxsize=1)
def _app_names() -> dict:
    """The app's binding ids and themes (data/app_names.json; a test keeps it equal to the app's)."""
    return json.loads((Path(__file__).resolve().parent.parent / "data" / "app_names.json").read_text(encoding="utf-8"))
