"""The keys in force, and the rules no keymap may break.

A keymap (the person's own settings file: a store's ``keymap:`` is ignored) can
remap any binding by its id. It cannot make a confirmation unsafe: the key that
says yes to a write (``confirm-yes``, and ``confirm-include``: yes, with another writer's bytes) or to throwing typed text away
(``discard-yes``) is never Esc or ``n``, never a key that also says no, and
never a key that also opens a write's confirmation (pressed twice, it would
write what was never read). A remap that would is refused and the defaults of
the bindings involved are kept. What a dialog says about its keys is built
from the keys in force (``shown_keys``), so it is always true.
"""

from __future__ import annotations

from textual.binding import Binding
from textual.keys import _normalize_key_list  # Textual's own reading of a keymap's key list ("?" -> question_mark)

# (yes, no) binding ids of each question that guards something that cannot be taken back
QUESTIONS = (
    ("confirm-yes", "confirm-no"),
    ("confirm-include", "confirm-no"),
    ("discard-yes", "discard-no"),
    ("torn-take-back", "torn-back"),
    ("torn-acknowledge", "torn-back"),
)
ALWAYS_NO = frozenset({"escape", "ctrl+left_square_brace", "n"})  # ctrl+[ is Esc to a terminal
# bindings that open a write's confirmation: the yes key must be none of theirs
OPENERS = (
    "editor-save",
    "save-task",
    "consolidation-keep-left",
    "consolidation-supersede",
    "consolidation-link",
    "consolidation-confirm",
    "consolidation-retire",
    "consolidation-dismiss",
    "consolidation-undo",
    "torn-commit",
)
# for each yes, the bindings that open the screen asking it (pressed twice, the key would act unread)
OPENED_BY = {
    "confirm-yes": OPENERS,
    "confirm-include": OPENERS,
    "torn-take-back": ("append-update",),  # `a` on a memory holding a torn write opens the torn-write screen
    "torn-acknowledge": ("append-update",),
}


def key_list(keys: str) -> list[str]:
    """``"n, Escape"`` as the keys Textual binds: ``["n", "escape"]``."""
    return [key for key in _normalize_key_list(keys).split(",") if key]


def checked_keymap(keymap: dict[str, str], defaults: dict[str, str]) -> tuple[dict[str, str], list[str]]:
    """The keymap without the remaps that would make a confirmation unsafe, and why each was refused.

    ``defaults``: every binding id's own key string.
    """
    keymap = dict(keymap)
    problems = []
    for yes, no in QUESTIONS:
        in_force = lambda binding_id: set(key_list(keymap.get(binding_id) or defaults.get(binding_id, "")))  # noqa: E731
        yes_keys, no_keys = in_force(yes), in_force(no)
        said, involved = [], {yes, no}
        if yes_keys & ALWAYS_NO:
            said.append(f"{yes} would be {_listed(yes_keys & ALWAYS_NO)}, which always mean no")
        if yes_keys & (no_keys - ALWAYS_NO):
            said.append(f"{_listed(yes_keys & (no_keys - ALWAYS_NO))} would both confirm ({yes}) and cancel ({no})")
        for opener in OPENED_BY.get(yes, ()):
            shared = yes_keys & in_force(opener)
            if shared:
                involved.add(opener)
                said.append(f"{_listed(shared)} would also open a confirmation ({opener}): pressed twice, it would write what was never read")
        if said:
            for binding_id in involved:
                keymap.pop(binding_id, None)
            problems.append("; ".join(said) + f" — refused, the default keys of {', '.join(sorted(involved))} are kept")
    return keymap, problems


def _listed(keys: set[str]) -> str:
    return ", ".join(sorted(display(k) for k in keys))


def display(key: str) -> str:
    """How a key is written in the app's sentences: ``Esc``, ``Ctrl+S``, ``y``."""
    names = {"escape": "Esc", "ctrl+left_square_brace": "Ctrl+[", "question_mark": "?", "enter": "Enter", "tab": "Tab", "space": "Space"}
    if key in names:
        return names[key]
    if "+" in key:
        return "+".join(part.capitalize() if len(part) > 1 else part.upper() for part in key.split("+"))
    return key


def bound_keys(app, screen: type, binding_id: str) -> list[str]:
    """The keys in force for ``binding_id`` of ``screen``'s bindings, as Textual names them (``k``, ``ctrl+s``)."""
    default = next((b.key for b in screen.BINDINGS if isinstance(b, Binding) and b.id == binding_id), "")
    keymap = getattr(app, "_keymap", {}) or {}
    return key_list(keymap.get(binding_id) or default)


def shown_keys(app, screen: type, binding_id: str) -> list[str]:
    """The keys in force for ``binding_id`` of ``screen``'s bindings, as a sentence names them."""
    return [display(key) for key in bound_keys(app, screen, binding_id)]


def focus_now(widget) -> None:
    """Give ``widget`` the focus before the next key is handled.

    ``Widget.focus`` waits its turn behind the keys already queued, so letters
    typed right after ``/`` or ``1`` reached the widget focused before (``a``
    there opened the append editor).
    """
    widget.screen.set_focus(widget)
