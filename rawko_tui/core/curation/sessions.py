"""Per-session agent memory (seed 002): ``.rawko/sessions/<id>/agent-memory.yaml``.

A session records what one agent discovered, attempted and decided during a
run.  Some of it deserves to outlive the session: ``promotion_draft`` turns a
discovery, a failed attempt's lesson or a decision into a long-term memory
file, prefilled for a person to edit before it is written.
"""

from __future__ import annotations

import re
from pathlib import Path

from ..records import field, record
from ..disk.safeio import SESSION_LIMIT, SESSIONS_TOTAL, ReadBudget, linked_part, read_in_store
from ..store.reading import LoadError

SESSIONS_DIR = "sessions"
FILE_NAME = "agent-memory.yaml"

# seed 002's discovery types -> the convention's tags (seed 001)
TAGS_BY_TYPE = {
    "codebase_structure": ["codebase-structure", "structure"],
    "dependency_check": ["dependencies", "constraints"],
    "code_pattern": ["code-patterns", "patterns"],
    "api_surface": ["api-surface"],
    "data_model": ["data-model"],
    "complexity_assessment": ["analysis", "planning"],
    "failure_cause": ["failures"],
    "solution_verified": ["solutions"],
}
_STOP = set("the and for with from into that this when what have been will should only also than then them they were there".split())


@record
class SessionItem:
    kind: str  # discovery | attempt | decision
    id: str
    timestamp: str
    summary: str
    text: str
    importance: str
    type: str = ""
    result: str = ""

    def to_dict(self) -> dict:
        return {"kind": self.kind, "id": self.id, "timestamp": self.timestamp, "summary": self.summary, "importance": self.importance, "type": self.type, "result": self.result}


@record
class Session:
    id: str
    path: str
    agent: str = ""
    created_at: str = ""
    items: list[SessionItem] = field(default_factory=list)
    error: LoadError | None = None

    def item(self, item_id: str) -> SessionItem | None:
        return next((i for i in self.items if i.id == item_id), None)

    def to_dict(self) -> dict:
        return {
            "id": self.id,
            "path": self.path,
            "agent": self.agent,
            "createdAt": self.created_at,
            "items": [i.to_dict() for i in self.items],
            "error": self.error.to_dict() if self.error else None,
        }


def _text(value: object) -> str:
    if value is None:
        return ""
    if isinstance(value, list):
        return "\n".join(f"- {_text(v)}" for v in value)
    if isinstance(value, dict):
        return ", ".join(f"{k}: {_text(v)}" for k, v in value.items())
    return str(value).strip()


def _stamp(value: object) -> str:
    """A timestamp as ISO 8601 with its offset (YAML may have read it as a datetime)."""
    from datetime import datetime, timezone

    if isinstance(value, datetime):
        value = value if value.tzinfo else value.replace(tzinfo=timezone.utc)
        return value.astimezone(timezone.utc).isoformat().replace("+00:00", "Z")
    return "" if value is None else str(value)


def _first_sentence(text: str) -> str:
    """The first sentence of a paragraph wrapped over lines (a first line alone stops mid-clause)."""
    paragraph = " ".join(text.strip().split("\n\n", 1)[0].split())
    match = re.search(r"(?<=[.!?])\s+(?=[A-Z0-9])", paragraph)
    return paragraph[: match.start()] if match else paragraph


# a heading read at a glance: 99% of the 717 titles people wrote in tests/data/realworld are at most 63 characters;
# the file name is the title's slug (writer.slugify, the name lint's file-name rule expects), so it is as short
MAX_TITLE = 60
# a clause ends at a colon, semicolon, comma, bracket or dash, or before a word that starts a reason
_CLAUSE_END = re.compile(r"[:;,(\u2013\u2014]| - | (?=(?:because|since|so that|whereas|although|unless) )")
# words that leave a title hanging ("…functions that return"): a cut never ends on them
_DANGLING = set("a an the and or but of to in on at by for with from into via as that which who whose when where while if than so is are was were be".split())


def title_from(summary: str) -> str:
    """A title of at most ``MAX_TITLE`` characters that ends where a clause ends, never in the middle of one."""
    text = summary.strip().rstrip(" .")
    if len(text) <= MAX_TITLE:
        return text
    ends = [m.start() for m in _CLAUSE_END.finditer(text) if 20 <= m.start() <= MAX_TITLE]
    if ends:
        return text[: ends[-1]].rstrip(" .")
    words = text[: MAX_TITLE + 1].rsplit(" ", 1)[0].split()
    while len(words) > 3 and words[-1].lower() in _DANGLING:
        words.pop()
    return " ".join(words).rstrip(" .,;:")


