"""Commands that show what the arbiter injects and why: preview, explain, compare (profiles), arbiters."""

from __future__ import annotations

import json
import sys
from json.encoder import encode_basestring as encode_json_text  # what the encoder writes a string as (ensure_ascii=False)

from ..core.arbiters.decision import (
    COMPONENT_KEYS,
    ListedDecision,
    Preview,
    explain_candidate,
    fate_if_matched,
    iso_from_ms,
)
from ..core.arbiters.profiles import defined_profiles, resolve_profile
from ..core.arbiters.request import SPEC_VIEW, PreviewRequest, refuse_unusable_arbiter, run_request
from ..core.store.fold import status_of, statuses_of
from ..core.js.values import display_value, js_to_string
from ..core.arbiters.formatters import prompt_shares
from ..core.store.reading import budget_for, pinned_now
from ..core.text.safetext import plural
from .loading import _did_you_mean, _load, _named, _now, _store_root
from .output import EXIT_FINDINGS, EXIT_OK, EXIT_UNDECIDED, RawJsonItems, UsageError, _dumps, _error, _json_default, _report, _write


def _preview(args, rev: str | None = None):
    """The store the arguments name and its preview: the arguments as plain values, handed down once."""
    now_ms = _now(args)  # every argument checked before the store is looked for
    request = PreviewRequest(
        root=_store_root(args),
        task=args.task,
        agent=args.agent,
        rev=rev if rev is not None else getattr(args, "at", None),
        view=getattr(args, "view", SPEC_VIEW),
        arbiter=getattr(args, "arbiter", None),
        order=getattr(args, "order", None),
        max_memories=args.max_memories,
        min_importance=args.min_importance,
        recursive=args.recursive,
        regex_budget=args.regex_budget,
        now_ms=now_ms,
    )
    return run_request(request)


def preview_to_dict(preview: Preview, rows_as_json: bool = False) -> dict:
    """The preview as ``--json`` writes it. ``rows_as_json``: the candidates a listing holds by the thousand are
    JSON text already, a ``RawJsonItems`` (for ``_dumps``'s top level only: a nested one would be written as strings)."""
    scored = preview.profile.scored  # spec-0005 scores nothing: its scores are null, not 0
    row_json = _ListedJson(scored) if rows_as_json else None
    listing = preview.listing()
    statuses = [status_words(status) for status in statuses_of([c.file for c in listing])]
    return {
        "task": preview.task,
        "agent": preview.agent,
        "now": json_instant(preview.now_ms),
        "options": {
            "maxMemories": preview.max_memories,
            "minImportance": preview.min_importance,
            "recursive": preview.recursive,
            "sources": preview.option_sources,
        },
        "injected": [
            {"rank": c.rank, "path": c.path, "title": c.title, "score": c.score if scored else None, "components": c.components} for c in preview.injected
        ],
        "candidates": RawJsonItems(
            [row_json(c, status) if type(c) is ListedDecision else row_json.encode(_candidate_dict(c, status, scored)) for c, status in zip(listing, statuses)]
        )
        if row_json is not None
        else [_candidate_dict(c, status, scored) for c, status in zip(listing, statuses)],
        "prompt": preview.prompt,
        "errors": [e.to_dict() for e in preview.errors],
        "arbiterFailure": preview.arbiter_failure.to_dict() if preview.arbiter_failure else None,
        "notes": preview.notes,
        "view": preview.view,
        "arbiter": {"name": preview.profile.name, "summary": preview.profile.summary, "source": preview.option_sources.get("arbiter", "default"), "order": preview.order_note},
        "planPrompt": _plan_prompt_dict(preview),
        # a memory whose whenToUse regex rawko-tui could not decide: ranked as unmatched, never called "no match"
        "certain": preview.certain,
        "uncertainReasons": preview.uncertain_reasons,
        "regexBudgetSeconds": preview.regex_budget,
        "undecided": [_undecided_dict(c, preview) for c in preview.undecided],
    }


