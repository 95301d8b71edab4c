"""Mutants of the model form tools: each a ``FormTools`` with one decision overridden."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any, Literal

from reference.akan import forms
from reference.akan.forms import FormTools
from reference.akan.model import Form, FormField, PostSet
from variants import Mutant
from variants.mutants.akan.common import mutant

_PICKERS = ("parent", "children", "parentId", "childrenId")


class _InlineArrowPublishes(FormTools):
    def controls(self, form: Form) -> dict[str, FormField]:
        return {
            forms.setter_name(form, field): field
            for field in form.fields
            if field.kind == "plain"
            and field.control is not None
            and field.flag is None
            and not field.control.disabled
        }


class _DisabledControlPublishes(FormTools):
    def controls(self, form: Form) -> dict[str, FormField]:
        return {
            forms.setter_name(form, field): field
            for field in form.fields
            if field.kind == "plain"
            and field.control is not None
            and field.flag is None
            and field.control.on_change == "reference"
        }


class _FillPerSubscriber(FormTools):
    def tools(self, form: Form | None) -> list[dict[str, Any]]:
        entries = super().tools(form)
        extra = [e for e in entries if form is not None and e["name"] == forms.fill_name(form)]
        return entries + extra * max(0, (form.subscriptions if form else 0) - 1)


class _FillDespiteAgentFalse(FormTools):
    def tools(self, form: Form | None) -> list[dict[str, Any]]:
        return super().tools(replace(form, agent=True) if form else None)


class _FillRawSetter(FormTools):
    def fill(self, form: Form, patch: dict[str, Any]) -> tuple[dict[str, Any], str | None]:
        writes, refused = super().fill(form, patch)
        return (dict(patch) if refused is None else writes), refused


class _FillReplacesForm(FormTools):
    def fill(self, form: Form, patch: dict[str, Any]) -> tuple[dict[str, Any], str | None]:
        writes, refused = super().fill(form, patch)
        if refused is not None:
            return writes, refused
        return {**{f.name: None for f in self.fill_fields(form)}, **writes}, None


class _FillWritesAnything(FormTools):
    def fill(self, form: Form, patch: dict[str, Any]) -> tuple[dict[str, Any], str | None]:
        return dict(patch), None


class _NoDefaultPhone(FormTools):
    def transform(self, field: FormField, value: Any) -> Any:
        if field.control is not None and field.control.transform is None:
            return value
        return super().transform(field, value)


class _TransformWholeValue(FormTools):
    def transform(self, field: FormField, value: Any) -> Any:
        if isinstance(value, list):
            return forms.format_phone("".join(str(v) for v in value))
        return forms.format_phone("") if value is None else super().transform(field, value)


@dataclass(frozen=True)
class _Operations(FormTools):
    """The control tools, changed: ``drop`` one kind, or add tools the rules withhold."""

    drop: str = ""
    primitive_rows: bool = False
    any_list_moves: bool = False
    add_or_sub: bool = False

    def operations(self, form: Form) -> dict[str, tuple[str, FormField]]:
        ops = {name: entry for name, entry in super().operations(form).items() if entry[0] != self.drop}
        for name, field in self.controls(form).items():
            suffix = name.removeprefix("set")
            if self.primitive_rows and isinstance(field.value, list):
                ops.setdefault(f"add{suffix}", ("add", field))
                ops.setdefault(f"sub{suffix}", ("sub", field))
            if self.any_list_moves and isinstance(field.value, list):
                ops.setdefault(f"move{suffix}", ("move", field))
            if self.add_or_sub and field.kind == "rows":
                ops[f"addOrSub{suffix}"] = ("add", field)
        return ops


class _SubOneAtATime(FormTools):
    def apply(
        self, op: str, field: FormField, current: Any, arguments: dict[str, Any]
    ) -> tuple[Any, str | None]:
        if op != "sub":
            return super().apply(op, field, current, arguments)
        rows = list(current or [])
        for position in arguments.get("positions") or []:
            if 0 <= position < len(rows):
                rows.pop(position)
        return rows, None


class _MoveTransforms(FormTools):
    def apply(
        self, op: str, field: FormField, current: Any, arguments: dict[str, Any]
    ) -> tuple[Any, str | None]:
        value, refused = super().apply(op, field, current, arguments)
        return (self.transform(field, value) if op == "move" and refused is None else value), refused


class _AddTakesPosition(FormTools):
    def parameters(self, op: str, field: FormField) -> dict[str, Any]:
        if op != "add":
            return super().parameters(op, field)
        properties = {"rows": {"type": "array"}, "at": {"type": "integer"}}
        return {"type": "object", "properties": properties, "required": list(properties)}


class _PickersIgnoreReference(FormTools):
    """Relation and id pickers publish whether or not they hold the setter, and while disabled."""

    def controls(self, form: Form) -> dict[str, FormField]:
        loose = replace(
            form,
            fields=[
                replace(f, control=replace(f.control, on_change="reference", disabled=False))
                if f.control is not None and f.control.type in _PICKERS
                else f
                for f in form.fields
            ],
        )
        return super().controls(loose)


class _IdPickersList(FormTools):
    """Field.ParentId / Field.ChildrenId also publish a listing tool."""

    def operations(self, form: Form) -> dict[str, tuple[str, FormField]]:
        ops = super().operations(form)
        for name, (op, field) in list(ops.items()):
            if op == "set" and field.control is not None and field.control.type in ("parentId", "childrenId"):
                ops[name.replace("set", "loadOptions", 1)] = ("load", field)
        return ops


class _InnerListRegistersToo(FormTools):
    """Field.TextList's inner DraggableList registers the field a second time, without the transform."""

    def tools(self, form: Form | None) -> list[dict[str, Any]]:
        entries = super().tools(form)
        doubled = [
            dict(entry)
            for entry in entries
            if form is not None
            and any(
                entry["name"] == forms.setter_name(form, field)
                for field in form.fields
                if field.control is not None and field.control.type == "textList"
            )
        ]
        return [*entries, *doubled]


