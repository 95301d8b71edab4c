"""The layering holds, and the contract that guards it can fail.

The reference runtimes are a library in their own right (``docs/simulator.md``): importing them must not
drag the harness in, and the import contract in ``pyproject.toml`` (``[tool.importlinter]``) must stop a
change that makes them depend on it. A contract nobody has seen fail proves nothing, so one test breaks
the layering on a copy of the packages and watches ``lint-imports`` refuse it.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("reference", "conformance", "variants")


def test_importing_every_runtime_loads_no_harness_module() -> None:
    probe = (
        "import sys, reference.falai, reference.llmz, reference.akan, reference.providers\n"
        "print('\\n'.join(m for m in sys.modules if m.split('.')[0] in ('conformance', 'variants')))"
    )
    out = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, cwd=ROOT
    ).stdout.split()
    assert out == [], f"importing the runtimes loaded harness modules: {out}"


def _lint_imports(tree: Path) -> subprocess.CompletedProcess[str]:
    exe = shutil.which("lint-imports", path=str(Path(sys.executable).parent)) or shutil.which("lint-imports")
    if exe is None:
        pytest.fail("lint-imports is not installed: add import-linter to the dev dependencies")
    env = {**os.environ, "PYTHONPATH": str(tree)}
    return subprocess.run([exe, "--no-cache"], capture_output=True, text=True, cwd=tree, env=env, check=False)


def _copy_tree(tmp_path: Path) -> Path:
    tree = tmp_path / "tree"
    tree.mkdir()
    shutil.copy(ROOT / "pyproject.toml", tree / "pyproject.toml")
    for package in PACKAGES:
        skip = shutil.ignore_patterns("__pycache__", "_data", "node_modules")
        shutil.copytree(ROOT / package, tree / package, ignore=skip)
    return tree


@pytest.mark.parametrize(
    ("module", "line", "contract"),
    [
        ("reference/llmz/budget.py", "import conformance.systems", "import neither the harness"),
        ("reference/akan/session.py", "from variants import all_mutants", "import neither the harness"),
        ("conformance/runner.py", "import reference.falai", "only the players"),
    ],
)
def test_a_layering_breach_fails_the_contract(tmp_path: Path, module: str, line: str, contract: str) -> None:
    tree = _copy_tree(tmp_path)
    clean = _lint_imports(tree)
    assert clean.returncode == 0, f"the unmodified copy breaks a contract:\n{clean.stdout}{clean.stderr}"
    target = tree / module
    breach = target.read_text(encoding="utf-8") + f"\n{line}  # deliberate breach\n"
    target.write_text(breach, encoding="utf-8")
    broken = _lint_imports(tree)
    assert broken.returncode != 0, f"{module}: '{line}' was not caught:\n{broken.stdout}"
    assert contract in broken.stdout and "BROKEN" in broken.stdout, broken.stdout
