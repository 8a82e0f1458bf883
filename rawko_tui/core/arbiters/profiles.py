"""Arbiter profiles: which code decides injection, as a composition of documented dimensions.

Three pieces of code decide what an agent is given, and they disagree on
ordinary stores (docs/guide/arbiters.md sums up how):

* ``spec-0007`` -- SPEC-0007's code (seed 004), with the ``extractFrontmatter``
  it never defines read as Deno std's ``extract`` plus js-yaml 4 (the default);
* ``rawko-sdk`` -- the one implementation that shipped (``rawko/src/memory``);
* ``spec-0005`` -- SPEC-0005's own arbiter (seed 000, "Arbiter Integration").

A profile names each dimension, so a team whose arbiter changed one thing
(the cap, the tag map, the keyword rule) describes it as a built-in plus
overrides in ``.rawko/rawko-tui.yaml``::

    arbiter: our-arbiter
    arbiters:
      our-arbiter:
        base: rawko-sdk
        maxMemories: 8
"""

from __future__ import annotations

from .. import records
from ..records import record

IMPORTANCE_LEVELS = ("low", "medium", "high", "critical")

SPEC_TAGS = {
    "planner": ("planning", "structure", "analysis"),
    "developer": ("implementation", "code", "patterns"),
    "tester": ("testing", "validation", "quality"),
    "reviewer": ("review", "quality", "standards"),
}
# rawko-sdk's getAgentTags: a fourth tag per agent
SDK_TAGS = {
    "planner": (*SPEC_TAGS["planner"], "architecture"),
    "developer": (*SPEC_TAGS["developer"], "development"),
    "tester": (*SPEC_TAGS["tester"], "tests"),
    "reviewer": (*SPEC_TAGS["reviewer"], "code-review"),
}


@record(frozen=True)
class Loader:
    """How the files become memories."""

    splitter: str  # "deno-extract": Deno std's extract (BOM dropped) | "sdk-regex": /^---\n([\s\S]*?)\n---\n?([\s\S]*)$/ (BOM kept)
    yaml: str  # "js-yaml": js-yaml 4 | "yaml-1.2": npm yaml 2.8.2
    gate: str  # "none" | "rawko-sdk": title, whenToUse, tags, importance, discoveredAt, discoveredBy checked
    on_error: str  # "throw": nothing is injected | "skip": that file is left out | "stop": loading ends there
    trim_body: bool  # the body trimmed at both ends (rawko-sdk)
    order: str = "name"  # "name": sorted names | "directory": the order the folder lists them (readdir)


@record(frozen=True)
class Scorer:
    """scoreMemoryRelevance's rules where the arbiters differ."""

    keyword_min_length: int  # a task word counts only when longer than this (0: every word, the empty one too)
    lower_case_tags: bool  # memory tags lower-cased before comparing (a tag that is not a string throws)
    agent_tags: tuple[tuple[str, tuple[str, ...]], ...]

    def tags_for(self, agent: str) -> tuple[str, ...]:
        return dict(self.agent_tags).get(agent, ())


@record(frozen=True)
class Profile:
    name: str
    summary: str
    loader: Loader
    matcher: str  # "spec-0007": | alternatives are substrings | "spec-0005": | and * make a real regex
    scorer: Scorer | None  # None: memories are not scored (spec-0005)
    selector: str  # "top-n": best scores, threshold, cap | "all-by-importance": every match, by importance
    max_memories: int | None  # the cap when nothing else sets one (None: no cap)
    min_importance: str
    formatter: str  # "spec-0007": 500-character previews | "spec-0005": whole bodies
    agent_settings: bool  # whether an agent's ``memory:`` settings apply
    plan_prompt: bool  # whether every loaded memory also goes to a planning prompt (rawko-sdk)
    base: str | None = None  # the built-in a store's own profile starts from

    @property
    def scored(self) -> bool:
        return self.scorer is not None

    def describe(self) -> list[tuple[str, str]]:
        """Each dimension in words, for ``profiles`` and the app's side-by-side view."""
        loader = self.loader
        scorer = self.scorer
        rows = [
            ("loader", f"{loader.splitter} frontmatter, {loader.yaml} YAML, gate: {loader.gate}, on a bad file: {ON_ERROR_WORDS[loader.on_error]}"),
            ("order", "files in name order" if loader.order == "name" else "files in directory (readdir) order"),
            ("matcher", MATCHER_WORDS[self.matcher]),
        ]
        if scorer is not None:
            words = "every task word" if scorer.keyword_min_length == 0 else f"task words longer than {scorer.keyword_min_length} characters"
            rows.append(("scorer", f"keywords: {words}; tags {'lower-cased' if scorer.lower_case_tags else 'compared as written'}"))
            rows.append(("agent tags", "; ".join(f"{agent}: {', '.join(tags)}" for agent, tags in scorer.agent_tags)))
        else:
            rows.append(("scorer", "none: memories are not scored"))
        cap = "no cap" if self.max_memories is None else f"top {self.max_memories}"
        rows.append(("selector", f"{SELECTOR_WORDS[self.selector]} ({cap}, minimum {self.min_importance})"))
        rows.append(("formatter", FORMATTER_WORDS[self.formatter]))
        rows.append(("agent settings", "an agent's memory: settings apply" if self.agent_settings else "an agent's memory: settings are ignored"))
        if self.plan_prompt:
            rows.append(("plan prompt", "every loaded memory also goes to the planning prompt"))
        return rows