class _NoPostSet(FormTools):
    def after_write(
        self, form: Form, values: dict[str, Any], written: Sequence[str], writer: Literal["control", "fill"]
    ) -> dict[str, Any]:
        return {}


class _PostSetSkipsFill(FormTools):
    """The patch tool writes around the store's hooks; only a control's own tool runs them."""

    def after_write(
        self, form: Form, values: dict[str, Any], written: Sequence[str], writer: Literal["control", "fill"]
    ) -> dict[str, Any]:
        return {} if writer == "fill" else super().after_write(form, values, written, writer)


class _PostSetSkipsControl(FormTools):
    """Only the patch tool runs the hooks; a control's own tool writes around them."""

    def after_write(
        self, form: Form, values: dict[str, Any], written: Sequence[str], writer: Literal["control", "fill"]
    ) -> dict[str, Any]:
        return {} if writer == "control" else super().after_write(form, values, written, writer)


class _MisspellingSilent(FormTools):
    def misspelled(self, form: Form) -> list[str]:
        return []


class _MisspellingReportsAll(FormTools):
    """Reports every hook as unknown, whether or not its suffix names a field."""

    def misspelled(self, form: Form) -> list[str]:
        return [hook.name for hook in self.hooks(form)]


class _CollectsEveryShape(FormTools):
    """Takes class fields and getters holding a function as hooks too."""

    def hooks(self, form: Form) -> list[PostSet]:
        return list(form.post_sets)


