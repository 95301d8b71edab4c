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
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from conformance.scenario.akan import Form, FormField


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


def transform(field: FormField, value: Any) -> Any:
    """The control's transform on one write (akan.form.transform-applies-to-agent-writes).

    akan.form.transform-per-element-and-null: each element of a list on its own; a cleared value stays null.
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


def controls(form: Form) -> dict[str, FormField]:
    """Published control tools by name: plain fields drawn, handed the setter by reference, enabled."""
    return {
        setter_name(form, field): field
        for field in form.fields
        if field.kind == "plain" and field.control is not None and field.control.on_change == "reference"
        and not field.control.disabled and field.flag is None
    }


def fill_fields(form: Form) -> list[FormField]:
    """Fields the patch tool describes (akan.form.fill-excludes-relation-base-hidden-secret)."""
    return [f for f in form.fields if f.kind in ("plain", "composite") and f.flag is None]


def _schema(field: FormField) -> dict[str, Any]:
    control_types = {"number": "number", "switch": "boolean"}
    if field.kind == "composite":
        return {"type": "array" if isinstance(field.value, list) else "object"}
    return {"type": control_types.get(field.control.type if field.control else "", "string")}


def tools(form: Form | None) -> list[dict[str, Any]]:
    """The form's part of a turn's ``tools``: each published control, then the patch tool once."""
    if form is None:
        return []
    entries = [
        {"name": name, "description": f"Set {field.name} on the {form.model} form.",
         "parameters": {"type": "object", "properties": {"value": _schema(field)}, "required": ["value"]}}
        for name, field in controls(form).items()
    ]
    if form.subscriptions > 0 and form.agent:
        properties = {field.name: _schema(field) for field in fill_fields(form)}
        patch = {"type": "object", "properties": properties}
        parameters = {"type": "object", "properties": {"patch": patch}, "required": ["patch"]}
        entries.append({"name": fill_name(form), "description": f"Set several {form.model} fields at once.",
                        "parameters": parameters})
    return entries


def fill(form: Form, patch: dict[str, Any]) -> tuple[dict[str, Any], str | None]:
    """The writes a patch makes, or a refusal naming the fields it cannot write (nothing is written)."""
    drawn = {field.name: field for field in controls(form).values()}
    writable = {field.name: field for field in fill_fields(form)}
    never = sorted(name for name in patch if name not in writable)
    offscreen = sorted(name for name in patch if writable.get(name) and writable[name].kind == "plain"
                       and name not in drawn)
    if never or offscreen:
        parts = [f"cannot be written here: {', '.join(never)}"] if never else []
        if offscreen:
            parts.append(f"no control on screen for: {', '.join(offscreen)}; fields on screen: "
                         f"{', '.join(drawn) or 'none'}")
        return {}, "; ".join(parts)
    return {name: transform(writable[name], value) if name in drawn else value
            for name, value in patch.items()}, None
