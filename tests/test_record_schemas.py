"""Each system's record vocabulary is a JSON Schema (``spec/protocol/records/<system>.schema.json``).

The reference's record of every scenario follows it (here over the golden transcripts, and in
``tests/test_golden.py`` live, since the runner refuses a record that breaks it); a record that reports a
field with the wrong JSON type, or leaves out a field a rule needs, is an ``error`` naming the path and the
rule; extra fields, events of the implementation's own types and values outside an open set are allowed;
the prose and the models agree.
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from conftest import every_scenario
from fakes.mistyped import mistype

from conformance.adapters.python_factory import PythonAdapter, load_factory
from conformance.adapters.reference import ReferenceAdapter
from conformance.paths import GOLDEN_ROOT
from conformance.records import RECORD_MODELS, schema_name
from conformance.records.check import RECORDS_DIR, conforms, problems
from conformance.runner import run_case
from conformance.scenario.load import LoadedScenario

SYSTEMS = sorted(RECORD_MODELS)


def goldens(system: str) -> list[Path]:
    return sorted((GOLDEN_ROOT / system).rglob("*.json"))


def golden(system: str, name: str) -> dict[str, Any]:
    record: dict[str, Any] = json.loads((GOLDEN_ROOT / system / f"{name}.json").read_text(encoding="utf-8"))
    return record


def published(system: str) -> dict[str, Any]:
    schema: dict[str, Any] = json.loads((RECORDS_DIR / schema_name(system)).read_text(encoding="utf-8"))
    return schema


@pytest.mark.parametrize("system", SYSTEMS)
def test_every_golden_transcript_follows_its_system_record_schema(system: str) -> None:
    files = goldens(system)
    assert files, f"no golden transcripts for {system}"
    broken = {str(p.relative_to(GOLDEN_ROOT)): problems(system, json.loads(p.read_text())) for p in files}
    assert not {name: found for name, found in broken.items() if found}


@pytest.mark.parametrize("system", SYSTEMS)
def test_the_published_schema_works_with_any_validator(system: str) -> None:
    """Plain JSON Schema (no discriminator support) gives the same verdicts as the harness's checker."""
    plain = jsonschema.Draft202012Validator(published(system))
    for path in goldens(system)[:40]:
        record = json.loads(path.read_text())
        assert not list(plain.iter_errors(record)), path
        own = copy.deepcopy(record)
        own["events"].append({"type": "no_such_event", "purpose": "x", "outcome": "y"})
        assert plain.is_valid(own), "an event of the implementation's own type is allowed"
        broken = copy.deepcopy(record)
        broken["events"].append({"type": "model_response", "call": "1"})
        assert not plain.is_valid(broken)


def _with_extra_fields_everywhere(value: Any) -> Any:
    if isinstance(value, dict):
        return {**{k: _with_extra_fields_everywhere(v) for k, v in value.items()}, "x_extra": [1, "a"]}
    if isinstance(value, list):
        return [_with_extra_fields_everywhere(v) for v in value]
    return value


@pytest.mark.parametrize("system", SYSTEMS)
def test_extra_fields_are_allowed_at_every_depth(system: str) -> None:
    for path in goldens(system)[:40]:
        record = _with_extra_fields_everywhere(json.loads(path.read_text()))
        assert problems(system, record) == [], path


def _scenario(system: str, needs: str) -> LoadedScenario:
    """The first scenario of ``system`` whose golden record has an event of type ``needs``."""
    for item in every_scenario():
        if isinstance(item, LoadedScenario) and item.id.startswith(f"{system}/"):
            record = json.loads((GOLDEN_ROOT / f"{item.id}.json").read_text())
            if any(event["type"] == needs for event in record["events"]):
                return item
    raise AssertionError(f"no {system} scenario records a {needs} event")


@pytest.mark.parametrize(("system", "needs"), [("llmz", "iteration"), ("falai", "turn"), ("akan", "relay")])
def test_a_record_with_a_wrongly_typed_field_is_an_error_naming_the_path(system: str, needs: str) -> None:
    item = _scenario(system, needs)
    reference = ReferenceAdapter()
    assert run_case(reference, reference.hello(), item).verdict == "pass", "the case passes unbroken"
    adapter = PythonAdapter(load_factory("fakes.mistyped:make"))
    result = run_case(adapter, adapter.hello(), item)
    path = mistype(json.loads(json.dumps(_replay(item))), system)
    assert result.verdict == "error", result.message
    assert f"{system} record schema" in result.message
    assert f'{path}: expected integer, got "' in result.message, result.message
    assert f"({schema_name(system)}#/" in result.message, "the message names the rule"


def _replay(item: LoadedScenario) -> dict[str, Any]:
    from conformance.players import play

    return play(json.loads(json.dumps(item.payload)))


@pytest.mark.parametrize("system", SYSTEMS)
def test_an_event_of_the_implementations_own_type_is_allowed(system: str) -> None:
    record = golden(system, goldens(system)[0].relative_to(GOLDEN_ROOT / system).with_suffix("").as_posix())
    record["events"].append({"type": "debug_note", "text": "kept for the implementation's own use"})
    assert problems(system, record) == []
    assert conforms(system, record), "the fast check agrees"


