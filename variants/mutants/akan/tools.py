"""Mutants of tool declarations and the mounted surface."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from reference.akan.declarations import Declarations
from reference.akan.model import PageTool, Scalar, StateKey, ToolArg
from reference.akan.placement import Placement
from variants import Mutant
from variants.mutants.akan.common import mutant


class _OffValuesRun(Declarations):
    def call_refusal(self, tool: PageTool, arguments: dict[str, Any]) -> str | None:
        return None


class _EnumAlwaysString(Declarations):
    def scalar_type(self, values: Sequence[Scalar]) -> str:
        return "string"


class _EveryDeclarationPublished(Declarations):
    """One entry per declaration: falsy names, undescribable arguments and shared repeats included."""

    def page_entries(self, tools: Sequence[PageTool]) -> list[dict[str, Any]]:
        return [{"name": t.name, "description": t.description, "parameters": {}} for t in tools]


class _DescribesAnything(Declarations):
    def arg_schema(self, arg: ToolArg) -> dict[str, Any] | None:
        return super().arg_schema(arg) or {}


class _ClashSilent(Declarations):
    def clashes(self, tools: Sequence[PageTool]) -> dict[str, int]:
        return {}


class _KeysOutliveReaders(Placement):
    def unmount(
        self, tools: Sequence[PageTool], keys: Mapping[str, StateKey], gone_tools: Sequence[str],
        gone_keys: Sequence[str],
    ) -> tuple[list[PageTool], dict[str, StateKey]]:
        left, _ = super().unmount(tools, keys, gone_tools, gone_keys)
        return left, dict(keys)


class _ToolsOutliveComponents(Placement):
    def unmount(
        self, tools: Sequence[PageTool], keys: Mapping[str, StateKey], gone_tools: Sequence[str],
        gone_keys: Sequence[str],
    ) -> tuple[list[PageTool], dict[str, StateKey]]:
        _, left = super().unmount(tools, keys, gone_tools, gone_keys)
        return list(tools), left


MUTANTS: list[Mutant] = [
    mutant("akan-off-values-run", ("akan.tool.enum-of-refuses-off-values", "akan.tool.one-of-render-values"),
           "a value outside an argument's enum reaches the tool body", declarations=_OffValuesRun()),
    mutant("akan-enum-always-string", "akan.tool.enum-of-argument",
           "an enum of numbers is published as strings", declarations=_EnumAlwaysString()),
    mutant("akan-every-declaration-published",
           ("akan.tool.falsy-name-declares-without-publishing", "akan.tool.shared-merges-repeats"),
           "every st.tool declaration reaches the model, nameless and repeated ones included",
           declarations=_EveryDeclarationPublished()),
    mutant("akan-undescribable-published", "akan.tool.undescribable-arg-withdraws-tool",
           "a tool with an argument no schema describes is published with an empty schema for it",
           declarations=_DescribesAnything()),
    mutant("akan-clash-silent", "akan.tool.duplicate-name-warns",
           "two unshared registrations of one name go unreported", declarations=_ClashSilent()),
    mutant("akan-keys-outlive-readers", "akan.surface.key-readable-while-reader-mounted",
           "a key stays readable after the last component reading it unmounts",
           placement=_KeysOutliveReaders()),
    mutant("akan-tools-outlive-components", "akan.surface.declaration-is-the-surface",
           "a tool stays offered after the component declaring it unmounts",
           placement=_ToolsOutliveComponents()),
    mutant("akan-store-keys-all-readable", "akan.state.unread-sibling-key-unreadable",
           "every key of a store a screen reads is readable, subscribed or not",
           placement=_KeysOutliveReaders()),
]
