"""Every ```python block in docs/simulator.md runs: the page's snippets are a contract, not decoration."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

DOC = Path(__file__).resolve().parents[1] / "docs" / "simulator.md"
BLOCKS = re.findall(r"^```python\n(.*?)^```", DOC.read_text(encoding="utf-8"), re.M | re.S)


def test_the_page_has_snippets() -> None:
    assert BLOCKS, f"{DOC} has no ```python blocks"


@pytest.mark.parametrize("index", range(len(BLOCKS)))
def test_each_snippet_runs_in_a_fresh_interpreter(index: int, tmp_path: Path) -> None:
    script = tmp_path / f"snippet_{index}.py"
    script.write_text(BLOCKS[index], encoding="utf-8")
    done = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, timeout=120, cwd=tmp_path
    )
    assert done.returncode == 0, f"snippet {index} failed:\n{BLOCKS[index]}\n--- stderr ---\n{done.stderr}"
    assert done.stdout.strip(), f"snippet {index} printed nothing; a snippet should show its result"
