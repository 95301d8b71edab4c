"""Form controls as tools: which setters a form publishes, and how ``fill<Model>Form`` writes a patch.

Theory of operation. A control handed the generated setter by reference publishes that setter under its
own name, ``set<Field>On<Model>``, while it is drawn and enabled; an inline arrow or a disabled control
publishes nothing (akan.form.control-publishes-setter-by-reference, akan.form.inline-arrow-publishes-
nothing, akan.form.disabled-control-publishes-nothing). Subscribing the form adds ``fill<Model>Form``,
registered shared so several subscribers make one tool (akan.form.fill-tool-from-form-subscription,
akan.form.fill-tool-registered-shared), unless subscribed with ``agent: false``.

The patch tool writes plain fields through the control's own tool -- so the control's ``transform``
applies -- and composite fields with their setter directly. It can never write a relation, a base document
field or a hidden/secret field, and it refuses a plain field with no published control, naming the plain
fields that do have one. The reference refuses a patch as a whole when any field in it is refused, so a
refusal never leaves the form half written (the documents do not say whether the rest is applied).

A store's ``_postSet<Field>`` hook runs right after any write of its field, by either tool, and reads the
new value; only hooks declared as methods are collected, and one naming no field is reported at mount.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from typing import Any, Literal

from reference.akan.model import Form, FormField, PostSet


def _cap(name: str) -> str:
    return name[:1].upper() + name[1:]


def setter_name(form: Form, field: FormField) -> str:
    return f"set{_cap(field.name)}On{form.model}"


def fill_name(form: Form) -> str:
    return f"fill{form.model}Form"


def format_phone(value: str) -> str:
    """akan.form.phone-default-transform: digits grouped as ``010-1234-5678`` (3-4-4, or 3-3-4 for ten)."""
    digits = re.sub(r"\D", "", value)
    if len(digits) == 11:
        return f"{digits[:3]}-{digits[3:7]}-{digits[7:]}"
    if len(digits) == 10:
        return f"{digits[:3]}-{digits[3:6]}-{digits[6:]}"
    return value


_TRANSFORMS: dict[str, Callable[[str], str]] = {
    "upper": str.upper, "lower": str.lower, "trim": str.strip, "phone": format_phone,
}
#: Field.Parent / Field.Children carry their own option list (akan.form.relation-picker-tools).
RELATION_PICKERS = ("parent", "children")
#: Pickers whose argument is a list of ids.
MANY_PICKERS = ("children", "childrenId")


def _params(properties: dict[str, Any]) -> dict[str, Any]:
    return {"type": "object", "properties": properties, "required": list(properties)}


_POSITIONS = {"type": "array", "items": {"type": "integer"}}


@dataclass(frozen=True)
class FormTools:
    """The form's tools: which it publishes, their parameters, and what a call writes."""

    relation_pickers: tuple[str, ...] = RELATION_PICKERS

    def transform(self, field: FormField, value: Any) -> Any:
        """The control's transform on one write (akan.form.transform-applies-to-agent-writes).

        akan.form.transform-per-element-and-null: each element of a list on its own; a cleared value stays
        null.
        """
        control = field.control
        if control is None:
            return value
        name = control.transform or ("phone" if control.type == "phone" else "none")
        apply = _TRANSFORMS.get(name)
        if apply is None or value is None:
            return value
        if isinstance(value, list):
            return [item if item is None or not isinstance(item, str) else apply(item) for item in value]
        return apply(value) if isinstance(value, str) else value

    def _drawn_by(self, field: FormField) -> bool:
        """A relation field is reachable only through a relation picker; other kinds through any control."""
        is_picker = field.control is not None and field.control.type in self.relation_pickers
        return is_picker if field.kind == "relation" else field.kind in ("plain", "rows") and not is_picker

    def controls(self, form: Form) -> dict[str, FormField]:
        """Published control tools by name: fields drawn, handed the setter by reference, enabled.

        akan.form.control-publishes-setter-by-reference, akan.form.inline-arrow-publishes-nothing,
        akan.form.disabled-control-publishes-nothing; akan.form.relation-pickers-need-reference: the four
        pickers follow the same two conditions.
        """
        return {
            setter_name(form, field): field
            for field in form.fields
            if field.control is not None and self._drawn_by(field)
            and field.control.on_change == "reference" and not field.control.disabled and field.flag is None
        }

    def operations(self, form: Form) -> dict[str, tuple[str, FormField]]:
        """Every control tool by name, with what it does: ``set``, ``add``, ``sub``, ``move`` or ``load``.

        akan.form.embedded-array-add-sub: an array of embedded rows also gets ``add`` and ``sub``; an array
        of primitives keeps its one setter (akan.form.primitive-arrays-setter-only). The generated
        ``addOrSub`` is never among them (akan.form.add-or-sub-never-published).
        akan.form.draggable-list-publishes-move: only a DraggableList adds ``move``
        (akan.form.move-only-from-sortable-control).
        """
        ops: dict[str, tuple[str, FormField]] = {}
        for name, field in self.controls(form).items():
            ops[name] = ("set", field)
            suffix = f"{_cap(field.name)}On{form.model}"
            if field.kind == "rows":
                ops[f"add{suffix}"] = ("add", field)
                ops[f"sub{suffix}"] = ("sub", field)
            if field.control is not None and field.control.type == "draggable":
                ops[f"move{suffix}"] = ("move", field)
            if field.control is not None and field.control.type in self.relation_pickers:
                ops[f"loadOptions{suffix}"] = ("load", field)  # akan.form.id-pickers-plain-setter: not ids
        return ops

    def fill_fields(self, form: Form) -> list[FormField]:
        """Fields the patch tool describes (akan.form.fill-excludes-relation-base-hidden-secret)."""
        return [f for f in form.fields if f.kind in ("plain", "rows", "composite") and f.flag is None]

    def schema(self, field: FormField) -> dict[str, Any]:
        """A field's JSON Schema type: from its control when drawn, else from the value it holds."""
        control_types = {
            "number": "number", "switch": "boolean", "list": "array", "draggable": "array",
            "textList": "array",
        }
        if field.control is not None and field.control.type in ("parent", "parentId"):
            return {"type": "string"}
        if field.control is not None and field.control.type in MANY_PICKERS:
            return {"type": "array", "items": {"type": "string"}}
        if field.kind == "rows" or isinstance(field.value, list):
            return {"type": "array"}
        if field.control is not None:
            return {"type": control_types.get(field.control.type, "string")}
        value = field.value
        if isinstance(value, bool):
            return {"type": "boolean"}
        if isinstance(value, int | float):
            return {"type": "number"}
        return {"type": "object" if isinstance(value, dict) or field.kind == "composite" else "string"}

    def parameters(self, op: str, field: FormField) -> dict[str, Any]:
        """One control tool's parameters. akan.form.add-appends-only: ``add`` takes no position."""
        if op == "add":
            return _params({"rows": {"type": "array"}})
        if op == "sub":
            return _params({"positions": _POSITIONS})
        if op == "move":
            return _params({"from": {"type": "integer"}, "to": {"type": "integer"}})
        if op == "set":
            return _params({"value": self.schema(field)})
        return _params({})

    def tools(self, form: Form | None) -> list[dict[str, Any]]:
        """The form's part of a turn's ``tools``: each control tool, then the patch tool once.

        akan.form.fill-tool-from-form-subscription, akan.form.fill-tool-registered-shared (several
        subscribers make one tool), akan.form.agent-false-withholds-fill-tool.
        """
        if form is None:
            return []
        entries = [
            {"name": name, "description": f"{op.capitalize()} {field.name} on the {form.model} form.",
             "parameters": self.parameters(op, field)}
            for name, (op, field) in self.operations(form).items()
        ]
        if form.subscriptions > 0 and form.agent:
            properties = {field.name: self.schema(field) for field in self.fill_fields(form)}
            parameters = _params({"patch": {"type": "object", "properties": properties}})
            description = f"Set several {form.model} fields at once."
            entries.append({"name": fill_name(form), "description": description, "parameters": parameters})
        return entries

    def apply(
        self, op: str, field: FormField, current: Any, arguments: dict[str, Any]
    ) -> tuple[Any, str | None]:
        """The field's new value after one control tool call, or a refusal.

        akan.form.add-sub-take-lists-atomically: ``sub`` removes every listed position of the array as it
        was. akan.form.move-is-whole-array-write-without-transform: ``move`` reorders the stored entries as
        they are.
        """
        rows = list(current) if isinstance(current, list) else []
        if op == "load":  # akan.form.relation-picker-tools: the options as {id, label}; nothing is written
            return [asdict(option) for option in field.options], None
        if op == "set":
            return self.transform(field, arguments.get("value")), None
        if op == "add":
            added = arguments.get("rows")
            return (rows + added, None) if isinstance(added, list) else (None, "rows must be a list")
        if op == "sub":
            positions = arguments.get("positions")
            if not isinstance(positions, list) or any(not isinstance(p, int) or not 0 <= p < len(rows)
                                                      for p in positions):
                return None, f"positions must be a list of indexes below {len(rows)}"
            return [row for index, row in enumerate(rows) if index not in set(positions)], None
        source, target = arguments.get("from"), arguments.get("to")
        if not (isinstance(source, int) and isinstance(target, int) and 0 <= source < len(rows)
                and 0 <= target < len(rows)):
            return None, f"from and to must be indexes below {len(rows)}"
        rows.insert(target, rows.pop(source))
        return rows, None

    def hooks(self, form: Form) -> list[PostSet]:
        """The ``_postSet`` hooks ``StoreRegistry.register`` collects: functions on the prototype only.

        akan.form.register-collects-prototype-functions-only: a class field or getter is skipped.
        """
        return [hook for hook in form.post_sets if hook.shape == "method"]

    def misspelled(self, form: Form) -> list[str]:
        """Collected hooks whose suffix names no field of the form (akan.form.post-set-misspelling-logged)."""
        fields = {_cap(field.name) for field in form.fields}
        return [hook.name for hook in self.hooks(form) if hook.name.removeprefix("_postSet") not in fields]

    def after_write(
        self, form: Form, values: dict[str, Any], written: Sequence[str], writer: Literal["control", "fill"]
    ) -> dict[str, Any]:
        """What the hooks of the fields just written write in turn, reading the stored (new) values.

        akan.form.post-set-runs-after-every-write: every writer (a control's tool, the patch tool) runs
        them, right after its write. ``writer`` says which one wrote; the reference treats both alike.
        """
        extra: dict[str, Any] = {}
        for hook in self.hooks(form):
            for name in written:
                if hook.name.removeprefix("_postSet") != _cap(name):
                    continue
                current = extra.get(hook.appends_to, values.get(hook.appends_to))
                rows = list(current) if isinstance(current, list) else []
                extra[hook.appends_to] = [*rows, values.get(name)]
        return extra

    def fill(self, form: Form, patch: dict[str, Any]) -> tuple[dict[str, Any], str | None]:
        """The writes a patch makes, or a refusal naming the fields it cannot write (nothing is written).

        akan.form.fill-is-a-patch, akan.form.fill-writes-through-control-tool,
        akan.form.fill-refuses-offscreen-plain-field, akan.form.disabled-field-refused-by-fill.
        """
        drawn = {field.name: field for field in self.controls(form).values() if field.kind != "relation"}
        writable = {field.name: field for field in self.fill_fields(form)}
        never = sorted(name for name in patch if name not in writable)
        offscreen = sorted(name for name in patch if writable.get(name) and writable[name].kind == "plain"
                           and name not in drawn)
        if never or offscreen:
            parts = [f"cannot be written here: {', '.join(never)}"] if never else []
            if offscreen:
                parts.append(f"no control on screen for: {', '.join(offscreen)}; fields on screen: "
                             f"{', '.join(drawn) or 'none'}")
            return {}, "; ".join(parts)
        return {name: self.transform(writable[name], value) if name in drawn else value
                for name, value in patch.items()}, None
