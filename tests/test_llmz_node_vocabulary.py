"""The llmz-node bridge knows exactly the scenario vocabulary the suite defines.

The bridge answers any field it has no mapping for with a skip naming it (never a silent pass), so when
``conformance/scenario/llmz.py`` grows a field, the bridge's table must grow with it (and the bridge learn to
play it). This test compares the table in ``lib/vocabulary.mjs`` with the pydantic models, field by field.
Only Node is needed (the table imports nothing from npm).
"""

from __future__ import annotations

import json
import shutil
import subprocess

import pytest
from pydantic import BaseModel

from conformance.adapters.llmz_node.install import BRIDGE_DIR
from conformance.scenario import common, llmz, llmz_host
from conformance.scenario.model import LlmzCase

pytestmark = pytest.mark.skipif(
    shutil.which("node") is None, reason="the llmz-node bridge needs node on PATH"
)

MODELS: dict[str, type[BaseModel]] = {
    "Scenario": LlmzCase,
    "ScriptEntry": common.ScriptEntry,
    "ScriptedToolCall": common.ScriptedToolCall,
    "Usage": common.Usage,
    "ScriptedFailure": common.ScriptedFailure,
    **{
        name: getattr(llmz, name, None) or getattr(llmz_host, name)
        for name in (
            "Setup", "ToolSpec", "ToolBehaviour", "ThinkSignalSpec", "ExitSpec", "ChatSpec", "ComponentSpec",
            "HooksSpec", "AfterToolHook", "BeforeToolHook", "TruncateSpec", "MemorySpec", "SessionProbe",
            "OnInspectHook", "BeforeRequestHook", "RequestMessage", "ObjectSpec", "ObjectProperty",
            "ModelSpec", "CompactionSpec", "ExecuteOptions", "AppendStep",
            "AppendMessage", "ExecuteStep", "SaveAndRestoreStep", "CompactStep", "SummarizeStep",
            "ToolCloneSpec", "ResponseSpec", "InspectStep", "RenderStep", "ApiSurfaceStep",
            "DefinitionJsonStep", "DefaultComponentsStep", "ResultContentsStep",
            "LegacyChatSpec", "LegacyExecuteSpec", "LegacyMessage",
            "ProbeStep",
        )
    },
}


def wire_fields(model: type[BaseModel]) -> set[str]:
    """The keys a scenario file uses for this model (aliases where the field has one)."""
    return {field.alias or name for name, field in model.model_fields.items()}


@pytest.fixture(scope="module")
def bridge_table() -> dict[str, object]:
    script = (
        "import { VOCABULARY, INEXPRESSIBLE } from './lib/vocabulary.mjs';"
        "console.log(JSON.stringify({ known: VOCABULARY, inexpressible: Object.keys(INEXPRESSIBLE) }))"
    )
    done = subprocess.run(
        ["node", "--input-type=module", "-e", script],
        cwd=BRIDGE_DIR, capture_output=True, text=True, timeout=60, check=True,
    )
    table: dict[str, object] = json.loads(done.stdout)
    return table


def test_every_step_op_of_the_suite_has_a_structure_in_the_bridge(bridge_table: dict[str, object]) -> None:
    step_models = {model.__name__ for model in llmz.Step.__args__[0].__args__}
    known = bridge_table["known"]
    assert isinstance(known, dict)
    missing = sorted(step_models - set(known))
    assert not missing, f"step types the bridge does not know: {missing}"


@pytest.mark.parametrize("structure", sorted(MODELS))
def test_bridge_vocabulary_matches_the_scenario_model(
    structure: str, bridge_table: dict[str, object]
) -> None:
    known = bridge_table["known"]
    inexpressible = bridge_table["inexpressible"]
    assert isinstance(known, dict) and isinstance(inexpressible, list)
    mapped = set(known[structure])
    refused = {key.split(".", 1)[1] for key in inexpressible if key.startswith(f"{structure}.")}
    expected = wire_fields(MODELS[structure]) | ({"id"} if structure == "Scenario" else set())
    assert mapped | refused == expected, (
        f"{structure}: fields the bridge lacks {sorted(expected - mapped - refused)}, "
        f"fields the suite no longer has {sorted((mapped | refused) - expected)}"
    )
