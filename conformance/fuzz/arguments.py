"""The ``fuzz`` command's arguments, apart from the command itself.

Every ``python -m conformance`` run builds the whole command line, ``fuzz`` included, before it knows
which command it runs; keeping the parser here means a plain ``run`` does not import the fuzzer's
baseline reader, registry and catalogue with it (``conformance.fuzz.command`` is imported only when
``fuzz`` is the command).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from conformance import argtypes
from conformance.adapters.base import DEFAULT_TIMEOUT
from conformance.paths import BUILD_ROOT
from conformance.systems import SYSTEMS


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = commands.add_parser(
        "fuzz",
        help="generated cases, played on the reference and an implementation, compared on documented facts",
        description="Exit 0: no disagreement; 1: disagreements written (listed); 2: usage error.",
    )
    parser.add_argument("--impl", required=True, help="the implementation to compare with the reference")
    parser.add_argument("--system", required=True, choices=SYSTEMS)
    parser.add_argument(
        "--examples", type=argtypes.POSITIVE, default=200, help="cases generated per search (default 200)"
    )
    parser.add_argument(
        "--seed", type=argtypes.NON_NEGATIVE, default=0, help="the same seed generates the same cases"
    )
    parser.add_argument(
        "--out",
        type=Path,
        default=BUILD_ROOT / "fuzz",
        help="scenario root the findings are written under, as <system>/<area>/ (default build/fuzz)",
    )
    parser.add_argument(
        "--max-findings",
        type=argtypes.POSITIVE,
        default=5,
        help="stop after this many distinct disagreements (default 5)",
    )
    parser.add_argument(
        "--jobs",
        type=argtypes.JOBS,
        default=argtypes.usable_cores(),
        metavar="N",
        help="comparisons played at once, each worker process with its own reference and implementation "
        f"(default: the usable cores, {argtypes.usable_cores()}; 1 plays them one by one in this process); "
        "the findings are the same for any N",
    )
    parser.add_argument(
        "--timeout", type=argtypes.seconds, default=DEFAULT_TIMEOUT, help="seconds per case (default 30)"
    )
    parser.add_argument(
        "--expected-failures",
        type=Path,
        metavar="FILE",
        help="baseline of known failures (as for run): a disagreement on the rules it lists is not a finding",
    )
