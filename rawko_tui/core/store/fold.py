"""The fold of a memory's entries: whether it is still in force, and the store as a tool that honours the fold sees it.

A later entry overrides the fields it sets and adds its body; retiring
(``status: retired``) and superseding (``supersededBy:``) are entries too.
SPEC-0007's arbiter reads only the first frontmatter and never sees any of
this: ``effective_store`` is the store a preview's ``--view effective`` ranks,
below the arbiters so that a preview goes down the layers once.
"""

from __future__ import annotations

from ..records import record
from ..js.values import js_to_string, js_trim
from .reading import MemoryFile, SpecView, Store

RETIRED = "retired"


@record(frozen=True)
class Status:
    """Whether a memory is still in force, by the fold of its entries."""

    active: bool
    why: str = ""  # "retired: <reason>" or "superseded by <file>"
    entry: int | None = None  # the entry (0-based) that changed it


_IN_FORCE = Status(True)


def status_of(memory: MemoryFile) -> Status:
    fields = memory.lifecycle_fields()  # a JSON listing asks for every file's status: no split, no decoding
    if fields is not None:
        if not fields:
            return _IN_FORCE
        origin = dict.fromkeys(fields, 0)
    else:
        fields, origin = memory.effective()
    if js_to_string(fields.get("status", "")).lower() == RETIRED:
        reason = js_to_string(fields.get("reason", "no reason given"))
        return Status(False, f"retired: {reason}", origin.get("status"))
    by = fields.get("supersededBy")
    if by:
        return Status(False, f"superseded by {js_to_string(by)}", origin.get("supersededBy"))
    return _IN_FORCE


def statuses_of(memories: list[MemoryFile]) -> list[Status]:
    """``status_of`` of each file, the files the parse cache says set no lifecycle field (most) answered at once."""
    from .columnar import sets_no_lifecycle

    return [_IN_FORCE if unset else status_of(memory) for memory, unset in zip(memories, sets_no_lifecycle(memories))]


def in_force(memory: MemoryFile) -> bool:
    """Whether the memory is in force as far as anything can tell: not retired nor superseded (one whose entries
    cannot be read counts as in force: nothing says otherwise)."""
    return memory.error is not None or memory.spec is None or status_of(memory).active


def effective_body(memory: MemoryFile) -> str:
    """The bodies of all entries, in order, without the appended frontmatter blocks."""
    return "\n\n".join(entry.body for entry in memory.entries if js_trim(entry.body))  # blank as the reader sees it


def effective_store(store: Store) -> Store:
    """The store as the fold of its entries sees it: later fields win, retired and superseded are out.

    Files the spec's loader cannot read stay as they are; an inactive memory keeps
    its file but carries ``inactive`` so the preview can say why it is not used.
    """
    import copy  # only a fold copies files: a command's start does not import it

    files = []
    for memory in store.files:
        if memory.spec is None or not isinstance(memory.spec.attrs, dict) or memory.error is not None:
            files.append(memory)
            continue
        fields, _ = memory.effective()
        clone = copy.copy(memory)
        clone.spec = SpecView(attrs=fields, body=effective_body(memory), frontmatter_text=memory.spec.frontmatter_text, frontmatter_line=memory.spec.frontmatter_line)
        clone._single = None  # a new spec view: whatever was known of the file's entries is asked again
        clone.inactive = status_of(memory)
        clone._facts = None  # the facts of the spec's view do not apply
        files.append(clone)
    return Store(root=store.root, files=files, agents=store.agents, config=store.config, view="effective", skipped=store.skipped)
