"""A store as a team's would look after years: N memories, a git history of appends.

* patterns mostly ``a|b|c`` alternatives of the team's terms, some phrases,
  globs and ``.{0,n}`` regexes, a few quirks (an empty alternative that
  matches every task, a backreference, a ``{pattern: …}`` map);
* every frontmatter form the seeds show: quoted and plain values, flow and
  block lists, tags or none, dates with and without time and offset;
* a fifth of the files have appended entries (SPEC-0005's separator), some
  files are CRLF or start with a BOM, one in ten lives in a subfolder;
* ``commits`` commits each adding a memory or appending an entry to one,
  then one commit adding the rest (git fast-import: thousands of commits in
  seconds).
"""

from __future__ import annotations

import random
import subprocess
from datetime import datetime, timedelta, timezone
from pathlib import Path

BASE_TERMS = (
    "auth login logout oauth token jwt session cookie password hash bcrypt argon middleware route router handler "
    "controller service repository model schema migration database postgres mysql sqlite redis cache queue kafka "
    "worker cron scheduler retry timeout backoff circuit breaker ratelimit throttle api rest graphql grpc webhook "
    "payment invoice billing stripe refund subscription email smtp template notification push sms search index "
    "elastic pagination cursor filter sort upload download storage bucket s3 cdn image thumbnail video stream "
    "deploy pipeline ci build docker kubernetes helm terraform ansible config secret vault env feature flag "
    "logging metrics tracing alert dashboard incident oncall rollback canary release version semver changelog "
    "test flaky fixture mock stub snapshot coverage lint typecheck format review standards quality refactor "
    "performance latency memory leak profiling benchmark concurrency lock deadlock race thread async promise "
    "frontend react component state hook form validation accessibility i18n locale timezone date currency"
).split()
AGENTS = ["planner", "developer", "tester", "reviewer"]
TAGS = ["planning", "structure", "analysis", "implementation", "code", "patterns", "testing", "validation", "quality", "review", "standards"]
TASK_VERBS = ["implement", "fix", "add", "refactor", "review", "test", "debug", "plan", "migrate", "speed up"]


def vocabulary(rng: random.Random) -> list[str]:
    """The team's terms: the base list and compounds of it (``payment-retry``, ``authservice``)."""
    terms = list(BASE_TERMS)
    for _ in range(400):
        a, b = rng.sample(BASE_TERMS, 2)
        terms.append(rng.choice([f"{a}-{b}", f"{a}{b}", f"{a}_{b}"]))
    return terms


def _pattern(rng: random.Random, terms: list[str]) -> str:
    kind = rng.random()
    term = lambda: rng.choice(terms)  # noqa: E731
    if kind < 0.55:
        return "|".join(term() for _ in range(rng.randint(2, 4)))
    if kind < 0.70:
        return term()
    if kind < 0.80:
        return f"{term()} {term()}"
    if kind < 0.90:
        return rng.choice([f"*{term()}*", f"{term()}*{term()}", f"{term()}*"])
    if kind < 0.97:
        return f"{term()}.{{0,{rng.randint(5, 30)}}}{term()}"
    return rng.choice([f"{term()}|", r"(\w+) \1", "?", f"{term()}.*{term()}"])