def json_instant(ms: float) -> str:
    """``now`` as ``--json`` writes it: ISO 8601 in UTC with no fraction where there is none, else microseconds
    (Python's form, which it has always had), made from ``toISOString`` (``iso_from_ms``); a year outside 1 to
    9999, which Python's dates cannot hold, as JavaScript writes it (``+010000-01-01T00:00:00.000Z``)."""
    iso = iso_from_ms(ms)
    if not float(ms).is_integer() or iso[0] in "+-" or iso.startswith("0000"):
        return iso
    millis = iso[20:23]
    return iso[:19] + ("" if millis == "000" else f".{millis}000") + "Z"


def _candidate_dict(candidate, status: str, scored: bool) -> dict:
    return {**candidate.to_dict(), "status": status, **({} if scored else {"score": None})}


class _ListedJson:
    """A ``ListedDecision``'s item of ``--json``'s candidates, written as ``_dumps`` writes its dict. All but its path
    and title repeats from row to row (a listing's reasons, headlines, statuses, shared components): that part is
    encoded once for each combination."""

    _REST = (
        '"loaded": %s, "matched": false, "meetsThreshold": %s, "score": %s, "components": %s,'
        ' "rank": null, "injected": false, "reason": %s, "why": %s, "undecided": null, "status": %s}'
    )

    def __init__(self, scored: bool):
        self.scored = scored
        self.encode = json.JSONEncoder(ensure_ascii=False, default=_json_default).encode
        self.rests: dict[tuple, str] = {}
        self.components: list[dict] = []  # each dict whose id is in a key, kept alive so its id stays its own

    def __call__(self, row: ListedDecision, status: str) -> str:
        path, title, shape = row.file.rel_path, row.title, row.shape
        if shape is not None:  # rows of one shape differ only in file and title (the listing keeps each shape alive)
            key = (shape, status)
            rest = self.rests.get(key)
            if rest is None:
                rest = self.rests[key] = self._rest(row, status)
        else:
            # components by identity (a listing shares equal ones); an empty one by its type (each file passed over has its own {})
            components, score = row.components, row.score
            shared = id(components) if components else type(components)
            key = (row.loaded, row.meets_threshold, type(score), score, shared, row.reason, row.why, status)  # the type too: 1 == 1.0 == True
            rest = self.rests.get(key)
            if rest is None:
                if components:
                    self.components.append(components)
                rest = self.rests[key] = self._rest(row, status)
        return '{"path": %s, "title": %s, %s' % (
            encode_json_text(path) if type(path) is str else self.encode(path), encode_json_text(title) if type(title) is str else self.encode(title), rest
        )

    def _rest(self, row: ListedDecision, status: str) -> str:
        """The row's JSON after its title."""
        encode, score = self.encode, row.score
        return self._REST % (
            encode(row.loaded), encode(row.meets_threshold), encode(score) if self.scored else "null", encode(row.components),
            encode(row.reason), encode(row.why), encode(status),
        )  # fmt: skip


def _undecided_dict(candidate, preview: Preview) -> dict:
    fate = fate_if_matched(candidate, preview)
    patterns = [u.to_dict() for u in candidate.undecided.values()]
    return {"path": candidate.path, "title": candidate.title, "ifMatched": fate.words, "changesInjection": fate.changes, "patterns": patterns}


