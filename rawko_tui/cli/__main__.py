"""``python -m rawko_tui.cli``: the command line's ``main``."""

import sys

from . import main

sys.exit(main())