def distinctive_words(*texts: str, limit: int = 3) -> list[str]:
    """Up to ``limit`` words that say what the texts are about: the rarest in English, never a frequent word.

    Frequent words (``over``, ``used``) would match tasks on any subject; words
    of the first text (the summary) come before those of the others.
    """
    from ..text.commonwords import COMMON_WORD_RANK, word_rank, words_containing

    chosen: list[str] = []
    for text in texts:
        words = list(dict.fromkeys(w for w in re.findall(r"[a-z][a-z0-9]{2,}", text.lower()) if w not in _STOP))
        # rarest first (a word outside the list is rarer than any in it), then in the order written
        ranked = [(-(word_rank(w) or 10**9), position, w) for position, w in enumerate(words)]
        for _, _, word in sorted(r for r in ranked if -r[0] > COMMON_WORD_RANK):
            if len(chosen) == limit:
                return chosen
            # a three-letter fragment inside frequent words ("req": request, require) matches far too much
            if word not in chosen and (len(word) > 3 or not words_containing(word, 1)):
                chosen.append(word)
    return chosen


def _items(data: dict) -> list[SessionItem]:
    items: list[SessionItem] = []
    for d in data.get("discoveries") or []:
        if isinstance(d, dict):
            content = _text(d.get("content"))
            items.append(SessionItem("discovery", str(d.get("id", "")), _stamp(d.get("timestamp")), _first_sentence(content), content, str(d.get("importance", "medium")), str(d.get("type", ""))))
    attempts = [a for a in data.get("attempts") or [] if isinstance(a, dict)]
    attempts.sort(key=lambda a: a.get("result") != "failure")  # failures first: they teach the most
    for a in attempts:
        parts = [
            f"**Attempted:** {_text(a.get('description'))}",
            f"**Approach:** {_text(a.get('approach'))}" if a.get("approach") else "",
            f"**What happened:** {_text(a.get('error') or a.get('output'))}" if a.get("error") or a.get("output") else "",
            f"**Lessons:**\n{_text(a.get('lessons'))}" if a.get("lessons") else "",
        ]
        result = str(a.get("result", ""))
        items.append(
            SessionItem(
                "attempt",
                str(a.get("id", "")),
                _stamp(a.get("timestamp")),
                _text(a.get("description")),
                "\n\n".join(p for p in parts if p),
                "high" if result == "failure" else "medium",
                result=result,
            )
        )
    for d in data.get("decisions") or []:
        if isinstance(d, dict):
            parts = [f"**Decision:** {_text(d.get('description'))}", f"**Reasoning:**\n{_text(d.get('reasoning'))}" if d.get("reasoning") else ""]
            if d.get("alternatives"):
                parts.append(f"**Alternatives considered:**\n{_text(d.get('alternatives'))}")
            impact = str(d.get("impact", "medium"))
            items.append(
                SessionItem(
                    "decision",
                    str(d.get("id", "")),
                    _stamp(d.get("timestamp")),
                    _text(d.get("description")),
                    "\n\n".join(p for p in parts if p),
                    impact if impact in ("low", "medium", "high", "critical") else "medium",
                    str(d.get("type", "")),
                )
            )
    return items


