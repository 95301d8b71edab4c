"""Building blocks shared by the three record vocabularies (``conformance.records.<system>``).

The record is a contract with implementations we have never seen, so a schema states only what a rule
needs (protocol version 3). Four freedoms shape every model here:

- **Optional unless a rule needs it.** A field is required only when a rule needs it in every event of
  its type, and then it is declared with ``needed(rule, ...)``, which writes the rule ids into the schema
  as ``x-rules``. Everything else is ``optional()``: absent when it does not apply, which is not the same
  as ``null`` (``optional()`` keeps ``null`` out of the schema; a field the prose says may be null is
  typed ``X | None``). A scenario that needs an absent field fails its own matcher, naming the path.
- **Open sets.** Where the documents do not close a set of values, the field is a string with the
  documented values listed as ``x-known-values`` (``open_set``): they keep their meaning, any other value
  validates, and the report lists it as undocumented. A set the documents close is a ``Literal`` with
  ``x-rules`` naming the rules that close it (``tests/test_record_contract.py`` fails on one without).
- **Open unions.** Events (and the events that come in kinds: a request's ``purpose``, a relay's
  ``outcome``) are ``open_union``s: a listed tag is checked against its model, any other tag is allowed
  as it is. Judging ignores events of an unlisted type (``conformance.records.extras``).
- **Extra fields** are allowed on every object (each model is ``Open``); ``x-`` fields are the
  implementation's own and ignored by judging.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any, Literal, Union

from pydantic import (
    BaseModel,
    ConfigDict,
    Discriminator,
    Field,
    GetCoreSchemaHandler,
    GetJsonSchemaHandler,
    Tag,
    WithJsonSchema,
)
from pydantic.json_schema import JsonSchemaValue
from pydantic_core import CoreSchema

RULES = "x-rules"
"""Schema keyword: the rule ids that need this required field, closed set or fixed layout."""
KNOWN_VALUES = "x-known-values"
"""Schema keyword: the documented values of an open set (any other string validates)."""
OPEN_UNION = "x-open-union"
"""Schema keyword on a ``oneOf``: a tag its ``discriminator`` does not map is allowed (the last branch)."""
OTHER = "x-other"
"""Schema keyword on the last branch of an open union: an object whose tag the vocabulary does not list."""


class Open(BaseModel):
    """An object of the record: its listed fields are typed, anything else is allowed.

    Built on first use (``defer_build``): a record is validated through its top-level model only, so the
    validators of the nested models would otherwise be compiled at import for nothing.
    """

    model_config = ConfigDict(extra="allow", populate_by_name=True, defer_build=True)


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


def _extra(*steps: Any) -> Any:
    """One ``json_schema_extra`` callable applying dict updates and callables in order."""

    def apply(schema: dict[str, Any]) -> None:
        for step in steps:
            step(schema) if callable(step) else schema.update(step)

    return apply


def optional(
    description: str | None = None, *, alias: str | None = None, rules: tuple[str, ...] = ()
) -> Any:
    """A field present only when it applies: not required, and never ``null`` when present. ``rules``
    name the rules that close its set of values, when it is a closed ``Literal``."""
    extra = _extra(_without_null, {RULES: list(rules)} if rules else {})
    return Field(default=None, description=description, alias=alias, json_schema_extra=extra)


def needed(*rules: str, description: str | None = None, alias: str | None = None) -> Any:
    """A required field, and the rules that need it in every event of its type (``x-rules``)."""
    if not rules:
        raise ValueError("needed() names at least one rule id")
    return Field(description=description, alias=alias, json_schema_extra={RULES: list(rules)})


def open_set(*values: str, description: str | None = None, nullable: bool = False) -> Any:
    """An optional string whose documented values are ``values``; any other string validates too (and the
    report lists it as undocumented). ``nullable`` keeps ``null`` (type the field ``str | None``)."""
    steps: list[Any] = [] if nullable else [_without_null]
    return Field(
        default=None, description=description, json_schema_extra=_extra(*steps, {KNOWN_VALUES: list(values)})
    )


class _OpenUnionSchema:
    """Writes an open union's JSON Schema: ``oneOf`` the listed branches and, last, the object whose tag is
    none of theirs; a ``discriminator`` mapping each listed tag to its branch (``conformance.records.check``
    follows it for precise messages; plain validators need not, the branches are exclusive)."""

    def __init__(self, tag: str, known: tuple[str, ...]) -> None:
        self.tag, self.known = tag, known

    def __get_pydantic_json_schema__(
        self, core: CoreSchema, handler: GetJsonSchemaHandler
    ) -> JsonSchemaValue:
        schema = handler(core)
        branches = schema["oneOf"]
        mapping = {
            tag: branch["$ref"] if set(branch) == {"$ref"} else branch
            for tag, branch in zip(self.known, branches, strict=False)
        }
        schema["discriminator"] = {"propertyName": self.tag, "mapping": mapping}
        schema[OPEN_UNION] = True
        return schema


class open_union:  # a lower-case name: it reads as a type constructor, ``Annotated[Any, open_union(...)]``
    """A union told apart by the string ``tag``, open to tags it does not list.

    ``members`` maps each listed tag to its model (or to a union of its own). An object whose tag is not
    listed validates as it is: an implementation may report its own diagnostics as events of its own
    types, and judging ignores them. An object without a string tag is refused, naming the tag. ``within``
    (field, value) is the tag of the enclosing union this one sits in (a ``model_request``'s kinds), which
    the last branch repeats so that the branches of the enclosing ``oneOf`` stay exclusive.

    Written as the metadata of ``Annotated[Any, open_union(...)]``, so that type checkers see a plain type
    and pydantic builds the union from here.
    """

    def __init__(
        self,
        tag: str,
        members: Mapping[str, Any],
        what: str = "an event",
        within: tuple[str, str] | None = None,
    ) -> None:
        self.union = _open_union(tag, members, what, within)

    def __get_pydantic_core_schema__(self, source: Any, handler: GetCoreSchemaHandler) -> CoreSchema:
        return handler.generate_schema(self.union)


def _open_union(tag: str, members: Mapping[str, Any], what: str, within: tuple[str, str] | None) -> Any:
    known = tuple(members)

    def tag_of(value: Any) -> str | None:
        found = value.get(tag) if isinstance(value, dict) else getattr(value, tag, None)
        if not isinstance(found, str):
            return None
        return found if found in members else "__other__"

    properties: dict[str, Any] = {tag: {"type": "string", "not": {"enum": list(known)}}}
    if within is not None:
        properties = {within[0]: {"const": within[1]}, **properties}
    other_schema = {
        "type": "object",
        "description": f"{what[0].upper()}{what[1:]} whose {tag} this vocabulary does not list: allowed.",
        "properties": properties,
        "required": list(properties),
        OTHER: True,
    }
    other = Annotated[dict[str, Any], WithJsonSchema(other_schema), Tag("__other__")]
    branches = tuple(Annotated[member, Tag(name)] for name, member in members.items())
    union = Union[(*branches, other)]  # type: ignore[valid-type]
    return Annotated[union, Discriminator(tag_of), _OpenUnionSchema(tag, known)]


class Usage(Open):
    input_tokens: int = optional()
    output_tokens: int = optional()


class Failure(Open):
    """A scripted provider failure, as the script gives it."""

    status: int = optional()
    message: str = optional()
    retry_after: float | None = None


class ScriptedCall(Open):
    """A native tool call of a scripted answer (``run_javascript`` with ``code`` for llmz)."""

    name: str = optional()
    code: str = optional()
    arguments: dict[str, Any] = optional()
    id: str = optional()


class ModelResponse(Open):
    """The scripted answer to call ``call``, as the script entry gives it: ``text``, ``tool_calls``,
    ``stop_reason`` and ``usage`` (plus ``json`` for structured output), or ``failure``. An echo of the
    script, which no rule needs field by field: every field is optional."""

    type: Literal["model_response"]
    call: int = optional()
    text: str = optional()
    tool_calls: list[ScriptedCall] = optional()
    json_: dict[str, Any] = optional(alias="json")
    stop_reason: str = open_set("stop", "tool_calls", "max_tokens")
    usage: Usage = optional()
    failure: Failure = optional()
    continuation: Any = optional()
    """The script entry's provider continuation metadata, when it has one (signed output)."""
