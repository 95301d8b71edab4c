"""Mutants of the model form tools."""

from __future__ import annotations

from typing import Any
from unittest import mock

from conformance.scenario.akan import Form, FormField
from reference.akan import (
    forms,
)
from reference.mutants import Mutant

MUTANTS: list[Mutant] = []

_form_tools = forms.tools
_form_fill = forms.fill
_form_transform = forms.transform


def _controls_including(*, inline: bool, disabled: bool) -> Any:
    def controls(form: Form) -> dict[str, FormField]:
        return {
            forms.setter_name(form, field): field
            for field in form.fields
            if field.kind == "plain" and field.control is not None and field.flag is None
            and (inline or field.control.on_change == "reference")
            and (disabled or not field.control.disabled)
        }
    return controls


def _fill_per_subscriber(form: Form | None) -> list[dict[str, Any]]:
    entries = _form_tools(form)
    extra = [e for e in entries if form is not None and e["name"] == forms.fill_name(form)]
    return entries + extra * max(0, (form.subscriptions if form else 0) - 1)


def _fill_despite_agent_false(form: Form | None) -> list[dict[str, Any]]:
    return _form_tools(form.model_copy(update={"agent": True}) if form else None)


def _fill_raw(form: Form, patch: dict[str, Any]) -> tuple[dict[str, Any], str | None]:
    writes, refused = _form_fill(form, patch)
    return (dict(patch) if refused is None else writes), refused


def _fill_replaces(form: Form, patch: dict[str, Any]) -> tuple[dict[str, Any], str | None]:
    writes, refused = _form_fill(form, patch)
    if refused is not None:
        return writes, refused
    return {**{f.name: None for f in forms.fill_fields(form)}, **writes}, None


def _fill_anything(form: Form, patch: dict[str, Any]) -> tuple[dict[str, Any], str | None]:
    return dict(patch), None


def _no_default_phone(field: FormField, value: Any) -> Any:
    if field.control is not None and field.control.transform is None:
        return value
    return _form_transform(field, value)


def _transform_whole(field: FormField, value: Any) -> Any:
    if isinstance(value, list):
        return forms.format_phone("".join(str(v) for v in value))
    return forms.format_phone("") if value is None else _form_transform(field, value)


MUTANTS += [
    Mutant(
        "akan-inline-arrow-publishes",
        ("akan.form.inline-arrow-publishes-nothing",),
        lambda: mock.patch.object(forms, "controls", _controls_including(inline=True, disabled=False)),
        "a control with an inline onChange publishes the setter it wraps",
    ),
    Mutant(
        "akan-disabled-control-publishes",
        ("akan.form.disabled-control-publishes-nothing", "akan.form.disabled-field-refused-by-fill"),
        lambda: mock.patch.object(forms, "controls", _controls_including(inline=False, disabled=True)),
        "a disabled control keeps its tool, and fill writes its field",
    ),
    Mutant(
        "akan-fill-per-subscriber",
        ("akan.form.fill-tool-registered-shared",),
        lambda: mock.patch.object(forms, "tools", _fill_per_subscriber),
        "each component subscribing the form registers its own fill tool",
    ),
    Mutant(
        "akan-fill-despite-agent-false",
        ("akan.form.agent-false-withholds-fill-tool",),
        lambda: mock.patch.object(forms, "tools", _fill_despite_agent_false),
        "{ agent: false } on the form subscription is ignored",
    ),
    Mutant(
        "akan-fill-raw-setter",
        ("akan.form.fill-writes-through-control-tool", "akan.form.phone-default-transform"),
        lambda: mock.patch.object(forms, "fill", _fill_raw),
        "the patch tool writes plain fields with the raw setter, skipping the control's transform",
    ),
    Mutant(
        "akan-fill-replaces-form",
        ("akan.form.fill-is-a-patch",),
        lambda: mock.patch.object(forms, "fill", _fill_replaces),
        "fields the patch leaves out are cleared",
    ),
    Mutant(
        "akan-fill-writes-anything",
        ("akan.form.fill-refuses-offscreen-plain-field",
         "akan.form.fill-excludes-relation-base-hidden-secret"),
        lambda: mock.patch.object(forms, "fill", _fill_anything),
        "the patch tool writes any field it is given",
    ),
    Mutant(
        "akan-no-default-phone-transform",
        ("akan.form.transform-applies-to-agent-writes",),
        lambda: mock.patch.object(forms, "transform", _no_default_phone),
        "a phone control with no transform prop stores the agent's digits as typed",
    ),
    Mutant(
        "akan-transform-whole-value",
        ("akan.form.transform-per-element-and-null",),
        lambda: mock.patch.object(forms, "transform", _transform_whole),
        "a list is transformed as one value and a cleared field is transformed too",
    ),
]

_operations = forms.operations
_apply = forms.apply


