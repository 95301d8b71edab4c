"""Command-line numbers, checked where they are parsed (issue 23, item 6).

Why. ``float("nan")``, ``inf``, ``0`` and ``-1`` all parse; unchecked, ``--timeout nan`` made every
deadline comparison false and hung a run against a silent implementation, and ``--timeout 0`` blamed
the implementation's hello for the harness's own setting. Each numeric option names one of these types,
so a bad value is refused by argparse before any work starts: exit 2 and a message naming the option and
what it accepts.
"""

from __future__ import annotations

import argparse
import math
import os
from collections.abc import Callable

MAX_SECONDS = 7 * 24 * 3600.0
"""The longest timeout accepted (a week): beyond it the timers underneath overflow, and no case needs it."""


def seconds(text: str) -> float:
    """A timeout: a finite number of seconds, more than 0 and at most a week."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of seconds, got {text!r}") from None
    if not math.isfinite(value) or not 0 < value <= MAX_SECONDS:
        raise argparse.ArgumentTypeError(
            f"expected a finite number of seconds above 0 and at most {MAX_SECONDS:g}, got {text!r}"
        )
    return value


def integer(low: int, high: int | None = None) -> Callable[[str], int]:
    """An argparse type for a whole number in ``[low, high]`` (no upper bound when ``high`` is None)."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
        if value < low or (high is not None and value > high):
            span = f"from {low} to {high}" if high is not None else f"of at least {low}"
            raise argparse.ArgumentTypeError(f"expected a whole number {span}, got {text!r}")
        return value

    parse.__name__ = "integer"
    return parse


POSITIVE = integer(1)
NON_NEGATIVE = integer(0)
PORT = integer(0, 65535)
MAX_JOBS = 64
"""The most worker processes ``--jobs`` starts: each holds an implementation, so a typo like 1000 would
start a thousand of them."""
JOBS = integer(1, MAX_JOBS)


def usable_cores() -> int:
    """The default ``--jobs``: the cores this process may run on (not the machine's total), at most
    ``MAX_JOBS``."""
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        cores = os.cpu_count() or 1
    return max(1, min(cores, MAX_JOBS))
