"""Lint: every finding about a store, its files, its settings and the text an agent would read."""
