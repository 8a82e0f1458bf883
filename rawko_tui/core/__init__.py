"""The headless core, a package per concern in pipeline order (docs/ARCHITECTURE.md). Never imports Textual or anthropic."""
