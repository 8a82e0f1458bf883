"""The append-only record: git history, verify, the one writer, and the hooks that enforce the record."""
