"""Command palette: every action of the app, and one command per agent."""

from __future__ import annotations

from functools import partial

from textual.command import DiscoveryHit, Hit, Hits, Matcher, Provider
from textual.content import Content

from .safe import clean


def literal(text: str) -> Content:
    """A palette line shown as written: the palette parses a plain string as markup, and an agent's name comes from the store."""
    return Content(clean(text))


def highlighted(matcher: Matcher, text: str) -> Content:
    """``matcher.highlight`` without its markup parsing: the matched characters of the literal text marked."""
    content = literal(text)
    if content.plain != text:
        return content  # control characters were made visible: the offsets no longer line up
    _, offsets = matcher.fuzzy_search.match(matcher.query, text)
    for offset in offsets:
        if not text[offset].isspace():
            content = content.stylize(matcher.match_style, offset, offset + 1)
    return content


class RawkoCommands(Provider):
    def _commands(self):
        app = self.app
        commands = [
            ("Focus memories", "Go to the list of memory files", partial(app.action_focus_pane, "memories")),
            ("Focus memory view", "Go to the selected memory", partial(app.action_focus_pane, "memory")),
            ("Focus injection preview", "Type a task", partial(app.action_focus_pane, "preview")),
            ("Focus why", "Go to the score breakdown", partial(app.action_focus_pane, "breakdown")),
            ("Filter memories", "Fuzzy filter by title, tags, patterns, path", app.action_filter),
            ("Cycle memory sort", "Sort by name, importance, age, title, score", app.action_cycle_sort),
            ("Toggle unmatched memories", "Show or hide memories no pattern matched", app.action_toggle_unmatched),
            ("Toggle subfolders", "Preview an arbiter that also reads subfolders", app.action_toggle_recursive),
            ("Show prompt", "The exact text the arbiter injects", partial(app.action_show_tab, "tab-prompt")),
            ("Show why", "The breakdown of the highlighted memory", partial(app.action_show_tab, "tab-why")),
            ("Consolidate memories", "Near-duplicates, contradictions, stale memories: merge, supersede or dismiss", app.action_consolidate),
            ("Browse sessions", "Discoveries, attempts and decisions of agent sessions; promote one to a memory", app.action_sessions),
            ("New memory", "Write a memory file, with live validation", app.action_new_memory),
            ("Append an update", "Add an update to the selected memory", partial(app.action_append, "update")),
            ("Correct memory", "Append a correction to the selected memory", partial(app.action_append, "correct")),
            ("Change importance", "Append a new importance for the selected memory", partial(app.action_append, "importance")),
            ("Retire memory", "Append status: retired, with a reason", partial(app.action_append, "retire")),
            ("Run saved tasks", "Checks and the agent x memory matrix", app.action_checks),
            ("Next arbiter", "Rank under the next arbiter profile: spec-0007, rawko-sdk, spec-0005, the store's own", app.action_next_arbiter),
            ("Arbiters side by side", "Each memory whose fate differs between the arbiter profiles for this task, and why", app.action_compare_arbiters),
            ("Save this task", "Save the preview's task with what it injects now as its expectation", app.action_save_task),
            ("Reload store", "Read every file again", app.action_reload),
            ("Show keys", "Every key binding and its id", app.action_help),
        ]
        for agent in getattr(app, "agent_names", []):
            commands.append((f"Preview as {agent}", f"Switch the preview's agent to {agent}", partial(app.set_agent, agent)))
        return commands

    async def discover(self) -> Hits:
        for name, help_text, callback in self._commands():
            yield DiscoveryHit(literal(name), callback, text=name, help=literal(help_text))

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for name, help_text, callback in self._commands():
            score = matcher.match(name)
            if score > 0:
                yield Hit(score, highlighted(matcher, name), callback, text=name, help=literal(help_text))