def _quoted(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _date(rng: random.Random, now: datetime) -> str:
    stamp = now - timedelta(hours=rng.uniform(0, 24 * 900))
    form = rng.randrange(4)
    if form == 0:
        return stamp.strftime("%Y-%m-%d")
    if form == 1:
        return stamp.strftime("%Y-%m-%dT%H:%M:%SZ")
    if form == 2:
        return _quoted(stamp.strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z")
    return stamp.strftime("%Y-%m-%dT%H:%M:%S+00:00")


def _body(rng: random.Random, terms: list[str]) -> str:
    paragraphs = [" ".join(rng.choice(terms + ["the", "a", "when", "is", "use", "not", "always", "before", "after"]) for _ in range(rng.randint(15, 60))) for _ in range(rng.randint(1, 4))]
    if rng.random() < 0.2:
        paragraphs.insert(1, "```python\n# keep the order\nmiddleware = [auth, session]\n```")
    return "\n\n".join(paragraphs) + "\n"


def memory_text(rng: random.Random, terms: list[str], now: datetime) -> str:
    title = " ".join(rng.choice(terms) for _ in range(rng.randint(2, 6))).capitalize()
    patterns = [_pattern(rng, terms) for _ in range(rng.choice([1, 1, 1, 2, 3]))]
    if rng.random() < 0.4:
        when = _quoted(patterns[0]) if len(patterns) == 1 else "[" + ", ".join(_quoted(p) for p in patterns) + "]"
    else:
        when = "\n" + "\n".join(f"  - {_quoted(p)}" for p in patterns)
    if rng.random() < 0.002:
        when = "\n  - pattern: " + _quoted(patterns[0])  # SPEC-0005's own example form
    fields = [f"title: {_quoted(title) if rng.random() < 0.7 else title}", f"whenToUse: {when}"]
    if rng.random() < 0.8:
        tags = rng.sample(TAGS, rng.randint(1, 3))
        fields.append("tags: [" + ", ".join(tags) + "]" if rng.random() < 0.6 else "tags:\n" + "\n".join(f"  - {t}" for t in tags))
    fields.append(f"importance: {rng.choice(['low', 'medium', 'medium', 'high', 'high', 'critical'])}")
    fields.append(f"discoveredAt: {_date(rng, now)}")
    fields.append(f"discoveredBy: {rng.choice(AGENTS)}")
    text = "---\n" + "\n".join(fields) + "\n---\n\n" + _body(rng, terms)
    if rng.random() < 0.2:
        text += appended_entry(rng, terms, now)
    if rng.random() < 0.02:
        text = text.replace("\n", "\r\n")
    if rng.random() < 0.01:
        text = "\ufeff" + text
    return text


def appended_entry(rng: random.Random, terms: list[str], now: datetime) -> str:
    fields = rng.choice([f"importance: {rng.choice(['low', 'medium', 'high', 'critical'])}", "updatedAt: " + _date(rng, now), "correction: true"])
    return f"\n\n---\n{fields}\n---\n\n{_body(rng, terms)}"


def task_texts(rng: random.Random, terms: list[str], count: int) -> list[str]:
    return [f"{rng.choice(TASK_VERBS)} the {rng.choice(terms)} {rng.choice(terms)} for {rng.choice(terms)}" for _ in range(count)]


def build(root: Path, memories: int, commits: int, seed: int = 11, now: datetime | None = None) -> tuple[Path, list[str]]:
    """Write the store as a git repository with its history; return (root, a few tasks)."""
    rng = random.Random(seed)
    now = now or datetime(2026, 1, 24, 12, tzinfo=timezone.utc)
    terms = vocabulary(rng)
    contents: dict[str, bytes] = {}
    for index in range(memories):
        folder = rng.choice(["auth/", "ci/", "payments/"]) if rng.random() < 0.1 else ""
        name = f".rawko/memories/{folder}{rng.choice(terms)}-{index:06d}.md"
        contents[name] = memory_text(rng, terms, now).encode("utf-8")
    agents = {f".rawko/agents/{a}.md": f"---\nname: {a}\nmemory:\n  maxInjected: 5\n---\n\nThe {a}.\n".encode() for a in AGENTS}
    stream: list[bytes] = []
    mark = 0

    def commit(message: str, changed: dict[str, bytes], stamp: int, parent: int | None) -> int:
        nonlocal mark
        blobs = {}
        for path, data in changed.items():
            mark += 1
            stream.append(b"blob\nmark :%d\ndata %d\n%s\n" % (mark, len(data), data))
            blobs[path] = mark
        mark += 1
        text = message.encode()
        stream.append(b"commit refs/heads/main\nmark :%d\ncommitter Bench <bench@example.com> %d +0000\ndata %d\n%s\n" % (mark, stamp, len(text), text))
        if parent is not None:
            stream.append(b"from :%d\n" % parent)
        stream.extend(b"M 100644 :%d %s\n" % (blob, path.encode()) for path, blob in blobs.items())
        stream.append(b"\n")
        return mark

    # The history: each commit adds a memory or appends to one, so the store grows as a team's does
    # (a commit rewrites the memories folder's tree: writing every commit against the full store
    # would make git, not rawko-tui, the slow part). One last commit adds the rest.
    names = list(contents)
    head = commit("agents", agents, 1_700_000_000, None)
    present: list[str] = []
    for index in range(commits):
        if present and (rng.random() < 0.4 or len(present) == len(names)):
            name = rng.choice(present)
            contents[name] += appended_entry(rng, terms, now).encode()
            message = f"memory: append to {name}"
        else:
            name = names[len(present)]
            present.append(name)
            message = f"memory: add {name}"
        head = commit(message, {name: contents[name]}, 1_700_000_001 + index, head)
    rest = {name: contents[name] for name in names[len(present) :]}
    if rest:
        commit(f"memories: import {len(rest)} more", rest, 1_700_000_001 + commits, head)
    subprocess.run(["git", "init", "-q", "-b", "main", str(root)], check=True)
    subprocess.run(["git", "fast-import", "--quiet"], cwd=root, input=b"".join(stream), check=True)
    subprocess.run(["git", "reset", "-q", "--hard", "main"], cwd=root, check=True)
    return root, task_texts(rng, terms, 8)