def test_an_event_without_a_tag_of_its_kind_is_named() -> None:
    record = golden("akan", "relay/default-guard-refuses")
    relay = next(i for i, e in enumerate(record["events"]) if e["type"] == "relay")
    record["events"][relay]["outcome"] = "refuse"
    assert problems("akan", record) == [], "an outcome the vocabulary does not list is allowed"
    del record["events"][relay]["outcome"]
    assert problems("akan", record)[0].startswith(f"events[{relay}].outcome: missing; expected one of ")


def test_a_value_outside_a_documented_open_set_is_allowed_but_a_wrong_type_is_not() -> None:
    record = golden("llmz", "basics/chat-adds-listen")
    position = next(i for i, e in enumerate(record["events"]) if e["type"] == "iteration")
    record["events"][position]["status"] = "done"
    assert problems("llmz", record) == []
    record["events"][position]["status"] = 5
    (found,) = problems("llmz", record)
    assert found == f"events[{position}].status: expected string, got 5 " + (
        "(llmz.schema.json#/$defs/Iteration/properties/status/type)"
    )


def test_a_missing_required_field_is_named_with_its_rule() -> None:
    record = golden("llmz", "basics/chat-adds-listen")
    record["events"].append({"type": "error", "message": "m", "recoverable": True})
    position = len(record["events"]) - 1
    assert problems("llmz", record) == [
        f"events[{position}].code: missing (a required field) (llmz.schema.json#/$defs/Error/required)"
    ]


def test_optional_fields_are_absent_not_null() -> None:
    record = golden("llmz", "basics/chat-adds-listen")
    position = next(i for i, e in enumerate(record["events"]) if e["type"] == "iteration")
    record["events"][position]["error_code"] = None
    assert problems("llmz", record) == [
        f"events[{position}].error_code: expected string, got null "
        "(llmz.schema.json#/$defs/Iteration/properties/error_code/type)"
    ]


# --- the prose and the models agree ---------------------------------------------------------------------

PROSE = {system: (RECORDS_DIR / f"{system}.md").read_text(encoding="utf-8") for system in SYSTEMS}


def _event_types_in_prose(text: str) -> set[str]:
    events = text.split("\n## Events", 1)[1].split("\n## ", 1)[0]
    return set(re.findall(r"^\| `([a-z_]+)` \|", events, flags=re.MULTILINE))


def _model_names(schema: dict[str, Any]) -> tuple[set[str], set[str]]:
    """The event types and every property name of a published schema."""
    mapping = schema["properties"]["events"]["items"]["discriminator"]["mapping"]
    fields: set[str] = set()
    for definition in schema["$defs"].values():
        fields.update(definition.get("properties", {}))
    fields.update(schema["properties"])
    return set(mapping), fields - {"type"}


@pytest.mark.parametrize("system", SYSTEMS)
def test_the_prose_lists_exactly_the_event_types_of_the_schema(system: str) -> None:
    types, _ = _model_names(published(system))
    assert _event_types_in_prose(PROSE[system]) == types


@pytest.mark.parametrize("system", SYSTEMS)
def test_every_field_of_the_schema_is_named_in_the_prose(system: str) -> None:
    _, fields = _model_names(published(system))
    unnamed = sorted(f for f in fields if not re.search(rf"(?<!\w){re.escape(f)}(?!\w)", PROSE[system]))
    assert not unnamed, f"{system}.md never names {unnamed}"


@pytest.mark.parametrize("system", SYSTEMS)
def test_prose_and_schema_link_each_other(system: str) -> None:
    assert schema_name(system) in PROSE[system]
    assert f"{system}.md" in published(system)["title"]
    assert "**Your own events and `x-` fields.**" in PROSE[system], "the prose says own events are allowed"


def _perturbations(value: Any) -> Iterator[Any]:
    """Copies of ``value`` with one leaf replaced by a value of another JSON type (or a key removed)."""
    if isinstance(value, dict):
        for key in list(value)[:12]:
            rest = {k: v for k, v in value.items() if k != key}
            yield rest
            for changed in _perturbations(value[key]):
                yield {**value, key: changed}
    elif isinstance(value, list):
        for index, item in enumerate(value[:6]):
            for changed in _perturbations(item):
                yield [*value[:index], changed, *value[index + 1 :]]
    else:
        for other in ("1", 1, 1.5, True, None, [], {}):
            if type(other) is not type(value):
                yield other


@pytest.mark.parametrize("system", ["llmz", "falai", "akan"])
def test_the_fast_check_never_accepts_what_the_schema_refuses(system: str) -> None:
    """``conforms`` (strict pydantic) is a shortcut for the published schema, never more lenient."""
    import itertools

    from conformance.records.check import conforms, validator

    goldens = sorted((GOLDEN_ROOT / system).rglob("*.json"))[:12]
    checked = 0
    for path in goldens:
        document = json.loads(path.read_text(encoding="utf-8"))
        record = document if "events" in document else next(iter(document.values()))
        for event_index, event in enumerate(record["events"][:8]):
            for changed in itertools.islice(_perturbations(event), 60):
                candidate = {**record, "events": [*record["events"][:event_index], changed]}
                if conforms(system, candidate):
                    assert validator(system).is_valid(candidate), (path.name, changed)
                checked += 1
    assert checked > 500
