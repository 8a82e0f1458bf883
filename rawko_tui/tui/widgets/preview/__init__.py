"""Injection preview pane: a task, an agent and options in; the ranking out."""
