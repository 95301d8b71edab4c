"""Mutants of tool declarations and the mounted surface."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
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


class _FractionsAsStrings(Declarations):
    """Only whole numbers make a numeric enum: values with a fraction are published as strings."""

    def scalar_type(self, values: Sequence[Scalar]) -> str:
        kind = super().scalar_type(values)
        return "string" if kind == "number" else kind


class _ChecksFirstArgumentOnly(Declarations):
    """Stops at the first argument without an enum: a later argument's off value reaches the body."""

    def call_refusal(self, tool: PageTool, arguments: dict[str, Any]) -> str | None:
        for index, arg in enumerate(tool.args):
            if (self.arg_schema(arg) or {}).get("enum") is None:
                return super().call_refusal(replace(tool, args=tuple(tool.args[:index])), arguments)
        return super().call_refusal(tool, arguments)


class _LoneRegistrationClashes(Declarations):
    """Warns about every unshared name, registered once or more."""

    def clashes(self, tools: Sequence[PageTool]) -> dict[str, int]:
        counts: dict[str, list[PageTool]] = {}
        for tool in tools:
            if tool.name:
                counts.setdefault(tool.name, []).append(tool)
        return {name: len(regs) for name, regs in counts.items() if not all(t.shared for t in regs)}


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


class _ReadsLatestRender(Declarations):
    """Publishes the values of the latest render instead of the first."""

    def arg_schema(self, arg: ToolArg) -> dict[str, Any] | None:
        if arg.later_one_of is None:
            return super().arg_schema(arg)
        return {"type": "string", "enum": list(arg.later_one_of)}


class _WithdrawsSilently(Declarations):
    def withdrawal_notices(self, tools: Sequence[PageTool]) -> list[str]:
        return []


class _WithdrawalNamesToolOnly(Declarations):
    def withdrawal_notices(self, tools: Sequence[PageTool]) -> list[str]:
        return [notice.split(":")[0] for notice in super().withdrawal_notices(tools)]


class _WithdrawalAbortsRender(Declarations):
    """An undescribable argument aborts the render: no tool of the page is declared at all."""

    def published(self, tools: Sequence[PageTool]) -> dict[str, PageTool]:
        if any(tool.name and self.parameters(tool.args) is None for tool in tools):
            return {}
        return super().published(tools)


class _KeysOutliveReaders(Placement):
    def unmount(
        self,
        tools: Sequence[PageTool],
        keys: Mapping[str, StateKey],
        gone_tools: Sequence[str],
        gone_keys: Sequence[str],
    ) -> tuple[list[PageTool], dict[str, StateKey]]:
        left, _ = super().unmount(tools, keys, gone_tools, gone_keys)
        return left, dict(keys)


class _ToolsOutliveComponents(Placement):
    def unmount(
        self,
        tools: Sequence[PageTool],
        keys: Mapping[str, StateKey],
        gone_tools: Sequence[str],
        gone_keys: Sequence[str],
    ) -> tuple[list[PageTool], dict[str, StateKey]]:
        _, left = super().unmount(tools, keys, gone_tools, gone_keys)
        return list(tools), left


