"""The memory store: finding it, reading its files (through the parse cache), its settings, noticing changes."""
