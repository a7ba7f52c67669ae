"""``python -m scenarios.cli ARGS`` is ``mpc-rr ARGS``."""

import sys

from scenarios.cli import main

sys.exit(main())