MUTANTS: list[Mutant] = [
    mutant(
        "akan-post-set-never-runs",
        "akan.form.post-set-runs-after-every-write",
        "a store's _postSet hook never runs",
        forms=_NoPostSet(),
    ),
    mutant(
        "akan-post-set-skips-fill",
        "akan.form.post-set-runs-after-every-write",
        "the patch tool writes a field without running its _postSet hook",
        forms=_PostSetSkipsFill(),
    ),
    mutant(
        "akan-post-set-skips-control",
        "akan.form.post-set-runs-after-every-write",
        "a control's own tool writes a field without running its _postSet hook",
        forms=_PostSetSkipsControl(),
    ),
    mutant(
        "akan-post-set-misspelling-silent",
        "akan.form.post-set-misspelling-logged",
        "a _postSet hook naming no field is not reported",
        forms=_MisspellingSilent(),
    ),
    mutant(
        "akan-post-set-all-reported",
        "akan.form.post-set-misspelling-logged",
        "every _postSet hook is reported as naming no field",
        forms=_MisspellingReportsAll(),
    ),
    mutant(
        "akan-post-set-every-shape-collected",
        "akan.form.register-collects-prototype-functions-only",
        "a _postSet declared as a class field or getter is collected and runs",
        forms=_CollectsEveryShape(),
    ),
    mutant(
        "akan-text-list-registers-twice",
        "akan.form.composed-draggable-single-registration",
        "Field.TextList's inner DraggableList registers the field's setter a second time",
        forms=_InnerListRegistersToo(),
    ),
    mutant(
        "akan-inline-arrow-publishes",
        "akan.form.inline-arrow-publishes-nothing",
        "a control with an inline onChange publishes the setter it wraps",
        forms=_InlineArrowPublishes(),
    ),
    mutant(
        "akan-disabled-control-publishes",
        ("akan.form.disabled-control-publishes-nothing", "akan.form.disabled-field-refused-by-fill"),
        "a disabled control keeps its tool, and fill writes its field",
        forms=_DisabledControlPublishes(),
    ),
    mutant(
        "akan-fill-per-subscriber",
        "akan.form.fill-tool-registered-shared",
        "each component subscribing the form registers its own fill tool",
        forms=_FillPerSubscriber(),
    ),
    mutant(
        "akan-fill-despite-agent-false",
        "akan.form.agent-false-withholds-fill-tool",
        "{ agent: false } on the form subscription is ignored",
        forms=_FillDespiteAgentFalse(),
    ),
    mutant(
        "akan-fill-raw-setter",
        ("akan.form.fill-writes-through-control-tool", "akan.form.phone-default-transform"),
        "the patch tool writes plain fields with the raw setter, skipping the control's transform",
        forms=_FillRawSetter(),
    ),
    mutant(
        "akan-fill-replaces-form",
        "akan.form.fill-is-a-patch",
        "fields the patch leaves out are cleared",
        forms=_FillReplacesForm(),
    ),
    mutant(
        "akan-fill-writes-anything",
        (
            "akan.form.fill-refuses-offscreen-plain-field",
            "akan.form.fill-excludes-relation-base-hidden-secret",
        ),
        "the patch tool writes any field it is given",
        forms=_FillWritesAnything(),
    ),
    mutant(
        "akan-no-default-phone-transform",
        "akan.form.transform-applies-to-agent-writes",
        "a phone control with no transform prop stores the agent's digits as typed",
        forms=_NoDefaultPhone(),
    ),
    mutant(
        "akan-transform-whole-value",
        "akan.form.transform-per-element-and-null",
        "a list is transformed as one value and a cleared field is transformed too",
        forms=_TransformWholeValue(),
    ),
    mutant(
        "akan-no-add-sub",
        "akan.form.embedded-array-add-sub",
        "an array of embedded rows publishes only its whole-array setter",
        forms=_Operations(drop="add"),
    ),
    mutant(
        "akan-sub-one-at-a-time",
        "akan.form.add-sub-take-lists-atomically",
        "sub removes listed positions one by one, each shifting the next",
        forms=_SubOneAtATime(),
    ),
    mutant(
        "akan-add-takes-position",
        "akan.form.add-appends-only",
        "add publishes an insert position",
        forms=_AddTakesPosition(),
    ),
    mutant(
        "akan-primitive-arrays-add-sub",
        "akan.form.primitive-arrays-setter-only",
        "an array of primitives gets add and sub too",
        forms=_Operations(primitive_rows=True),
    ),
    mutant(
        "akan-add-or-sub-published",
        "akan.form.add-or-sub-never-published",
        "the generated addOrSub action is offered to the agent",
        forms=_Operations(add_or_sub=True),
    ),
    mutant(
        "akan-no-move",
        "akan.form.draggable-list-publishes-move",
        "a DraggableList publishes no reorder tool",
        forms=_Operations(drop="move"),
    ),
    mutant(
        "akan-move-transforms",
        "akan.form.move-is-whole-array-write-without-transform",
        "moving an entry runs the control's transform over the array",
        forms=_MoveTransforms(),
    ),
    mutant(
        "akan-every-list-moves",
        "akan.form.move-only-from-sortable-control",
        "any list field publishes a reorder tool",
        forms=_Operations(any_list_moves=True),
    ),
    mutant(
        "akan-pickers-ignore-reference",
        "akan.form.relation-pickers-need-reference",
        "relation pickers publish with an inline onChange and while disabled",
        forms=_PickersIgnoreReference(),
    ),
    mutant(
        "akan-id-pickers-list-options",
        "akan.form.id-pickers-plain-setter",
        "Field.ParentId / Field.ChildrenId publish a listing tool beside their setter",
        forms=_IdPickersList(),
    ),
    mutant(
        "akan-relation-pickers-without-listing",
        "akan.form.relation-picker-tools",
        "Field.Parent / Field.Children publish neither a listing tool nor their setter",
        forms=FormTools(relation_pickers=()),
    ),
]
