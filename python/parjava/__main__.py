"""``python -m parjava``: the same command line as ``parjava``."""

import sys

from .cli import main

sys.exit(main())
