"""Mutants of tool declarations and the mounted surface."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any
from unittest import mock

from reference.akan import (
    declarations,
)
from reference.akan.page import Page
from reference.akan.session import ChatSession
from reference.mutants import Mutant

_arg_schema = declarations.arg_schema


def _every_declaration(tools: Sequence[Any]) -> list[dict[str, Any]]:
    """One entry per declaration: falsy names, undescribable arguments and shared repeats included."""
    return [{"name": t.name, "description": t.description, "parameters": {}} for t in tools]


def _describe_anything(arg: Any) -> dict[str, Any] | None:
    return _arg_schema(arg) or {}




MUTANTS: list[Mutant] = [
    Mutant(
        "akan-off-values-run",
        ("akan.tool.enum-of-refuses-off-values", "akan.tool.one-of-render-values"),
        lambda: mock.patch("reference.akan.session.call_refusal", lambda tool, arguments: None),
        "a value outside an argument's enum reaches the tool body",
    ),
    Mutant(
        "akan-enum-always-string",
        ("akan.tool.enum-of-argument",),
        lambda: mock.patch.object(declarations, "scalar_type", lambda values: "string"),
        "an enum of numbers is published as strings",
    ),
    Mutant(
        "akan-every-declaration-published",
        ("akan.tool.falsy-name-declares-without-publishing", "akan.tool.shared-merges-repeats"),
        lambda: mock.patch("reference.akan.session.page_entries", _every_declaration),
        "every st.tool declaration reaches the model, nameless and repeated ones included",
    ),
    Mutant(
        "akan-undescribable-published",
        ("akan.tool.undescribable-arg-withdraws-tool",),
        lambda: mock.patch.object(declarations, "arg_schema", _describe_anything),
        "a tool with an argument no schema describes is published with an empty schema for it",
    ),
]


def _unmount_keys_only(self: ChatSession, tools: list[str], state: list[str]) -> None:
    self.page.unmount_readers(state)


MUTANTS += [
    Mutant(
        "akan-clash-silent",
        ("akan.tool.duplicate-name-warns",),
        lambda: mock.patch("reference.akan.session.clashes", lambda tools: {}),
        "two unshared registrations of one name go unreported",
    ),
    Mutant(
        "akan-keys-outlive-readers",
        ("akan.surface.key-readable-while-reader-mounted",),
        lambda: mock.patch.object(Page, "unmount_readers", lambda self, keys: None),
        "a key stays readable after the last component reading it unmounts",
    ),
    Mutant(
        "akan-tools-outlive-components",
        ("akan.surface.declaration-is-the-surface",),
        lambda: mock.patch.object(ChatSession, "unmount", _unmount_keys_only),
        "a tool stays offered after the component declaring it unmounts",
    ),
]

MUTANTS += [
    Mutant(
        "akan-store-keys-all-readable",
        ("akan.state.unread-sibling-key-unreadable",),
        lambda: mock.patch.object(Page, "unmount_readers", lambda self, keys: None),
        "every key of a store a screen reads is readable, subscribed or not",
    ),
]
