"""A person's curation: what appended entries mean, consolidation, session memory, Claude drafts, saved checks."""
