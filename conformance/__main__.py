"""``python -m conformance``; see ``conformance.cli``."""

import sys

from conformance.cli import main
from conformance.exiting import exiting

status = main()
exiting()
sys.exit(status)