ON_ERROR_WORDS = {"throw": "the run throws and nothing is injected", "skip": "that file is skipped", "stop": "loading silently stops there"}
MATCHER_WORDS = {
    "spec-0007": "'|' separates substrings, '*' and '?' are wildcards, '.' with '{' is a regex",
    "spec-0005": "a pattern with '|' or '*' is a real regular expression, anything else a substring",
}
SELECTOR_WORDS = {"top-n": "matched memories at or above the threshold, best score first", "all-by-importance": "every matched memory, by importance only"}
FORMATTER_WORDS = {"spec-0007": "title, importance, discoverer, the body up to 500 characters or its first heading", "spec-0005": "title, discoverer and the whole body"}

SPEC_0007 = Profile(
    name="spec-0007",
    summary="SPEC-0007's code (seed 004), its extractFrontmatter read as Deno std's extract with js-yaml",
    loader=Loader("deno-extract", "js-yaml", "none", "throw", trim_body=False),
    matcher="spec-0007",
    scorer=Scorer(0, False, tuple(SPEC_TAGS.items())),
    selector="top-n",
    max_memories=5,
    min_importance="low",
    formatter="spec-0007",
    agent_settings=True,
    plan_prompt=False,
)
RAWKO_SDK = Profile(
    name="rawko-sdk",
    summary="rawko-sdk, the implementation that shipped (rawko/src/memory, commit e2b158c5)",
    loader=Loader("sdk-regex", "yaml-1.2", "rawko-sdk", "skip", trim_body=True),
    matcher="spec-0007",
    scorer=Scorer(3, True, tuple(SDK_TAGS.items())),
    selector="top-n",
    max_memories=5,
    min_importance="low",
    formatter="spec-0007",
    agent_settings=False,
    plan_prompt=True,
)
SPEC_0005 = Profile(
    name="spec-0005",
    summary="SPEC-0005's own arbiter (seed 000, Arbiter Integration)",
    loader=Loader("deno-extract", "js-yaml", "none", "stop", trim_body=False),
    matcher="spec-0005",
    scorer=None,
    selector="all-by-importance",
    max_memories=None,
    min_importance="low",
    formatter="spec-0005",
    agent_settings=False,
    plan_prompt=False,
)
BUILT_IN = {p.name: p for p in (SPEC_0007, RAWKO_SDK, SPEC_0005)}
DEFAULT = SPEC_0007

# what a store's own profile may change, and how each value is checked
OVERRIDES = ("maxMemories", "minImportance", "keywordMinLength", "lowerCaseTags", "agentTags", "order", "agentSettings", "summary")


class ProfileError(ValueError):
    """A profile name or definition that cannot be used, said plainly."""


