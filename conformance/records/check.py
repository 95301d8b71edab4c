"""Checking a record against its system's record schema, with messages that name the path and the rule.

The published schemas are plain JSON Schema (2020-12): an event is ``oneOf`` the event models and, last,
an object whose ``type`` is none of theirs (an event of the implementation's own, allowed); the ``type``
constants make the branches exclusive, so any validator gives the same verdict. Plain
``oneOf`` explains a failure badly, though ("not valid under any of the given schemas"), so this checker
reads the ``discriminator`` written beside each ``oneOf`` (``type``, and inside some events ``purpose``,
``outcome`` or ``kind``) and validates the event against the one branch it names; a tag it does not list
goes to the open union's last branch, and a missing tag is reported as such. Messages read
``events[3].iteration: expected integer, got "1"
(llmz.schema.json#/$defs/Iteration/properties/iteration/type)``: the record path, what was wrong, and the
rule in the published file that refused it. Validators are compiled once per system.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from functools import cache
from typing import TYPE_CHECKING, Any, cast

from pydantic import ValidationError as PydanticValidationError

from conformance.paths import PROTOCOL_DIR
from conformance.records import RECORD_MODELS, schema_name
from conformance.records.common import OPEN_UNION

if TYPE_CHECKING:
    from jsonschema.exceptions import ValidationError

RECORDS_DIR = PROTOCOL_DIR / "records"
MAX_PROBLEMS = 5


def _one_of(
    validator: Any, branches: list[Any], instance: Any, schema: dict[str, Any]
) -> Iterator[ValidationError]:
    """``oneOf`` that follows a ``discriminator`` when the schema has one (and plain ``oneOf`` otherwise)."""
    import jsonschema
    from jsonschema.exceptions import ValidationError

    discriminator = schema.get("discriminator")
    if not isinstance(discriminator, dict) or not validator.is_type(instance, "object"):
        yield from jsonschema.Draft202012Validator.VALIDATORS["oneOf"](validator, branches, instance, schema)
        return
    name, mapping = discriminator["propertyName"], discriminator["mapping"]
    value = instance.get(name)
    target = mapping.get(value) if isinstance(value, str) else None
    if target is None and isinstance(value, str) and schema.get(OPEN_UNION):
        # A tag the vocabulary does not list: allowed as it is (the union's last branch says so).
        yield from validator.descend(instance, branches[-1], schema_path=len(branches) - 1)
        return
    if target is None:
        known = ", ".join(sorted(mapping))
        label = "event type" if name == "type" else name
        got = "missing" if name not in instance else f"unknown {label} {_show(value)}"
        yield ValidationError(
            f"{got}; expected one of {known}",
            validator="discriminator",
            validator_value=sorted(mapping),
            instance=value,
            path=[name],
            schema_path=["discriminator", "mapping"],
        )
        return
    branch = target if isinstance(target, dict) else {"$ref": target}
    index = next((i for i, b in enumerate(branches) if b == branch), None)
    yield from validator.descend(instance, branch, schema_path=index)


def _required(
    validator: Any, required: list[str], instance: Any, schema: dict[str, Any]
) -> Iterator[ValidationError]:
    """``required``, with each missing field as the error's path (so the message names it)."""
    from jsonschema.exceptions import ValidationError

    if not validator.is_type(instance, "object"):
        return
    for field in required:
        if field not in instance:
            yield ValidationError("missing (a required field)", path=[field])


@cache
def record_validator_class() -> Any:
    """Draft 2020-12 with the two keywords above replaced (the library's ``extend`` is untyped). Built on
    first use: a run whose records all conform (``conforms``) never imports ``jsonschema``."""
    import jsonschema

    return jsonschema.validators.extend(  # type: ignore[no-untyped-call]
        jsonschema.Draft202012Validator, validators={"oneOf": _one_of, "required": _required}
    )


def generated_schema(system: str) -> dict[str, Any]:
    """The schema the models generate now (what ``python -m conformance.schemas`` writes)."""
    return RECORD_MODELS[system].model_json_schema()


@cache
def validator(system: str) -> Any:
    """The compiled validator of a system's records: the committed schema file, else the models' schema."""
    path = RECORDS_DIR / schema_name(system)
    schema = json.loads(path.read_text(encoding="utf-8")) if path.exists() else generated_schema(system)
    return record_validator_class()(schema)


def _show(value: Any, limit: int = 60) -> str:
    text = json.dumps(value, ensure_ascii=False, sort_keys=True)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def record_path(parts: Any) -> str:
    """``events[3].iteration`` from ``["events", 3, "iteration"]``."""
    text = ""
    for part in parts:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text or "(record)"


def rule_pointer(root: dict[str, Any], schema_path: Any) -> str:
    """The JSON Pointer, inside the published file, of the keyword that failed (following ``$ref``s)."""
    parts = list(schema_path)
    node: Any = root
    pointer = "#"
    for index, part in enumerate(parts):
        if part == "$ref" and isinstance(node, dict) and isinstance(node.get("$ref"), str):
            pointer = node["$ref"]
            node = _resolve(root, pointer)
            continue
        if part == "oneOf" and parts[index + 1 : index + 2] == ["discriminator"]:
            continue  # an unknown discriminator value: the rule is the mapping beside the oneOf
        while isinstance(node, dict) and part not in node and isinstance(node.get("$ref"), str):
            pointer = node["$ref"]  # jsonschema leaves "$ref" out of the path it reports
            node = _resolve(root, pointer)
        pointer += f"/{part}"
        try:
            node = node[part]
        except (KeyError, IndexError, TypeError):
            node = None
    return pointer


def _resolve(root: dict[str, Any], pointer: str) -> Any:
    node: Any = root
    for step in pointer.removeprefix("#").strip("/").split("/"):
        if step:
            node = node[step]
    return node


def describe(error: ValidationError) -> str:
    """What was wrong, in words: expected what, got what."""
    keyword, expected = error.validator, cast(Any, error.validator_value)
    if keyword == "type":
        kinds = " or ".join(expected) if isinstance(expected, list) else str(expected)
        return f"expected {kinds}, got {_show(error.instance)}"
    if keyword == "enum":
        return f"expected one of {', '.join(map(_show, expected))}; got {_show(error.instance)}"
    if keyword == "const":
        return f"expected {_show(expected)}, got {_show(error.instance)}"
    return error.message


def conforms(system: str, record: Any) -> bool:
    """The fast answer: the pydantic models the schema is generated from, in strict mode.

    Strict validation accepts no more than the generated schema does (a test perturbs records to check
    it), and it runs in Rust, so a record that conforms costs a fraction of a millisecond. Only a record
    that does not goes through ``jsonschema``, whose answer is the one reported.
    """
    try:
        RECORD_MODELS[system].model_validate(record, strict=True)
    except PydanticValidationError:
        return False
    return True


def problems(system: str, record: Any, limit: int = MAX_PROBLEMS) -> list[str]:
    """The first ``limit`` ways ``record`` breaks its system's record schema (empty when it follows it)."""
    if conforms(system, record):
        return []
    check = validator(system)
    file = schema_name(system)
    found: list[str] = []
    seen: set[str] = set()
    for error in check.iter_errors(record):
        where = record_path(error.absolute_path)
        if where in seen:
            continue  # one complaint per place (a wrong type also fails that field's enum)
        seen.add(where)
        rule = rule_pointer(check.schema, error.absolute_schema_path)
        found.append(f"{where}: {describe(error)} ({file}{rule})")
        if len(found) >= limit:
            break
    return found
