"""The ``run`` block of ``report.json``: which suite, which rules, which protocol, when, where, how long.

Without it two reports cannot be compared with confidence: a verdict that changed between them may be
the implementation's doing or the suite's. The digests name the exact catalogue and scenarios a run used,
wherever they came from (a clone or an installed package).
"""

from __future__ import annotations

import contextlib
import os
import platform
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from conformance.paths import SCENARIO_ROOT, SPEC_ROOT
from conformance.protocol import PROTOCOL_VERSIONS
from conformance.resources import suite_version, tree_digest

if TYPE_CHECKING:
    from conformance.report.model import RunMetadata


class Clock:
    """Start time (wall clock, for the report) and a monotonic start (for the duration)."""

    def __init__(self) -> None:
        self.started_at = datetime.now(UTC)
        self._start = time.monotonic()

    def elapsed(self) -> float:
        return time.monotonic() - self._start


def describe_platform() -> str:
    """Operating system, release and machine, and the C library where one is known: what
    ``platform.platform()`` says, without its cost. That call runs ``uname -p`` in a subprocess and, on
    Linux, reads the interpreter's own binary looking for a glibc version: about 13 ms of CPU and 30 ms
    of wall on every run, for a line of the report. ``os.uname`` and ``os.confstr`` give the same facts
    from the kernel and the C library directly."""
    system, _, release, _, machine = os.uname() if hasattr(os, "uname") else ("", "", "", "", "")
    if not system:  # no uname (Windows): the standard library's own answer
        return platform.platform()
    libc = ""
    with contextlib.suppress(ValueError, OSError):
        libc = (os.confstr("CS_GNU_LIBC_VERSION") or "").replace(" ", "")
    return "-".join(part for part in (system, release, machine, f"with-{libc}" if libc else "") if part)


def run_metadata(
    clock: Clock | None = None, spec_root: Path = SPEC_ROOT, scenario_root: Path = SCENARIO_ROOT
) -> RunMetadata:
    from conformance.report.model import RunMetadata  # the report's models: only once a run writes

    clock = clock or Clock()
    return RunMetadata(
        suite_version=suite_version(),
        catalogue_digest=tree_digest(spec_root) if spec_root.is_dir() else "",
        scenarios_digest=tree_digest(scenario_root) if scenario_root.is_dir() else "",
        protocol_version=max(PROTOCOL_VERSIONS),
        started_at=clock.started_at.isoformat(timespec="seconds"),
        duration_s=round(clock.elapsed(), 3),
        platform=describe_platform(),
        python=platform.python_version(),
    )