def _override(profile: Profile, key: str, value: object, where: str) -> Profile:
    def fail(expected: str) -> ProfileError:
        return ProfileError(f"{where}.{key}: {expected}, not {value!r}")

    if key == "maxMemories":
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise fail("a whole number of memories (0 or more)")
        if profile.selector != "top-n":
            raise ProfileError(f"{where}.maxMemories: {profile.base or profile.name} injects every match (no cap to change)")
        return records.replace(profile, max_memories=value)
    if key == "minImportance":
        if value not in IMPORTANCE_LEVELS:
            raise fail("one of " + ", ".join(IMPORTANCE_LEVELS))
        return records.replace(profile, min_importance=value)
    if key in ("keywordMinLength", "lowerCaseTags", "agentTags") and profile.scorer is None:
        raise ProfileError(f"{where}.{key}: {profile.base or profile.name} does not score memories")
    if key == "keywordMinLength":
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise fail("a whole number of characters (0 counts every word)")
        return records.replace(profile, scorer=records.replace(profile.scorer, keyword_min_length=value))
    if key == "lowerCaseTags":
        if not isinstance(value, bool):
            raise fail("true or false")
        return records.replace(profile, scorer=records.replace(profile.scorer, lower_case_tags=value))
    if key == "agentTags":
        if not isinstance(value, dict) or not all(isinstance(k, str) and isinstance(v, list) and all(isinstance(t, str) for t in v) for k, v in value.items()):
            raise fail("a mapping of agent names to lists of tags")
        return records.replace(profile, scorer=records.replace(profile.scorer, agent_tags=tuple((k, tuple(v)) for k, v in value.items())))
    if key == "order":
        if value not in ("name", "directory"):
            raise fail("'name' or 'directory'")
        return records.replace(profile, loader=records.replace(profile.loader, order=value))
    if key == "agentSettings":
        if not isinstance(value, bool):
            raise fail("true or false")
        return records.replace(profile, agent_settings=value)
    if key == "summary":
        if not isinstance(value, str):
            raise fail("text")
        return records.replace(profile, summary=value)
    raise ProfileError(f"{where}: unknown setting {key!r} (a profile may set: {', '.join(OVERRIDES)})")


def defined_profiles(config: dict) -> tuple[dict[str, Profile], list[str]]:
    """The built-in profiles and a store's own (``arbiters:`` in rawko-tui.yaml), with the problems found."""
    profiles = dict(BUILT_IN)
    problems: list[str] = []
    own = config.get("arbiters")
    if own is None:
        return profiles, problems
    if not isinstance(own, dict):
        return profiles, ["rawko-tui.yaml arbiters: a mapping of profile names to their settings"]
    for name, settings in own.items():
        where = f"rawko-tui.yaml arbiters.{name}"
        if not isinstance(name, str) or not name.strip():
            problems.append(f"rawko-tui.yaml arbiters: {name!r} is not a profile name")
            continue
        if name in BUILT_IN:
            problems.append(f"{where}: a built-in profile's name; give your own profile another name")
            continue
        if not isinstance(settings, dict):
            problems.append(f"{where}: a mapping with 'base' and the settings to change")
            continue
        base = settings.get("base")
        if base not in BUILT_IN:
            problems.append(f"{where}.base: one of {', '.join(BUILT_IN)}, not {base!r}")
            continue
        profile = records.replace(BUILT_IN[base], name=name, base=base, summary=f"{base} with changes from rawko-tui.yaml")
        try:
            for key, value in settings.items():
                if key != "base":
                    profile = _override(profile, key, value, where)
        except ProfileError as exc:
            problems.append(str(exc))
            continue
        profiles[name] = profile
    return profiles, problems


def resolve_profile(config: dict, name: str | None = None) -> tuple[Profile, str]:
    """The profile to use and where the choice came from. Raises ProfileError for an unknown name.

    ``name`` (``--arbiter``, a saved task's ``arbiter:``) wins over the store's
    ``arbiter:`` setting, which wins over the default (spec-0007).
    """
    profiles, problems = defined_profiles(config)
    source = "option"
    if name is None:
        chosen = config.get("arbiter")
        if chosen is None:
            return DEFAULT, "default"
        if not isinstance(chosen, str):
            raise ProfileError(f"rawko-tui.yaml arbiter: a profile name ({', '.join(profiles)}), not {chosen!r}")
        name, source = chosen, "rawko-tui.yaml"
    if name not in profiles:
        broken = [p for p in problems if f"arbiters.{name}" in p]
        if broken:
            raise ProfileError(f"profile {name!r} cannot be used: " + "; ".join(broken))
        raise ProfileError(f"unknown arbiter profile {name!r}: choose one of {', '.join(profiles)}")
    return profiles[name], source


def profile_names(config: dict) -> list[str]:
    return list(defined_profiles(config)[0])
