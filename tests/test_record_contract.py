"""The record contract is the documented observables: every required field, closed set of values and fixed
layout in ``spec/protocol/records/*.schema.json`` names the rules that need it (``x-rules``), and each
named rule exists. What no rule needs is optional or open (protocol 3, ``spec/protocol/README.md``)."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest
from conftest import the_catalogue

from conformance.records import RECORD_MODELS, schema_name
from conformance.records.check import RECORDS_DIR
from conformance.records.common import RULES
from conformance.records.contract import contract_problems, counts

SYSTEMS = sorted(RECORD_MODELS)
RULE_IDS = frozenset(the_catalogue().rules)


def published(system: str) -> dict[str, Any]:
    schema: dict[str, Any] = json.loads((RECORDS_DIR / schema_name(system)).read_text(encoding="utf-8"))
    return schema


@pytest.mark.parametrize("system", SYSTEMS)
def test_every_constraint_of_a_record_schema_names_existing_rules(system: str) -> None:
    assert contract_problems(published(system), RULE_IDS, schema_name(system)) == []


def _a_model(schema: dict[str, Any], name: str) -> dict[str, Any]:
    model: dict[str, Any] = schema["$defs"][name]
    return model


def test_an_extra_required_field_that_names_no_rule_fails_the_check() -> None:
    schema = copy.deepcopy(published("falai"))
    turn = _a_model(schema, "Turn")
    turn.setdefault("required", []).append("llmCalls")
    assert contract_problems(schema, RULE_IDS) == [
        "#/$defs/Turn/required/llmCalls: a required that names no rule (x-rules)"
    ]
    turn["properties"]["llmCalls"][RULES] = ["falai.routing.no-such-rule"]
    assert contract_problems(schema, RULE_IDS) == [
        "#/$defs/Turn/required/llmCalls: x-rules names 'falai.routing.no-such-rule', which no rule file has"
    ]
    turn["properties"]["llmCalls"][RULES] = [min(r for r in RULE_IDS if r.startswith("falai."))]
    assert contract_problems(schema, RULE_IDS) == []


def test_a_closed_set_or_a_fixed_layout_that_names_no_rule_fails_the_check() -> None:
    schema = copy.deepcopy(published("akan"))
    attachment = _a_model(schema, "Attachment")
    attachment["properties"]["kind"]["enum"] = ["image", "text"]
    attachment["additionalProperties"] = False
    schema["$defs"]["Draft"]["properties"]["text"] = {"type": "array", "prefixItems": [{"type": "string"}]}
    assert contract_problems(schema, RULE_IDS) == [
        "#/$defs/Attachment: a fixed layout that names no rule (x-rules)",
        "#/$defs/Attachment/properties/kind: a closed set that names no rule (x-rules)",
        "#/$defs/Draft/properties/text: a fixed layout that names no rule (x-rules)",
    ]


def test_a_rule_named_on_a_property_covers_the_set_inside_it() -> None:
    schema = copy.deepcopy(published("llmz"))
    status = _a_model(schema, "Iteration")["properties"]["status"]
    status["anyOf"] = [{"enum": ["exit_success"]}, {"type": "null"}]
    assert contract_problems(schema, RULE_IDS) != []
    status[RULES] = ["llmz.errors.shape"]
    assert contract_problems(schema, RULE_IDS) == []


def test_the_envelope_is_not_a_constraint() -> None:
    """Each event's ``type`` and the tags of the kinds of an event (``purpose``, ``outcome``) are how an
    event is recognised, not values a runtime must invent; the last branch of an open union only says "any
    other tag"."""
    for system in SYSTEMS:
        assert counts(published(system))["closed set"] == 0


def test_what_stays_required_is_few_and_named() -> None:
    assert {system: counts(published(system))["required"] for system in SYSTEMS} == {
        "akan": 0,
        "falai": 0,
        "llmz": 3,
    }
    error = _a_model(published("llmz"), "Error")
    required = [name for name in error["required"] if name != "type"]
    assert {name: error["properties"][name][RULES] for name in required} == {
        "code": ["llmz.errors.shape"],
        "recoverable": ["llmz.errors.shape"],
        "message": ["llmz.errors.shape"],
    }