def _ops_variant(*, primitive_rows: bool = False, any_list_moves: bool = False, add_or_sub: bool = False,
                 drop: str = "") -> Any:
    def operations(form: Form) -> dict[str, tuple[str, FormField]]:
        ops = {name: entry for name, entry in _operations(form).items() if entry[0] != drop}
        for name, field in forms.controls(form).items():
            suffix = name.removeprefix("set")
            if primitive_rows and isinstance(field.value, list):
                ops.setdefault(f"add{suffix}", ("add", field))
                ops.setdefault(f"sub{suffix}", ("sub", field))
            if any_list_moves and isinstance(field.value, list):
                ops.setdefault(f"move{suffix}", ("move", field))
            if add_or_sub and field.kind == "rows":
                ops[f"addOrSub{suffix}"] = ("add", field)
        return ops
    return operations


def _sub_one_at_a_time(op: str, field: FormField, current: Any, arguments: dict[str, Any]) -> Any:
    if op != "sub":
        return _apply(op, field, current, arguments)
    rows = list(current or [])
    for position in arguments.get("positions") or []:
        if 0 <= position < len(rows):
            rows.pop(position)
    return rows, None


def _move_with_transform(op: str, field: FormField, current: Any, arguments: dict[str, Any]) -> Any:
    value, refused = _apply(op, field, current, arguments)
    return (forms.transform(field, value) if op == "move" and refused is None else value), refused


MUTANTS += [
    Mutant(
        "akan-no-add-sub",
        ("akan.form.embedded-array-add-sub",),
        lambda: mock.patch.object(forms, "operations", _ops_variant(drop="add")),
        "an array of embedded rows publishes only its whole-array setter",
    ),
    Mutant(
        "akan-sub-one-at-a-time",
        ("akan.form.add-sub-take-lists-atomically",),
        lambda: mock.patch.object(forms, "apply", _sub_one_at_a_time),
        "sub removes listed positions one by one, each shifting the next",
    ),
    Mutant(
        "akan-add-takes-position",
        ("akan.form.add-appends-only",),
        lambda: mock.patch.dict(forms._OP_PARAMS, {"add": lambda field: forms._params(
            {"rows": {"type": "array"}, "at": {"type": "integer"}})}),
        "add publishes an insert position",
    ),
    Mutant(
        "akan-primitive-arrays-add-sub",
        ("akan.form.primitive-arrays-setter-only",),
        lambda: mock.patch.object(forms, "operations", _ops_variant(primitive_rows=True)),
        "an array of primitives gets add and sub too",
    ),
    Mutant(
        "akan-add-or-sub-published",
        ("akan.form.add-or-sub-never-published",),
        lambda: mock.patch.object(forms, "operations", _ops_variant(add_or_sub=True)),
        "the generated addOrSub action is offered to the agent",
    ),
    Mutant(
        "akan-no-move",
        ("akan.form.draggable-list-publishes-move",),
        lambda: mock.patch.object(forms, "operations", _ops_variant(drop="move")),
        "a DraggableList publishes no reorder tool",
    ),
    Mutant(
        "akan-move-transforms",
        ("akan.form.move-is-whole-array-write-without-transform",),
        lambda: mock.patch.object(forms, "apply", _move_with_transform),
        "moving an entry runs the control's transform over the array",
    ),
    Mutant(
        "akan-every-list-moves",
        ("akan.form.move-only-from-sortable-control",),
        lambda: mock.patch.object(forms, "operations", _ops_variant(any_list_moves=True)),
        "any list field publishes a reorder tool",
    ),
]


# -- relation pickers ------------------------------------------------------------------------------------

_controls = forms.controls


def _pickers_ignore_reference(form: Form) -> dict[str, FormField]:
    """Relation and id pickers publish whether or not they hold the setter, and while disabled."""
    pickers = ("parent", "children", "parentId", "childrenId")
    enabled = {"on_change": "reference", "disabled": False}
    loose = form.model_copy(update={"fields": [
        f.model_copy(update={"control": f.control.model_copy(update=enabled)})
        if f.control is not None and f.control.type in pickers else f
        for f in form.fields
    ]})
    return _controls(loose)


def _id_pickers_list(form: Form) -> dict[str, tuple[str, FormField]]:
    """Field.ParentId / Field.ChildrenId also publish a listing tool."""
    ops = _operations(form)
    for name, (op, field) in list(ops.items()):
        if op == "set" and field.control is not None and field.control.type in ("parentId", "childrenId"):
            ops[name.replace("set", "loadOptions", 1)] = ("load", field)
    return ops


MUTANTS += [
    Mutant(
        "akan-pickers-ignore-reference",
        ("akan.form.relation-pickers-need-reference",),
        lambda: mock.patch.object(forms, "controls", _pickers_ignore_reference),
        "relation pickers publish with an inline onChange and while disabled",
    ),
    Mutant(
        "akan-id-pickers-list-options",
        ("akan.form.id-pickers-plain-setter",),
        lambda: mock.patch.object(forms, "operations", _id_pickers_list),
        "Field.ParentId / Field.ChildrenId publish a listing tool beside their setter",
    ),
    Mutant(
        "akan-relation-pickers-without-listing",
        ("akan.form.relation-picker-tools",),
        lambda: mock.patch.object(forms, "RELATION_PICKERS", ()),
        "Field.Parent / Field.Children publish neither a listing tool nor their setter",
    ),
]
