"""Invalid input on purpose: the ``{invalid: <raw>, why}`` marker, and the rules it lets us test both ways.

A refusable field takes a valid value written plainly or a marked invalid one; a bare invalid value (a typo)
is refused at load with the file, the field and a hint; a marked value that is in fact valid is refused too.
The marked value goes on the wire unchanged and the reference refuses it as the documents say. Every
scenario written with the marker (and each valid neighbour beside it) fails against a mutant that breaks its
rule from that side, with a mismatch naming the rule.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

import pytest

from conformance.players import play
from conformance.runner import judge_played
from conformance.scenario.invalid import Invalid, raw
from conformance.scenario.load import SCENARIO_ROOT, LoadedScenario, LoadError, load_file
from conformance.scenario.model import SCENARIO_ADAPTER
from variants import get_mutant

#: scenario id -> the mutant that breaks its rule from the side the scenario checks.
CAUGHT_BY: dict[str, str] = {
    "llmz/invalid-input/max-tokens-zero": "llmz-max-tokens-any-integer",
    "llmz/invalid-input/max-tokens-negative": "llmz-max-tokens-any-integer",
    "llmz/budget/max-tokens-above-safe-integer": "llmz-max-tokens-any-integer",
    "llmz/invalid-input/max-tokens-fraction": "llmz-max-tokens-coerced",
    "llmz/invalid-input/max-tokens-boolean": "llmz-max-tokens-coerced",
    "llmz/invalid-input/max-tokens-string": "llmz-max-tokens-coerced",
    "llmz/invalid-input/max-tokens-one": "llmz-max-tokens-from-two",
    "llmz/invalid-input/result-budget-fraction": "llmz-result-budget-coerced",
    "llmz/invalid-input/result-budget-boolean": "llmz-result-budget-coerced",
    "llmz/invalid-input/result-budget-string": "llmz-result-budget-coerced",
    "llmz/errors/result-budget-range": "llmz-result-budget-unchecked",
    "llmz/invalid-input/truncate-budget-negative": "llmz-truncate-budget-unchecked",
    "llmz/invalid-input/truncate-budget-fraction": "llmz-truncate-budget-unchecked",
    "llmz/invalid-input/truncate-budget-above-safe-integer": "llmz-truncate-budget-unchecked",
    "llmz/invalid-input/truncate-budget-boolean": "llmz-truncate-budget-unchecked",
    "llmz/invalid-input/truncate-budget-largest-safe-integer": "llmz-truncate-budget-below-max-safe",
    "llmz/invalid-input/component-name-dash": "llmz-component-names-unchecked",
    "llmz/invalid-input/component-name-leading-digit": "llmz-component-names-unchecked",
    "llmz/invalid-input/component-name-space": "llmz-component-names-unchecked",
    "llmz/invalid-input/component-name-empty": "llmz-component-names-unchecked",
    "llmz/invalid-input/component-name-number": "llmz-component-names-unchecked",
    "llmz/invalid-input/component-name-message": "llmz-definitions-unchecked",
    "llmz/components/text-names-reserved": "llmz-definitions-unchecked",
    "llmz/invalid-input/component-names-identifier-edges": "llmz-component-names-letter-first",
    "akan/invalid-input/restore-result-before-call": "akan-restore-unsanitized",
    "akan/invalid-input/restore-sound-transcript-unchanged": "akan-restore-answers-every-call",
}


def _uses_marker(value: Any) -> bool:
    if isinstance(value, dict):
        return ("invalid" in value and "why" in value) or any(_uses_marker(v) for v in value.values())
    if isinstance(value, list):
        return any(_uses_marker(v) for v in value)
    return False


@cache
def _loaded(scenario_id: str) -> LoadedScenario:
    item = load_file(SCENARIO_ROOT / f"{scenario_id}.yaml")
    assert isinstance(item, LoadedScenario), item.message if isinstance(item, LoadError) else item
    return item


def test_every_scenario_with_a_marker_or_in_an_invalid_input_folder_has_its_mutant() -> None:
    found = set()
    for path in sorted(SCENARIO_ROOT.rglob("*.yaml")):
        item = load_file(path)
        assert isinstance(item, LoadedScenario), getattr(item, "message", item)
        if "/invalid-input/" in f"/{item.id}" or _uses_marker(item.document):
            found.add(item.id)
    assert found - set(CAUGHT_BY) == set(), "add them (and the mutant that catches each) to CAUGHT_BY"
    assert set(CAUGHT_BY) - found == set(), "CAUGHT_BY names scenarios that no longer use the marker"


@pytest.mark.parametrize("scenario_id", sorted(CAUGHT_BY))
def test_the_reference_passes_and_the_mutant_fails_naming_the_rule(scenario_id: str) -> None:
    item = _loaded(scenario_id)
    assert judge_played(item, play) == []
    mutant = get_mutant(CAUGHT_BY[scenario_id])
    mismatches = judge_played(item, lambda payload: play(payload, variant=mutant.name))
    named = {m.rule for m in mismatches} & set(mutant.rules) & set(item.scenario.rules)
    assert named, f"{scenario_id} passes against {mutant.name}: {[str(m) for m in mismatches]}"


# -- the vocabulary ------------------------------------------------------------------------------------


def _scenario(options: dict[str, Any]) -> dict[str, Any]:
    return {
        "system": "llmz",
        "title": "probe",
        "rules": ["llmz.budget.max-tokens.positive-safe-integer"],
        "setup": {"options": options},
        "steps": [{"op": "execute", "mode": "worker"}],
        "expect": [{"rule": "llmz.budget.max-tokens.positive-safe-integer", "path": "events", "count": 0}],
    }


def _load(tmp_path: Path, document: dict[str, Any]) -> LoadedScenario | LoadError:
    import yaml

    path = tmp_path / "llmz" / "area" / "probe.yaml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(yaml.safe_dump(document), encoding="utf-8")
    return load_file(path, tmp_path)


@pytest.mark.parametrize("value", [0, -1, 1.5, True, "8000", 2**53])
def test_a_bare_invalid_value_is_a_load_error_naming_file_field_rule_and_the_marker(
    tmp_path: Path, value: Any
) -> None:
    loaded = _load(tmp_path, _scenario({"max_tokens": value}))
    assert isinstance(loaded, LoadError)
    assert str(tmp_path / "llmz" / "area" / "probe.yaml") in loaded.message
    assert "field setup.options.max_tokens" in loaded.message
    assert "llmz.budget.max-tokens.positive-safe-integer" in loaded.message
    assert "{invalid: " in loaded.message


@pytest.mark.parametrize("value", [1, 9_007_199_254_740_991])
def test_a_marker_around_a_valid_value_is_refused(tmp_path: Path, value: int) -> None:
    loaded = _load(tmp_path, _scenario({"max_tokens": {"invalid": value, "why": "not actually invalid"}}))
    assert isinstance(loaded, LoadError)
    assert "does not break llmz.budget.max-tokens.positive-safe-integer" in loaded.message


@pytest.mark.parametrize(
    "marker",
    [{"invalid": 0}, {"invalid": 0, "why": "zero", "because": "typo"}, {"invalid": 0, "why": ""}],
    ids=["no-why", "extra-key", "empty-why"],
)
def test_a_malformed_marker_is_refused(tmp_path: Path, marker: dict[str, Any]) -> None:
    assert isinstance(_load(tmp_path, _scenario({"max_tokens": marker})), LoadError)


def test_a_marker_on_a_field_without_a_refusal_rule_is_refused(tmp_path: Path) -> None:
    loaded = _load(tmp_path, _scenario({"loop": {"invalid": 0, "why": "the documents give no range"}}))
    assert isinstance(loaded, LoadError)
    assert "field setup.options.loop" in loaded.message


def test_the_marked_value_goes_on_the_wire_unchanged_and_reaches_the_runtime_raw() -> None:
    item = _loaded("llmz/invalid-input/max-tokens-boolean")
    execute = item.payload["steps"][1]
    assert execute["options"]["max_tokens"] == {"invalid": True, "why": "true is a boolean and not a number"}
    marker = item.scenario.steps[1].options.max_tokens  # type: ignore[union-attr]
    assert isinstance(marker, Invalid) and raw(marker) is True


def test_the_published_schema_offers_the_marker_only_on_refusable_fields() -> None:
    schema = SCENARIO_ADAPTER.json_schema()
    options = schema["$defs"]["ExecuteOptions"]["properties"]
    refs = {name for name, prop in options.items() if "Invalid" in str(prop)}
    assert refs == {"max_tokens", "tool_result_max_tokens"}
    assert schema["$defs"]["Invalid"]["required"] == ["invalid", "why"]


# -- the llmz 1.0.1 bridge ----------------------------------------------------------------------------------


def _refusable_fields() -> set[str]:
    """``<Model>.<wire field>`` for every llmz vocabulary field that accepts the marker."""
    from pydantic import BaseModel

    from conformance.scenario import llmz

    found = set()
    for name in dir(llmz):
        model = getattr(llmz, name)
        if isinstance(model, type) and issubclass(model, BaseModel) and model.__module__ == llmz.__name__:
            for field_name, field in model.model_fields.items():
                if "Invalid" in str(field.annotation):
                    found.add(f"{name}.{field.alias or field_name}")
    return found


@pytest.mark.skipif(__import__("shutil").which("node") is None, reason="the bridge needs node on PATH")
def test_the_bridge_unwraps_exactly_the_refusable_fields_and_hands_llmz_the_raw_value() -> None:
    import json
    import subprocess

    from conformance.adapters.llmz_node.install import BRIDGE_DIR

    payload = _loaded("llmz/invalid-input/max-tokens-boolean").payload
    script = (
        "import { REFUSABLE, checkScenario } from './lib/vocabulary.mjs';"
        f"const s = {json.dumps(payload)}; checkScenario(s);"
        "console.log(JSON.stringify({ refusable: REFUSABLE, options: s.steps[1].options }))"
    )
    done = subprocess.run(
        ["node", "--input-type=module", "-e", script],
        cwd=BRIDGE_DIR, capture_output=True, text=True, timeout=60, check=True,
    )
    answer = json.loads(done.stdout)
    assert set(answer["refusable"]) == _refusable_fields()
    assert answer["options"] == {"max_tokens": True}
