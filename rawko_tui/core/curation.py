"""What appended entries mean, and the changes a person makes by appending.

The effective memory is the fold of a file's entries: a later entry overrides
the fields it sets and adds its body.  Retiring (``status: retired`` with a
``reason``) and superseding (``supersededBy:`` on the old memory,
``supersedes:`` on the new one) are entries too, so nothing is ever removed.

SPEC-0007's arbiter reads only the first frontmatter: it never sees any of
this.  ``effective_store`` builds the store as a tool that honours the fold
would see it, so the preview can show both side by side.
"""

from __future__ import annotations

import copy
import re
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

from .jsvalue import JsDate, js_new_date, js_to_string
from .store import MemoryFile, SpecView, Store

RETIRED = "retired"


def now_iso() -> str:
    return datetime.now(timezone.utc).replace(microsecond=0).isoformat().replace("+00:00", "Z")


@dataclass(frozen=True)
class Status:
    """Whether a memory is still in force, by the fold of its entries."""

    active: bool
    why: str = ""  # "retired: <reason>" or "superseded by <file>"
    entry: int | None = None  # the entry (0-based) that changed it


def status_of(memory: MemoryFile) -> Status:
    fields, origin = memory.effective()
    if js_to_string(fields.get("status", "")).lower() == RETIRED:
        reason = js_to_string(fields.get("reason", "no reason given"))
        return Status(False, f"retired: {reason}", origin.get("status"))
    by = fields.get("supersededBy")
    if by:
        return Status(False, f"superseded by {js_to_string(by)}", origin.get("supersededBy"))
    return Status(True)


def effective_body(memory: MemoryFile) -> str:
    """The bodies of all entries, in order, without the appended frontmatter blocks."""
    return "\n\n".join(entry.body for entry in memory.entries if entry.body.strip())


def effective_store(store: Store) -> Store:
    """The store as the fold of its entries sees it: later fields win, retired and superseded are out.

    Files the spec's loader cannot read stay as they are; an inactive memory keeps
    its file but carries ``inactive`` so the preview can say why it is not used.
    """
    files = []
    for memory in store.files:
        if memory.spec is None or not isinstance(memory.spec.attrs, dict) or memory.error is not None:
            files.append(memory)
            continue
        fields, _ = memory.effective()
        clone = copy.copy(memory)
        clone.spec = SpecView(attrs=fields, body=effective_body(memory), frontmatter_text=memory.spec.frontmatter_text, frontmatter_line=memory.spec.frontmatter_line)
        clone.inactive = status_of(memory)  # type: ignore[attr-defined]
        if hasattr(clone, "_facts"):
            del clone._facts  # the facts of the spec's view do not apply
        files.append(clone)
    return Store(root=store.root, files=files, agents=store.agents, config=store.config)


# --------------------------------------------------------------------------
# Consolidation candidates
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class CandidateGroup:
    kind: str  # near-duplicate | contradiction | stale
    paths: tuple[str, ...]
    score: float
    reason: str

    def to_dict(self) -> dict:
        return {"kind": self.kind, "paths": list(self.paths), "score": self.score, "reason": self.reason}


_NUMBER = re.compile(r"(?<![\w.])\d+(?:\.\d+)?(?![\w.])")


def consolidation_candidates(store: Store, now_ms: float, stale_days: int = 180) -> list[CandidateGroup]:
    """Near-duplicates, possible contradictions and stale memories, strongest first."""
    from rapidfuzz import fuzz

    active = [m for m in store.files if m.error is None and m.spec is not None and isinstance(m.attrs.get("title"), str) and status_of(m).active]
    texts = {m.rel_path: (m.effective()[0].get("title", ""), effective_body(m)) for m in active}
    groups: list[CandidateGroup] = []
    for i, a in enumerate(active):
        title_a, body_a = texts[a.rel_path]
        for b in active[i + 1 :]:
            title_b, body_b = texts[b.rel_path]
            title_score = fuzz.token_set_ratio(js_to_string(title_a).lower(), js_to_string(title_b).lower())
            body_score = fuzz.token_set_ratio(body_a[:4000].lower(), body_b[:4000].lower())
            # the same knowledge is often written twice under different titles: bodies decide
            score = round(max(body_score, 0.5 * title_score + 0.5 * body_score), 1)
            numbers_a, numbers_b = set(_NUMBER.findall(body_a)), set(_NUMBER.findall(body_b))
            differing = sorted(numbers_a ^ numbers_b) if numbers_a and numbers_b else []
            if score >= 85:
                reason = f"titles {title_score:.0f}% and bodies {body_score:.0f}% alike"
                if differing:
                    reason += f"; they disagree on the numbers {', '.join(differing[:6])}"
                groups.append(CandidateGroup("near-duplicate", (a.rel_path, b.rel_path), score, reason))
            elif title_score >= 70 and differing:
                groups.append(
                    CandidateGroup(
                        "contradiction",
                        (a.rel_path, b.rel_path),
                        round(float(title_score), 1),
                        f"same subject ({title_score:.0f}% alike titles) with differing numbers: {', '.join(differing[:6])}",
                    )
                )
    for memory in active:
        fields, _ = memory.effective()
        expires = fields.get("expiresAt")
        if expires is not None:
            when = js_new_date(expires)
            if when.valid and when.ms < now_ms:
                groups.append(CandidateGroup("stale", (memory.rel_path,), 100.0, f"expired on {when.iso()}"))
                continue
        found = js_new_date(fields.get("discoveredAt")) if "discoveredAt" in fields else None
        if found is not None and found.valid and (now_ms - found.ms) / 86_400_000 > stale_days:
            days = int((now_ms - found.ms) / 86_400_000)
            groups.append(CandidateGroup("stale", (memory.rel_path,), float(min(100, days / 10)), f"discovered {days} days ago and never updated"))
    groups.sort(key=lambda g: ({"near-duplicate": 0, "contradiction": 1, "stale": 2}[g.kind], -g.score))
    return groups


def retire_entry(reason: str, by: str | None = None, superseded_by: str | None = None) -> dict:
    fields: dict = {"status": RETIRED, "reason": reason, "retiredAt": now_iso()}
    if by:
        fields["retiredBy"] = by
    if superseded_by:
        fields["supersededBy"] = superseded_by
    return fields


def parse_assignments(pairs: list[str]) -> dict:
    """``field=value`` pairs from the command line; values are YAML (``[a, b]`` is a list)."""
    from .yamljs import YamlError, load_yaml

    fields: dict = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise ValueError(f"{pair!r} is not field=value")
        try:
            parsed = load_yaml(value) if value.strip() else ""
        except YamlError:
            parsed = value
        fields[key.strip()] = parsed.iso() if isinstance(parsed, JsDate) else parsed
    return fields


def read_body(text: str | None, file: str | None) -> str:
    if file:
        return Path(file).read_text(encoding="utf-8")
    return text or ""
