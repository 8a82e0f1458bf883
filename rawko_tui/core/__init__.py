"""The headless core: store, arbiter, explanations, lint. Never imports Textual or anthropic."""
