"""Progress while a run plays its cases: live on a terminal, one line per system in a log.

Why: a full run against a real runtime takes minutes, and nothing used to appear until the end. On a
terminal the line for the current system is rewritten after every case (cases done of total, failures so
far); in CI, where rewritten lines turn into thousands of log lines, each system gets one line when it is
done. It writes to stdout, before the summary, so the summary's last line stays the last line of the
output whatever reads it, and a log keeps the order. Failures are counted before any expected-failures
baseline is applied; the final summary gives the verdicts after it.
"""

from __future__ import annotations

import os
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from typing import TextIO, TypeVar

from conformance.runner import CaseResult

Item = TypeVar("Item")


def is_live(stream: TextIO) -> bool:
    """Rewrite lines only on an interactive terminal that is not a CI log."""
    return stream.isatty() and not os.environ.get("CI") and os.environ.get("TERM") != "dumb"


class Progress:
    def __init__(self, totals: Counter[str], stream: TextIO | None = None, note: str = "") -> None:
        self._totals = totals
        self._stream = stream or sys.stdout
        self._live = is_live(self._stream)
        self._note = note
        self._system = ""
        self._done: Counter[str] = Counter()
        self._failing: Counter[str] = Counter()
        self._started = time.monotonic()

    def advance(self, case: CaseResult) -> None:
        if case.system != self._system:
            self._finish_system()
            self._system = case.system
        self._done[case.system] += 1
        self._failing[case.system] += case.verdict in ("fail", "error")
        if self._live:
            self._stream.write("\r\x1b[K" + self._line(case.system))
            self._stream.flush()
        if self._done[case.system] == self._totals[case.system]:
            self._finish_system()

    def close(self) -> None:
        self._finish_system()

    def _line(self, system: str) -> str:
        failing = self._failing[system]
        return (
            f"{system}: {self._done[system]}/{self._totals[system]} cases, "
            f"{failing} failing{self._note if failing else ''}"
        )

    def _finish_system(self) -> None:
        system, self._system = self._system, ""
        if not system:
            return
        if self._live:
            self._stream.write("\n")
        else:
            self._stream.write(f"{self._line(system)} ({time.monotonic() - self._started:.1f}s)\n")
        self._stream.flush()
        self._started = time.monotonic()


def track(
    items: Sequence[Item],
    system_of: Callable[[Item], str],
    play: Callable[[Item], CaseResult],
    note: str = "",
) -> list[CaseResult]:
    """Play every item in order, reporting progress per system; returns the results in the same order."""
    return follow(items, system_of, (play(item) for item in items), note)


def follow(
    items: Sequence[Item],
    system_of: Callable[[Item], str],
    results: Iterable[CaseResult],
    note: str = "",
) -> list[CaseResult]:
    """Collect ``results`` (one per item, in the items' order, produced as they are consumed: played
    here, or by ``conformance.parallel``), reporting progress per system."""
    progress = Progress(Counter(system_of(item) for item in items), note=note)
    collected = []
    try:
        for result in results:
            collected.append(result)
            progress.advance(result)
    finally:
        progress.close()
    return collected
