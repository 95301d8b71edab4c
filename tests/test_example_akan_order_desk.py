"""The akan example runs offline and shows the conversation with the rules at work."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "akan" / "order_desk.py"


def test_the_order_desk_runs_and_prints_the_conversation_with_its_rules(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, str(EXAMPLE)], capture_output=True, text=True, timeout=120, cwd=tmp_path
    )
    assert done.returncode == 0, done.stderr
    out = done.stdout
    refused = next(line for line in out.splitlines() if "'broken'" in line)
    assert "[akan.tool.enum-of-refuses-off-values]" in refused
    compacted = next(line for line in out.splitlines() if line.strip().startswith("compaction"))
    assert "0 kept" in compacted and "[akan.compaction.command-keeps-nothing]" in compacted
    assert "assistant  Refunds reach your card within five business days." in out
    assert "cannot read images" in out and "[akan.attachments.unreadable-note]" in out
    assert "refunds issued by the page: [{'id': '7', 'reason': 'damaged'}]" in out
