"""`python -m kingdoms ...` runs the `kingdoms` command (the seat's stdio server and tournaments use it)."""

import sys

from kingdoms.cli import run

sys.exit(run())
