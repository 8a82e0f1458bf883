"""The arbiters rawko-tui reproduces, one profile each (see ``profiles``).

Modules: ``profiles`` (the dimensions and the built-ins), ``loaders`` (each
loader's reading of the store), ``yaml12`` (npm yaml 2.8.2's YAML),
``spec0005`` (the unscored selector), ``planprompt`` (rawko-sdk's planning
prompt), ``ranking`` (the entry point) and ``compare`` (where profiles
disagree).  This file imports none of them, so ``arbiter`` can use
``profiles`` without a cycle.
"""