MUTANTS: list[Mutant] = [
    mutant(
        "akan-schema-reads-latest-render",
        "akan.tool.declaration-is-mount-static",
        "a tool's published values follow later renders instead of staying those of the first",
        declarations=_ReadsLatestRender(),
    ),
    mutant(
        "akan-withdrawal-silent",
        "akan.tool.undescribable-arg-console-not-throw",
        "a tool withdrawn over an undescribable argument is not reported on the console",
        declarations=_WithdrawsSilently(),
    ),
    mutant(
        "akan-withdrawal-names-tool-only",
        "akan.tool.undescribable-arg-console-not-throw",
        "the console warning names the withdrawn tool but neither the argument nor its type",
        declarations=_WithdrawalNamesToolOnly(),
    ),
    mutant(
        "akan-withdrawal-aborts-render",
        "akan.tool.undescribable-arg-console-not-throw",
        "an undescribable argument throws during render, so none of the page's tools is declared",
        declarations=_WithdrawalAbortsRender(),
    ),
    mutant(
        "akan-store-actions-published",
        "akan.tool.st-do-alone-reaches-nobody",
        "every store action is offered to the model as a tool of its own",
        publishes_store_actions=True,
    ),
    mutant(
        "akan-callable-not-the-handler",
        "akan.tool.declaration-returns-shared-callable",
        "the callable handed to the button is not the tool's handler: a person's press runs nothing",
        click_runs_handler=False,
    ),
    mutant(
        "akan-stop-cancels-tools",
        "akan.builtin.abort-signal-via-agent-abort",
        "Stop forcibly cancels a running tool, so one ignoring the signal never finishes its work",
        stop_cancels_tools=True,
    ),
    mutant(
        "akan-abort-signal-withheld",
        "akan.builtin.abort-signal-via-agent-abort",
        "AgentAbort.current never carries Stop's signal, so a tool honouring it runs on regardless",
        abort_reaches_tools=False,
    ),
    mutant(
        "akan-no-settle-after-tools",
        "akan.builtin.settle-after-non-query-tools",
        "the session answers a page tool without waiting for the screen its work changes",
        settles_after_tools=False,
    ),
    mutant(
        "akan-navigate-leaves-settle-to-session",
        "akan.builtin.navigate-awaits-screen-settle",
        "navigate returns as soon as the router is pushed; only the session's own after-tool wait follows it",
        navigate_awaits_settle=False,
    ),
    mutant(
        "akan-tool-builder-steps-are-hooks",
        "akan.tool.exec-is-the-only-hook",
        "st.tool and .arg are hooks as well as .exec: a chain built at module scope is an invalid hook call",
        declarations=Declarations(hooks=frozenset({"tool", "arg", "exec"})),
    ),
    mutant(
        "akan-tool-exec-not-a-hook",
        "akan.tool.exec-is-the-only-hook",
        ".exec is a plain registering call, so every render registers the tool once more",
        declarations=Declarations(hooks=frozenset()),
    ),
    mutant(
        "akan-catalogue-fixed-at-open",
        "akan.builtin.catalogue-snapshot-per-turn",
        "the tools offered stay those of the route the chat opened on, whatever the navigation",
        catalogue_follows_route=False,
    ),
    mutant(
        "akan-module-docs-served",
        "akan.guide.abstract-md-never-served",
        "module *.abstract.md docs are sent to the model with the guides",
        serves_module_docs=True,
    ),
    mutant(
        "akan-model-text-localized",
        "akan.state.model-facing-text-english",
        "tool descriptions and guides go through the browser's dictionary before the model sees them",
        model_text=lambda text, dictionary: dictionary.get(text, text),
    ),
    mutant(
        "akan-off-values-run",
        ("akan.tool.enum-of-refuses-off-values", "akan.tool.one-of-render-values"),
        "a value outside an argument's enum reaches the tool body",
        declarations=_OffValuesRun(),
    ),
    mutant(
        "akan-enum-always-string",
        "akan.tool.enum-of-argument",
        "an enum of numbers is published as strings",
        declarations=_EnumAlwaysString(),
    ),
    mutant(
        "akan-enum-fractions-as-strings",
        "akan.tool.enum-of-argument",
        "an enum whose values include a fraction is published as strings, not as numbers",
        declarations=_FractionsAsStrings(),
    ),
    mutant(
        "akan-enum-checked-up-to-plain-argument",
        "akan.tool.enum-of-refuses-off-values",
        "the off-value check stops at the first argument without an enum, so later ones go unchecked",
        declarations=_ChecksFirstArgumentOnly(),
    ),
    mutant(
        "akan-lone-registration-clashes",
        "akan.tool.duplicate-name-warns",
        "a name registered once, unshared, is reported as a clash",
        declarations=_LoneRegistrationClashes(),
    ),
    mutant(
        "akan-every-declaration-published",
        ("akan.tool.falsy-name-declares-without-publishing", "akan.tool.shared-merges-repeats"),
        "every st.tool declaration reaches the model, nameless and repeated ones included",
        declarations=_EveryDeclarationPublished(),
    ),
    mutant(
        "akan-undescribable-published",
        "akan.tool.undescribable-arg-withdraws-tool",
        "a tool with an argument no schema describes is published with an empty schema for it",
        declarations=_DescribesAnything(),
    ),
    mutant(
        "akan-clash-silent",
        "akan.tool.duplicate-name-warns",
        "two unshared registrations of one name go unreported",
        declarations=_ClashSilent(),
    ),
    mutant(
        "akan-keys-outlive-readers",
        "akan.surface.key-readable-while-reader-mounted",
        "a key stays readable after the last component reading it unmounts",
        placement=_KeysOutliveReaders(),
    ),
    mutant(
        "akan-tools-outlive-components",
        "akan.surface.declaration-is-the-surface",
        "a tool stays offered after the component declaring it unmounts",
        placement=_ToolsOutliveComponents(),
    ),
    mutant(
        "akan-store-keys-all-readable",
        "akan.state.unread-sibling-key-unreadable",
        "every key of a store a screen reads is readable, subscribed or not",
        placement=_KeysOutliveReaders(),
    ),
]
