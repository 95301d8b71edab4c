"""``examples/llmz/order_refund.py`` runs offline and tells its story: a ThinkSignal, a retry, a refund."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "llmz" / "order_refund.py"


def test_the_order_refund_worker_runs_and_prints_the_rules_that_fired(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, str(EXAMPLE)], capture_output=True, text=True, timeout=120, cwd=tmp_path
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    statuses = [line.split(": ", 1)[1].split()[0] for line in lines if line.startswith("  iteration ")]
    assert statuses == ["thinking_requested", "recoverable_error", "exit_success"]
    assert any("ThinkSignal: partial refund only" in line for line in lines)
    assert any("[llmz.think-signal.forced-inspection-report]" in line for line in lines)
    assert "exit refunded {'refund_id': 'R-77', 'amount': 42.5}   [llmz.exits.result-is]" in lines
    assert lines[-1] == "result: success after 3 iterations; memory holds ['desk', 'order', 'refund']"