def _plan_prompt_dict(preview: Preview) -> dict | None:
    text = preview.plan_prompt
    if text is None:
        return None
    return {"characters": len(text), "estimatedTokens": (len(text) + 3) // 4, "memories": text.count("\n### "), "text": text}


def status_words(status) -> str:
    """A memory's status as ``--json`` says it: ``active``, or why it is not."""
    return "active" if status.active else status.why


def cmd_preview(args) -> int:
    store, preview = _preview(args)
    budget = budget_for(store, args.agent)
    if args.compare:
        _, other = _preview(args, rev=args.compare)
        return _compare(args, preview, other)
    estimate = (len(preview.prompt) + 3) // 4
    if args.json:
        data = preview_to_dict(preview, rows_as_json=True)
        data["budget"] = {
            "tokens": budget,
            "estimatedTokens": estimate,
            "over": budget is not None and estimate > budget,
            "shares": [{"path": f".rawko/memories/{n}", "characters": b, "share": round(sh, 4)} for n, b, sh in prompt_shares(preview)],
        }
        _write(_dumps(data))
    elif args.prompt:
        if not preview.certain:  # the prompt is written as if nothing undecided matched; the caller must know it may be wrong
            _error("the prompt is uncertain: " + "; ".join(preview.uncertain_reasons) + " (undecided; --regex-budget gives it more time)")
        _write(preview.prompt, exact=not sys.stdout.isatty())
    elif args.plan_prompt:
        if preview.plan_prompt is None:
            raise UsageError(f"{preview.profile.name} has no planning prompt (rawko-sdk's generatePlan is the one arbiter that gives every memory to a planner)")
        _write(preview.plan_prompt, exact=not sys.stdout.isatty())
    else:
        text = render_preview_text(preview, now_pinned=not args.now and pinned_now(store.config) is not None)
        if budget is not None:
            verdict = "over" if estimate > budget else "within"
            text += _report([f"Token budget for {args.agent}: {budget}; the block is about {estimate} tokens: {verdict} budget."])
        _write(text, shown=True)  # every line from _report
    return EXIT_OK if preview.certain else EXIT_UNDECIDED


def cmd_compare(args) -> int:
    import time

    from ..core.arbiters.compare import compare_profiles

    store = _load(args)
    if not args.arbiters:
        refuse_unusable_arbiter(store.config)
    profiles, problems = defined_profiles(store.config)
    if args.arbiters:
        names = [n.strip() for n in args.arbiters.split(",") if n.strip()]
        unknown = [n for n in names if n not in profiles]
        if unknown:
            raise UsageError(f"--arbiters: unknown profile {', '.join(repr(n) for n in unknown)}: choose from {', '.join(profiles)}")
        if len(names) < 2:
            raise UsageError("--arbiters: name at least two profiles to compare")
        chosen = [profiles[n] for n in names]
    else:
        chosen = list(profiles.values())
    now_ms = _now(args, store)
    now_ms = now_ms if now_ms is not None else float(time.time_ns() // 1_000_000)  # one "now" for every profile
    comparison = compare_profiles(store, args.task, args.agent, chosen, now_ms, args.recursive, args.regex_budget)
    if args.json:
        _write(_dumps({**comparison.to_dict(), "now": iso_from_ms(now_ms), "problems": problems}))
        return EXIT_OK
    lines = [f"Task:  {args.task}", f"Agent: {args.agent}", ""]
    for name, preview in comparison.previews.items():
        if preview.arbiter_failure is not None:
            lines.append(f"  {name:<10} injects nothing: {preview.arbiter_failure.describe()}")
        else:
            shown = ", ".join(c.file.name for c in preview.injected[:8]) + (", …" if len(preview.injected) > 8 else "")
            lines.append(f"  {name:<10} {plural(len(preview.injected), 'memory', 'memories')} injected: {shown or '(none)'}")
    lines.append("")
    if not comparison.differences:
        lines.append("Every profile injects the same memories in the same order.")
    else:
        lines.append(f"Memories whose fate differs ({len(comparison.differences)}):")
        width = max(len(n) for n in comparison.previews)
        for difference in comparison.differences:
            lines.append(f"  {difference.path.removeprefix('.rawko/memories/')}  {difference.title or ''}")
            for decision in difference.decisions:
                lines.append(f"    {decision.profile:<{width}}  {decision.short()}")
            lines.append(f"    first difference: {difference.rule}")
    lines += [f"Note: {p}" for p in problems]
    _write(_report(lines))
    return EXIT_OK


def cmd_arbiters(args) -> int:
    from ..core.arbiters.settingscheck import arbiter_problem

    store = _load(args)
    profiles, problems = defined_profiles(store.config)
    unusable = arbiter_problem(store.config)
    active = None if unusable else resolve_profile(store.config)[0].name
    problems = problems + ([str(unusable)] if unusable else [])
    if args.json:
        data = [{"name": p.name, "base": p.base, "active": p.name == active, "summary": p.summary, "dimensions": dict(p.describe())} for p in profiles.values()]
        _write(_dumps({"profiles": data, "problems": problems}))
        return EXIT_OK
    lines = []
    for profile in profiles.values():
        mark = "  (this store's arbiter)" if profile.name == active else ""
        lines.append(f"{profile.name}{mark}: {profile.summary}")
        lines += [f"  {key:<15} {value}" for key, value in profile.describe()]
        lines.append("")
    lines += [f"Problem: {p}" for p in problems]
    lines.append("Choose one with `arbiter: NAME` in .rawko/rawko-tui.yaml, or --arbiter NAME on any command.")
    _write(_report(lines))
    return EXIT_FINDINGS if problems else EXIT_OK


def injection_diff(before: Preview, after: Preview) -> dict:
    """What changed in what the arbiter injects between two previews: a run that throws injects nothing."""
    from ..core.curation.checks import Injection

    old_injection, new_injection = Injection.of(before), Injection.of(after)
    old = [] if old_injection.throws else [c.path for c in before.injected]
    new = [] if new_injection.throws else [c.path for c in after.injected]
    old_rank = {c.path: (c.rank, c.score) for c in before.injected if c.path in old}
    new_rank = {c.path: (c.rank, c.score) for c in after.injected if c.path in new}
    return {
        "added": [p for p in new if p not in old_rank],
        "removed": [p for p in old if p not in new_rank],
        "moved": [{"path": p, "before": old_rank[p], "after": new_rank[p]} for p in new if p in old_rank and old_rank[p] != new_rank[p]],
        "failure": {"before": _failure_dict(old_injection), "after": _failure_dict(new_injection)},
        "undecided": {"before": list(old_injection.uncertain), "after": list(new_injection.uncertain)},
        "same": old == new and all(old_rank[p] == new_rank[p] for p in old) and old_injection.same_as(new_injection),
    }


def _failure_dict(injection) -> dict | None:
    return injection.failure.to_dict() if injection.failure else None


def _compare(args, preview: Preview, other: Preview) -> int:
    from ..core.curation.checks import Injection

    here = args.at or "working tree"
    diff = injection_diff(other, preview)
    undecided = bool(diff["undecided"]["before"] or diff["undecided"]["after"])
    if args.json:
        _write(_dumps({"at": here, "compare": args.compare, "diff": diff, "before": preview_to_dict(other), "after": preview_to_dict(preview)}))
        return EXIT_UNDECIDED if undecided else EXIT_OK
    lines = [f"Injected at {args.compare} -> at {here}, task {preview.task!r}, agent {preview.agent}:"]
    if diff["same"]:
        throws = Injection.of(preview).throws
        lines.append("  the same: the arbiter throws the same way on both sides and injects nothing" if throws else "  the same memories, in the same order, with the same scores")
    for name, shown in ((args.compare, other), (here, preview)):
        injection = Injection.of(shown)
        if injection.throws and not diff["same"]:
            lines.append(f"  ! at {name}: {injection.describe()}")
    for path in diff["added"]:
        lines.append(f"  + {path}  (rank {preview.candidate(path).rank}, score {preview.candidate(path).score:g})")
    for path in diff["removed"]:
        why = preview.candidate(path)
        if Injection.of(preview).throws:
            lines.append(f"  - {path}  (the arbiter throws and injects nothing)")
        else:
            lines.append(f"  - {path}  ({why.explanation.description if why else 'no longer in the store'})")
    for move in diff["moved"]:
        (r0, s0), (r1, s1) = move["before"], move["after"]
        lines.append(f"  ~ {move['path']}  rank {r0} -> {r1}, score {s0:g} -> {s1:g}")
    for side, name in (("before", args.compare), ("after", here)):
        for reason in diff["undecided"][side]:
            lines.append(f"  ? at {name}: undecided: {reason}")
    _write(_report(lines))
    return EXIT_UNDECIDED if undecided else EXIT_OK


def render_preview_text(preview: Preview, now_pinned: bool = False) -> str:
    """The preview as text; ``now_pinned``: the now came from rawko-tui.yaml, and the header says so."""
    lines: list[str] = []
    lines.append(f"Task:  {preview.task}")
    cap = "no cap" if preview.max_memories is None else f"max {js_to_string(preview.max_memories)}"
    threshold = f"min importance {js_to_string(preview.min_importance)}" if preview.profile.scored else "no threshold"
    lines.append(f"Agent: {preview.agent}   {cap}   {threshold}" + ("   recursive" if preview.recursive else ""))
    source = preview.option_sources.get("arbiter", "default")
    lines.append(f"Arbiter: {preview.profile.name} ({_ARBITER_SOURCES.get(source, source)}): {preview.profile.summary}; {preview.order_note}")
    if now_pinned:
        lines.append(f"Now:   {iso_from_ms(preview.now_ms)} (pinned by `now:` in .rawko/rawko-tui.yaml; --now overrides it)")
    if preview.view == "effective":
        lines.append("View:  effective (the fold of every entry; not what SPEC-0007's arbiter does)")
    if preview.arbiter_failure:
        lines += ["", "!! " + preview.failure_banner()]
    if not preview.certain:
        lines += ["", "?? Undecided: what is injected may differ from what is shown below:"]
        lines += [f"   {reason}" for reason in preview.uncertain_reasons]
        lines.append("   (a whenToUse regex rawko-tui could not decide is shown as undecided, never as no match; --regex-budget gives it more time)")
    lines += ["", f"Injected ({len(preview.injected)}):"]
    if not preview.injected:
        lines.append("  (none)")
    for c in preview.injected:
        if not preview.profile.scored:  # spec-0005: every match, by importance only
            lines.append(f"  {c.rank:>2}. {js_to_string(c.file.attrs.get('importance')):<8}  {c.title}  [{c.path}]")
            continue
        parts = " ".join(f"{k}={c.components[k]:g}" for k in COMPONENT_KEYS)
        lines.append(f"  {c.rank:>2}. {c.score:>3g}  {c.title}  [{c.path}]")
        lines.append(f"         {parts}")
    listing = preview.listing(scores=False)  # an unmatched memory's line shows no score
    cut, other = [], []  # one pass over the thousands: the ranked not injected, and every other but the undecided
    for c in listing:
        if c.rank is not None:
            if not c.injected:
                cut.append(c)
        elif not c.match_undecided:
            other.append(f"       {c.title or c.file.name}  [{c.file.rel_path}]  -- {c.why}")
    cut.sort(key=lambda c: c.rank)
    if cut:
        lines += ["", f"Matched but not injected ({len(cut)}):"]
        for c in cut:
            lines.append(f"  {c.rank:>2}. {c.score:>3g}  {c.title}  [{c.path}]  -- {c.why}")
    if preview.undecided:
        lines += ["", f"Undecided ({len(preview.undecided)}):"]
        for c in preview.undecided:
            lines.append(f"     ? {c.title or c.file.name}  [{c.path}]  -- {c.why}")
    if other:
        lines += ["", f"Not injected ({len(other)}):"]
        lines += other
    if preview.errors:
        lines += ["", f"Files that failed to load ({len(preview.errors)}):"]
        lines += [f"  {e}" for e in preview.errors]
    hidden = [(c, status_of(c.file)) for c in preview.injected]
    hidden = [(c, st) for c, st in hidden if not st.active]
    if hidden:
        lines += [""] + [
            f"Note: {c.path} is {st.why} in its entry {st.entry + 1}, which SPEC-0007's arbiter never reads; --view effective leaves it out."
            for c, st in hidden
        ]
    if preview.notes:
        lines += [""] + [f"Note: {n}" for n in preview.notes]
    chars = len(preview.prompt)
    lines += ["", f"Prompt block: {chars} characters, about {(chars + 3) // 4} tokens (rawko-tui preview --prompt prints it)."]
    for name, block, share in prompt_shares(preview):
        lines.append(f"  {share * 100:5.1f}%  {'█' * max(1, round(share * 30)) if block else ''}  {name} ({block} characters)")
    plan = _plan_prompt_dict(preview)
    if plan is not None:
        lines.append(
            f"Plan prompt: {preview.profile.name} also gives the planner every loaded memory ({plural(plan['memories'], 'memory', 'memories')}, "
            f"{plan['characters']} characters, about {plan['estimatedTokens']} tokens; it grows with the store; preview --plan-prompt prints it)."
        )
    return _report(lines)


_ARBITER_SOURCES = {"default": "the default", "option": "--arbiter", "rawko-tui.yaml": "from rawko-tui.yaml"}


def cmd_explain(args) -> int:
    store, preview = _preview(args)
    wanted = args.memory.replace("\\", "/")
    candidate = _named(preview.candidate, wanted, store.root)
    if candidate is None:
        raise UsageError(f"no memory file {args.memory!r} in {store.root}/.rawko/memories" + _did_you_mean(store, wanted))
    tree = explain_candidate(preview, candidate)
    entries = entry_log(candidate.file)
    if args.json:
        _write(
            _dumps(
                {
                    "path": candidate.path,
                    "title": candidate.title,
                    "injected": candidate.injected,
                    "reason": candidate.reason,
                    "score": candidate.score,
                    "explanation": tree.to_dict(),
                    "entries": entries,
                }
            )
        )
        return EXIT_OK
    header = [f"{candidate.title or candidate.file.name}  [{candidate.path}]", f"task {preview.task!r}, agent {preview.agent}"]
    if preview.arbiter_failure:
        header.append("!! " + preview.arbiter_failure.describe())
    text = _report(header) + "\n" + tree.render() + "\n"  # the tree puts each description on its line
    if candidate.file.differs_from_entries:
        text += "\n" + render_entry_log(candidate.file, entries)
    _write(text)
    return EXIT_OK


def entry_log(memory) -> list[dict]:
    """The append-only entries of a file, each with the fields it sets."""
    return [
        {"entry": e.index + 1, "line": e.line, "fields": {k: display_value(v) for k, v in (e.frontmatter or {}).items()}, "bodyWords": len(e.body.split())}
        for e in memory.entries
    ]


def render_entry_log(memory, entries: list[dict]) -> str:
    effective, origin = memory.effective()
    lines = [f"Entry log ({len(entries)} entries). The spec's arbiter reads only entry 1's frontmatter; the rest is body text to it."]
    for entry in entries:
        fields = ", ".join(f"{k}: {v}" for k, v in entry["fields"].items()) or "(no frontmatter)"
        lines.append(f"  entry {entry['entry']} (line {entry['line']}): {fields}; {entry['bodyWords']} words of body")
    differing = [k for k in effective if origin[k] > 0 and memory.attrs.get(k) != effective[k]]
    if differing:
        lines.append("  Folded, the entries say " + ", ".join(f"{k}: {display_value(effective[k])} (entry {origin[k] + 1})" for k in differing))
        spec_view = [f"{k}: {display_value(memory.attrs[k])}" if k in memory.attrs else f"{k}: (not set)" for k in differing]
        lines.append("  where the spec's view says " + ", ".join(spec_view) + ".")
    return _report(lines)
