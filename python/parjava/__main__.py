"""``python -m parjava``: the same command line as ``parjava``."""

import sys

from .cli import main

# Guarded: pool workers (mpi4py.futures, multiprocessing spawn) import the main module under
# another name to find pickled functions, and must not run the command line again.
if __name__ == "__main__":
    sys.exit(main())
