"""What a run imports: only what it uses (issue 12). Structural checks on ``sys.modules``, never timings.

A run of one system must not create the other systems' record or scenario models, and a run without
``--expected-failures`` must not read baselines; the in-process run does both checks in a fresh
interpreter, so nothing imported by the test process itself can hide an import.
"""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from conftest import minimal_scenario

from conformance.paths import SCENARIO_ROOT

PROBE = """
import json, sys
from conformance.cli import main
status = main(sys.argv[1:])
modules = sorted(m for m in sys.modules if m.startswith("conformance."))
print(json.dumps({"status": status, "modules": modules}))
"""


def _run(tmp_path: Path, *args: str) -> tuple[int, set[str]]:
    argv = ["run", "--report-dir", str(tmp_path / "report"), *args]
    done = subprocess.run(
        [sys.executable, "-c", PROBE, *argv], capture_output=True, text=True, check=True, cwd=tmp_path
    )
    answer = json.loads(done.stdout.strip().splitlines()[-1])
    return answer["status"], set(answer["modules"])


def _one_scenario(system: str) -> str:
    return next(path for path in sorted((SCENARIO_ROOT / system).rglob("*.yaml"))).relative_to(
        SCENARIO_ROOT
    ).with_suffix("").as_posix()


def test_a_run_of_one_system_builds_only_its_record_models_and_reads_no_baseline(tmp_path: Path) -> None:
    status, modules = _run(tmp_path, "--system", "akan", "-k", _one_scenario("akan"))
    assert status == 0
    assert "conformance.records.akan" in modules  # the probe sees what a run imports
    assert "conformance.records.llmz" not in modules and "conformance.records.falai" not in modules
    assert "conformance.scenario.akan" in modules
    assert "conformance.scenario.llmz" not in modules and "conformance.scenario.falai" not in modules
    assert "conformance.baseline" not in modules
    assert "conformance.fuzz.arguments" in modules  # the command line is built whole ...
    assert "conformance.fuzz.command" not in modules  # ... without the fuzzer
    assert "conformance.fuzz.known" not in modules


def test_a_run_with_a_baseline_reads_it(tmp_path: Path) -> None:
    """The other side of the check above: the baseline module is loaded exactly when a run needs it."""
    baseline = tmp_path / "baseline.yaml"
    baseline.write_text("[]\n", encoding="utf-8")
    status, modules = _run(
        tmp_path, "--system", "falai", "-k", _one_scenario("falai"), "--expected-failures", str(baseline)
    )
    assert status == 0
    assert "conformance.baseline" in modules
    assert "conformance.records.falai" in modules and "conformance.records.akan" not in modules


def test_the_record_models_mapping_lists_every_system_and_loads_each_on_use() -> None:
    probe = (
        "import sys; from conformance.records import RECORD_MODELS; "
        "before = 'conformance.records.llmz' in sys.modules; model = RECORD_MODELS['llmz']; "
        "print(list(RECORD_MODELS), before, model.__name__, 'conformance.records.akan' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["['llmz',", "'falai',", "'akan']", "False", "LlmzRecord", "False"]


# -- a process remembers what it loaded ------------------------------------------------------------------


def test_a_remembered_scenario_is_shared_but_its_payload_is_fresh(scenario_tree: Any) -> None:
    """A second load of unchanged bytes is the same result, yet a runtime that changes its case (the
    payload) changes nothing for the next caller; changed bytes are loaded again."""
    from conformance.scenario.load import LoadedScenario, load_file

    root = scenario_tree({"area/one": minimal_scenario()})
    (path,) = root.rglob("*.yaml")
    first, again = load_file(path, root), load_file(path, root)
    assert isinstance(first, LoadedScenario) and again is first
    pristine = copy.deepcopy(first.payload)
    handed = first.payload
    handed["steps"].append({"op": "added by the implementation"})
    handed["system"] = "changed"
    assert again.payload == pristine
    assert first.document["steps"] == pristine["steps"]
    path.write_text(path.read_text(encoding="utf-8").replace("throwaway", "another"), encoding="utf-8")
    changed = load_file(path, root)
    assert isinstance(changed, LoadedScenario) and changed is not first
    assert changed.scenario.title == "another scenario"
