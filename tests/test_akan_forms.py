"""Form controls as tools (reference.akan.forms)."""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from reference.akan import forms
from reference.akan.forms import FormTools
from reference.akan.model import Form, FormControl, FormField

TOOLS = FormTools()


def _form(*fields: FormField, **options: Any) -> Form:
    return Form(model="Task", fields=list(fields), **options)


TITLE = FormField(name="title", value="Draft", control=FormControl())
PHONE = FormField(name="phone", control=FormControl(type="phone"))
HIDDEN = FormField(name="estimate", value=3)
TAGS = FormField(name="tags", kind="composite", value=[])


def test_names_follow_the_generated_patterns() -> None:
    form = _form(TITLE)
    assert forms.setter_name(form, TITLE) == "setTitleOnTask"
    assert forms.fill_name(form) == "fillTaskForm"
    assert [tool["name"] for tool in TOOLS.tools(form)] == ["setTitleOnTask", "fillTaskForm"]


def test_no_form_subscription_means_no_fill_tool() -> None:
    # akan.form.fill-tool-from-form-subscription, akan.form.agent-false-withholds-fill-tool
    assert [t["name"] for t in TOOLS.tools(_form(TITLE, subscriptions=0))] == ["setTitleOnTask"]
    assert [t["name"] for t in TOOLS.tools(_form(TITLE, agent=False))] == ["setTitleOnTask"]
    assert TOOLS.tools(None) == []


def test_a_patch_writes_only_its_fields_and_plain_ones_through_the_control() -> None:
    # akan.form.fill-is-a-patch, akan.form.fill-writes-through-control-tool
    writes, refused = TOOLS.fill(_form(TITLE, PHONE, TAGS), {"phone": "01012345678", "tags": ["a"]})
    assert refused is None
    assert writes == {"phone": "010-1234-5678", "tags": ["a"]}


def test_a_patch_naming_an_undrawn_plain_field_is_refused_with_the_drawn_ones() -> None:
    # akan.form.fill-refuses-offscreen-plain-field
    writes, refused = TOOLS.fill(_form(TITLE, HIDDEN), {"estimate": 5})
    assert writes == {} and refused is not None
    assert "estimate" in refused and "setTitleOnTask" not in refused and "title" in refused


def test_relations_base_fields_and_secrets_are_never_written() -> None:
    # akan.form.fill-excludes-relation-base-hidden-secret
    relation = FormField(name="project", kind="relation")
    base = FormField(name="createdAt", kind="base")
    secret = FormField(name="apiNote", flag="secret", control=FormControl())
    form = _form(TITLE, relation, base, secret)
    for field in ("project", "createdAt", "apiNote"):
        assert TOOLS.fill(form, {field: "x"})[1] is not None
    assert [f.name for f in TOOLS.fill_fields(form)] == ["title"]
    assert "setApiNoteOnTask" not in TOOLS.controls(form)


def test_phone_numbers_group_like_the_documented_example() -> None:
    # akan.form.phone-default-transform
    assert forms.format_phone("01012345678") == "010-1234-5678"
    assert forms.format_phone("010 1234 5678") == "010-1234-5678"
    assert forms.format_phone("12") == "12"


def test_transform_is_per_element_and_leaves_null_alone() -> None:
    # akan.form.transform-per-element-and-null
    assert TOOLS.transform(PHONE, ["01012345678", None]) == ["010-1234-5678", None]
    assert TOOLS.transform(PHONE, None) is None
    assert TOOLS.transform(HIDDEN, "raw") == "raw"


@given(value=st.text(max_size=20))
def test_transforms_are_idempotent(value: str) -> None:
    for name in ("upper", "lower", "trim", "phone"):
        field = FormField(name="f", control=FormControl(transform=name))
        once = TOOLS.transform(field, value)
        assert TOOLS.transform(field, once) == once


ROWS = FormField(
    name="emails", kind="rows", value=[], control=FormControl(type="draggable", transform="upper")
)


def test_rows_publish_add_sub_and_a_draggable_publishes_move() -> None:
    # akan.form.embedded-array-add-sub, akan.form.draggable-list-publishes-move
    ops = TOOLS.operations(_form(ROWS, FormField(name="tags", value=["a"], control=FormControl(type="list"))))
    assert {name: op for name, (op, _) in ops.items()} == {
        "setEmailsOnTask": "set", "addEmailsOnTask": "add", "subEmailsOnTask": "sub",
        "moveEmailsOnTask": "move", "setTagsOnTask": "set",
    }


def test_sub_removes_positions_of_the_array_as_it_was() -> None:
    # akan.form.add-sub-take-lists-atomically
    assert TOOLS.apply("sub", ROWS, ["a", "b", "c", "d"], {"positions": [1, 2]}) == (["a", "d"], None)
    assert TOOLS.apply("sub", ROWS, ["a"], {"positions": [3]})[1] is not None
    assert TOOLS.apply("add", ROWS, ["a"], {"rows": ["b", "c"]}) == (["a", "b", "c"], None)


@given(rows=st.lists(st.text(max_size=3), min_size=1, max_size=8), data=st.data())
def test_move_is_a_permutation_and_never_transforms(rows: list[str], data: st.DataObject) -> None:
    # akan.form.move-is-whole-array-write-without-transform
    source = data.draw(st.integers(0, len(rows) - 1))
    target = data.draw(st.integers(0, len(rows) - 1))
    moved, refused = TOOLS.apply("move", ROWS, rows, {"from": source, "to": target})
    assert refused is None
    assert sorted(moved) == sorted(rows) and moved[target] == rows[source]