def load_sessions(root: Path) -> list[Session]:
    """Every session of the store, newest first; a file that cannot be read is reported, not fatal.

    A symlinked sessions folder, session folder or file, a FIFO, a device or an
    oversized file is never read: it is a session whose error says why; so is
    every session past ``SESSIONS_TOTAL`` bytes of them (newest first).
    """
    folder = Path(root) / ".rawko" / SESSIONS_DIR
    linked = linked_part(root, f".rawko/{SESSIONS_DIR}")
    if linked is not None:
        why = "a symlinked folder: never followed (it could point anywhere); no session in it is read"
        return [Session(id=SESSIONS_DIR, path=linked, error=LoadError(linked, why, stage="read"))]
    sessions: list[Session] = []
    budget = ReadBudget(SESSIONS_TOTAL, "session files (newest first)")
    for path in sorted(folder.glob(f"*/{FILE_NAME}"), reverse=True) if folder.is_dir() else []:
        rel = path.relative_to(root).as_posix()
        session = Session(id=path.parent.name, path=rel)
        from ..js.jsyaml import load_with_ruamel, plain_yaml_error  # the YAML readers: only when there is a session to read

        try:
            data = load_with_ruamel(budget.read_in_store(root, session.path, SESSION_LIMIT).decode("utf-8"))
        except Exception as exc:  # ruamel raises many kinds; each is a reason to show
            session.error = LoadError(rel, *plain_yaml_error(exc))
            sessions.append(session)
            continue
        if not isinstance(data, dict):
            session.error = LoadError(rel, "not a mapping of session fields")
            sessions.append(session)
            continue
        session.id = str(data.get("sessionId", session.id))
        session.agent = str(data.get("agent", ""))
        session.created_at = _stamp(data.get("createdAt"))
        session.items = _items(data)
        sessions.append(session)
    return sessions


def session_bytes(root: Path, session: Session) -> bytes:
    """The session's file, through the store's guarded reader (``UnsafeFile``, an OSError, when it is refused)."""
    return read_in_store(root, session.path, SESSION_LIMIT)


def promotion_source(session: Session, item: SessionItem) -> str:
    """The ``source:`` a promoted memory carries: how a later look finds that the item was promoted."""
    return f"{session.path} ({item.kind} {item.id})"


SESSION_LINK_FIELDS = ("discoveredIn", "source")  # what ties a memory, or an entry appended to one, to its session item


def session_link(fields: dict) -> dict[str, str]:
    """The session link of a draft's frontmatter (``promotion_draft`` writes it), to carry into an entry appended instead."""
    return {name: fields[name] for name in SESSION_LINK_FIELDS if isinstance(fields.get(name), str) and fields[name].strip()}


def promotions(store) -> dict[str, list[str]]:
    """The memory files promoted from session items, by the ``source:`` of any of their entries (one pass over the store).

    An item appended to an existing memory instead of becoming a new one is in that memory's later entry.
    """
    found: dict[str, list[str]] = {}
    for memory in store.files:
        if memory.error is not None:
            continue
        fields = [memory.attrs] if memory.single_entry() else [entry.frontmatter or {} for entry in memory.entries]
        for source in dict.fromkeys(str(f["source"]) for f in fields if f.get("source") is not None):
            found.setdefault(source, []).append(memory.name)
    return found


def promoted_to(promoted: dict[str, list[str]], session: Session, item: SessionItem) -> list[str]:
    """The memory files already promoted from this item, in ``promotions(store)``."""
    return promoted.get(promotion_source(session, item), [])


def promotion_draft(session: Session, item: SessionItem, when: list[str] | None = None, title: str | None = None) -> str:
    """A long-term memory file for a person to edit: frontmatter prefilled from the session item.

    ``when``: the whenToUse patterns; by default the summary's most distinctive words.
    ``title``: the person's own title, used as written; by default the summary cut to a heading (``title_from``).
    A session's text that cannot be written (a ``"\\ud800"`` escape: no UTF-8 form) is a ``WriteError`` naming the item.
    """
    from ..record.writer import WriteError, format_entry

    if title is None:
        title = title_from(item.summary) or f"{item.kind.title()} {item.id}"
    if item.kind == "attempt" and item.result == "failure" and not title.lower().startswith("failed"):
        title = f"Failed attempt: {title}"
    if item.kind == "discovery":
        tags = TAGS_BY_TYPE.get(item.type, [item.type] if item.type else [])
    elif item.kind == "attempt":
        tags = ["failures"] if item.result == "failure" else ["solutions"]
    else:
        tags = ["decisions"] + ([item.type] if item.type else [])
    fields = {
        "title": title,
        "whenToUse": when or ["|".join(distinctive_words(item.summary, item.text)) or item.kind],
        "tags": tags,
        "importance": item.importance if item.importance in ("low", "medium", "high", "critical") else "medium",
        "discoveredAt": item.timestamp,
        "discoveredBy": session.agent or "unknown",
        "discoveredIn": session.id,
        "source": promotion_source(session, item),
    }
    try:
        return format_entry(fields, f"# {title}\n\n{item.text}")
    except WriteError as exc:
        raise WriteError(f"{session.path}, {item.kind} {item.id}: {exc}") from None
