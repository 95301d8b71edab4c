"""The ``run`` block of ``report.json``: which suite, which rules, which protocol, when, where, how long.

Without it two reports cannot be compared with confidence: a verdict that changed between them may be
the implementation's doing or the suite's. The digests name the exact catalogue and scenarios a run used,
wherever they came from (a clone or an installed package).
"""

from __future__ import annotations

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
        platform=platform.platform(),
        python=platform.python_version(),
    )
