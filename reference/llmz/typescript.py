"""The expected input shape of a validation error, written as a TypeScript type.

Validation errors tell the model what was wrong (path and message per issue) and what would have been
accepted, as the TypeScript type of the schema's input side (llmz.errors.validation-details). Constraints
TypeScript cannot say (lengths, bounds, patterns) are left to the issues (llmz.errors.constraints-in-issues).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from functools import lru_cache
from typing import Any

from reference.llmz.errors import LlmzError
from reference.llmz.preview import UNDEFINED

_SCALARS = {"string": "string", "number": "number", "integer": "number", "boolean": "boolean", "null": "null"}


def ts_type(schema: Any) -> str:
    """A TypeScript rendering of a JSON Schema; anything it cannot express becomes ``unknown``."""
    if not isinstance(schema, dict):
        return "unknown"
    if "const" in schema:
        return json.dumps(schema["const"])
    if "enum" in schema:
        return " | ".join(json.dumps(value) for value in schema["enum"])
    for key in ("oneOf", "anyOf"):
        if key in schema:
            return " | ".join(ts_type(option) for option in schema[key])
    kind = schema.get("type")
    if isinstance(kind, list):
        return " | ".join(ts_type({**schema, "type": item}) for item in kind)
    if kind == "array":
        return f"Array<{ts_type(schema.get('items', {}))}>"
    if kind == "object" or "properties" in schema:
        return _object(schema)
    return _SCALARS.get(str(kind), "unknown")


def _object(schema: dict[str, Any]) -> str:
    required = set(schema.get("required", []))
    fields = [
        f"{name}{'' if name in required else '?'}: {ts_type(field)}"
        for name, field in schema.get("properties", {}).items()
    ]
    return "{ " + "; ".join(fields) + " }" if fields else "{ [key: string]: unknown }"


def validation_error(
    code: str,
    subject: str,
    schema: Any,
    issues: list[tuple[str, str]],
    shape: Callable[[Any], str] = ts_type,
) -> LlmzError:
    """A typed validation failure: one line per issue, then the expected shape (``shape`` of the schema).
    The lines stay separate in feedback (llmz.error-recovery.validation-message-format)."""
    expected = shape(schema)
    lines = "\n".join(f"- {path}: {message}" for path, message in issues)
    return LlmzError(
        code,
        f"{subject}: invalid input\n{lines}\nExpected: {expected}",
        issues=[{"path": path, "message": message} for path, message in issues],
        expected=expected,
    )


def schema_issues(schema: dict[str, Any] | None, value: Any) -> list[tuple[str, str]]:
    """Validation issues as (path, message); ``undefined`` validates as null. Tool inputs, exit payloads,
    component props and object properties are all checked with it before anything runs
    (llmz.tools.input-validated-first)."""
    if schema is None:
        return []
    data = None if value is UNDEFINED else value
    validator = _validator(schema)
    return [
        ("/".join(str(p) for p in error.absolute_path) or "(root)", error.message)
        for error in sorted(validator.iter_errors(data), key=lambda e: list(map(str, e.absolute_path)))
    ]


def _validator(schema: dict[str, Any]) -> Any:
    """A validator of ``schema``. Built once per distinct schema text: a validator is a pure function of
    its schema, and the same tool, exit and component schemas are checked on every call. The cached one
    holds its own copy (parsed back from the text), so nothing done to ``schema`` later can reach it; a
    schema JSON cannot spell exactly (a tuple, NaN) gets a fresh validator each time."""
    try:
        text = json.dumps(schema)
    except (TypeError, ValueError):
        return _build(schema)
    if json.loads(text) != schema:
        return _build(schema)
    return _cached(text)


@lru_cache(maxsize=512)
def _cached(text: str) -> Any:
    return _build(json.loads(text))


def _build(schema: dict[str, Any]) -> Any:
    import jsonschema  # on first use: runs of the other systems never need it

    return jsonschema.Draft202012Validator(schema)
