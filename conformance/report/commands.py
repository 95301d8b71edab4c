"""The ``compare`` and ``html`` subcommands' arguments, apart from the code that runs them.

``python -m conformance`` builds its whole parser on every start; keeping the arguments here means a
``run`` does not import the report readers (models, the comparison, the HTML renderer) just to list the
commands it is not running.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from conformance.paths import BUILD_ROOT


def add_compare(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = commands.add_parser(
        "compare",
        help="rules and scenarios that regressed, were fixed or changed verdict between two reports",
        description="Exit 1 when anything regressed that the new run's baseline does not explain, else 0.",
    )
    parser.add_argument("old", type=Path, metavar="OLD", help="the earlier (or reference) report.json")
    parser.add_argument("new", type=Path, metavar="NEW", help="the later report.json")


def add_html(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = commands.add_parser(
        "html", help="one self-contained report.html from one or more report.json files, side by side"
    )
    parser.add_argument(
        "reports", nargs="+", type=Path, metavar="REPORT", help="report.json files or report directories"
    )
    parser.add_argument(
        "-o", "--output", type=Path, default=BUILD_ROOT / "conformance" / "report.html", help="where to write"
    )
