"""Building blocks shared by the three record vocabularies (``conformance.records.<system>``).

Two freedoms of the record protocol shape every model here. Extra fields are allowed on every object (an
implementation may report more than the vocabulary asks: a timestamp, a trace id), so each model is
``Open``. And a field the prose marks *optional* is absent when it does not apply, which is not the same as
``null``: ``optional()`` declares such a field without letting ``null`` into its JSON Schema, while a field
the prose says may be null is typed ``X | None`` and keeps ``null``.
"""

from __future__ import annotations

from typing import Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator


class Open(BaseModel):
    """An object of the record: its listed fields are typed, anything else is allowed.

    Built on first use (``defer_build``): a record is validated through its top-level model only, so the
    validators of the nested models would otherwise be compiled at import for nothing.
    """

    model_config = ConfigDict(extra="allow", populate_by_name=True, defer_build=True)
    required_groups: ClassVar[tuple[tuple[str, ...], ...]] = ()

    @classmethod
    def __pydantic_init_subclass__(cls, **kwargs: Any) -> None:
        super().__pydantic_init_subclass__(**kwargs)
        if cls.required_groups and not issubclass(cls, Grouped):
            raise TypeError(f"{cls.__name__} sets required_groups: derive it from Grouped, which checks them")


class Grouped(Open):
    """An object that must carry the fields of one of its ``required_groups`` (see ``require_one_of``).

    The groups are enforced here as well as written into the schema, so validating with the model never
    accepts a record the published schema refuses. Only these models pay for the check (a Python call per
    object): the hundreds of other objects in a record are validated in Rust alone.
    """

    @model_validator(mode="before")
    @classmethod
    def _one_group_present(cls, data: Any) -> Any:
        if not cls.required_groups or not isinstance(data, dict):
            return data
        *earlier, last = cls.required_groups
        group = next((g for g in earlier if g[0] in data), last)
        missing = [name for name in group if name not in data]
        if missing:
            raise ValueError(f"missing {', '.join(missing)}")
        return data


def _without_null(schema: dict[str, Any]) -> None:
    """Drop the ``null`` branch and the ``default`` pydantic writes for ``X | None = None``."""
    schema.pop("default", None)
    branches = schema.pop("anyOf", None)
    if branches is None:
        return
    kept = [branch for branch in branches if branch != {"type": "null"}]
    if len(kept) == 1:
        schema.update(kept[0])
    else:
        schema["anyOf"] = kept


def optional(description: str | None = None, *, alias: str | None = None) -> Any:
    """A field present only when it applies: not required, and never ``null`` when present."""
    return Field(default=None, description=description, alias=alias, json_schema_extra=_without_null)


def require_one_of(*groups: tuple[str, ...]) -> dict[str, Any]:
    """JSON Schema for "the fields of one of these groups are present", as if/then/else chains.

    Chosen over ``anyOf`` so that a validator's message names the missing field of the last group (the
    usual shape) instead of "not valid under any of the given schemas".
    """
    *earlier, last = groups
    schema: dict[str, Any] = {"required": list(last)}
    for group in reversed(earlier):
        schema = {"if": {"required": list(group[:1])}, "then": {"required": list(group)}, "else": schema}
    return schema


class Usage(Open):
    input_tokens: int
    output_tokens: int


class Failure(Open):
    """A scripted provider failure, as the script gives it."""

    status: int
    message: str
    retry_after: float | None = None


class ScriptedCall(Open):
    """A native tool call of a scripted answer (``run_javascript`` with ``code`` for llmz)."""

    name: str
    code: str = optional()
    arguments: dict[str, Any] = optional()
    id: str = optional()


class ModelResponse(Grouped):
    """The scripted answer to call ``call`` (written by the scripted provider, the same in every system):
    either ``text``, ``tool_calls``, ``stop_reason`` and ``usage`` (plus ``json`` for structured output),
    or ``failure``."""

    required_groups = (("failure",), ("text", "tool_calls", "stop_reason", "usage"))
    model_config = ConfigDict(json_schema_extra=require_one_of(*required_groups))

    type: Literal["model_response"]
    call: int
    text: str = optional()
    tool_calls: list[ScriptedCall] = optional()
    json_: dict[str, Any] = optional(alias="json")
    stop_reason: Literal["stop", "tool_calls", "max_tokens"] = optional()
    usage: Usage = optional()
    failure: Failure = optional()
    continuation: Any = optional()
    """The script entry's provider continuation metadata, when it has one (signed output)."""
