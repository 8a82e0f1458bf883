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

import os
from pathlib import Path
from ..records import field, record

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


@record(frozen=True)
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
    from ..js.jsyaml import load_with_ruamel, plain_yaml_error

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

    from ..js.values import JsDate, js_new_date

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
