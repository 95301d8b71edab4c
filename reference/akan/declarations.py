"""From ``st.tool`` declarations to the tools a turn offers, and the check a call passes before it runs.

A declaration always works for the person (its callable is what the button calls); whether the model is
offered it is decided here. A declaration is left out when its name is falsy
(akan.tool.falsy-name-declares-without-publishing) or when one of its arguments has a type no JSON Schema
can describe (akan.tool.undescribable-arg-withdraws-tool): a tool the model cannot be told how to call is
withdrawn whole, rather than published with a hole in its schema. Shared repeats are one tool
(akan.tool.shared-merges-repeats). An argument with a fixed set of values publishes them as ``enum`` and
refuses anything else before the tool body runs (akan.tool.enum-of-refuses-off-values). Of the builder's
calls only ``.exec`` is a React hook (akan.tool.exec-is-the-only-hook): the chain before it may be built
anywhere, even once at module scope, and ``.exec`` running again on a re-render is the same component's
declaration again, not a new registration.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from reference.akan.model import PageTool, Scalar, Store, ToolArg

#: Types that map straight onto a JSON Schema type.
SCALAR_TYPES = ("string", "integer", "number", "boolean")


def _same(value: Any, option: Scalar) -> bool:
    """JSON equality: 2 and 2.0 are one number, but neither is "2" nor true."""
    kinds = (isinstance(value, bool), isinstance(value, str))
    return kinds == (isinstance(option, bool), isinstance(option, str)) and bool(value == option)


def model_text(text: str, dictionary: Mapping[str, str]) -> str:
    """Text written for the model (a tool's description, a guide) as the model receives it: as written.

    akan.state.model-facing-text-english: model-facing text is English and never goes through the
    browser's dictionary, even where the dictionary has an entry for the very same text.
    """
    return text


@dataclass(frozen=True)
class Declarations:
    """How declarations become the page's part of a turn's tools, and the check a call passes first.

    ``hooks`` are the builder's calls that are React hooks (akan.tool.exec-is-the-only-hook: ``exec``).
    """

    hooks: frozenset[str] = field(default_factory=lambda: frozenset({"exec"}))

    def render(
        self, registered: Sequence[PageTool], statements: Sequence[PageTool], first: bool
    ) -> tuple[list[PageTool], list[str]]:
        """The registrations after a render of the components holding ``statements``, and console errors.

        akan.tool.exec-is-the-only-hook. A chain built at module scope calls ``st.tool`` and ``.arg``
        outside any render, which is sound because neither is a hook; a builder step that were one would
        be an invalid hook call there, and its tool never declared. On a later render ``.exec`` runs
        again as the same hook of the same component: the registrations stay as they are (a registering
        call that were no hook would add one per render).
        """
        if first:
            outside = sorted(self.hooks - {"exec"})
            kept = [tool for tool in statements if tool.chain == "render" or not outside]
            errors = [
                f"Invalid hook call: st.tool {tool.name!r} calls the hook {outside[0]} outside a component "
                "render; the tool is not declared"
                for tool in statements if tool.chain == "module" and outside
            ]
            return kept, errors
        return (list(registered) if "exec" in self.hooks else [*registered, *statements]), []

    def store_tools(self, stores: Sequence[Store]) -> list[dict[str, Any]]:
        """akan.surface.no-derivation-from-store-class: a store class's methods publish nothing; an action
        reaches the agent only through an ``st.tool`` a component declares around it."""
        return []

    def scalar_type(self, values: Sequence[Scalar]) -> str:
        """akan.tool.enum-of-argument: the enum's schema type follows its values."""
        if values and all(isinstance(v, int) and not isinstance(v, bool) for v in values):
            return "integer"
        if values and all(isinstance(v, int | float) and not isinstance(v, bool) for v in values):
            return "number"
        return "string"

    def arg_schema(self, arg: ToolArg) -> dict[str, Any] | None:
        """The argument's JSON Schema, or None when its type cannot be described."""
        if arg.type == "enumOf":
            values = list(arg.values or [])
            return {"type": self.scalar_type(values), "enum": values}
        if arg.type not in SCALAR_TYPES:
            return None
        schema: dict[str, Any] = {"type": arg.type}
        if arg.one_of is not None:
            schema["enum"] = list(arg.one_of)  # akan.tool.one-of-render-values
        return schema

    def parameters(self, args: Sequence[ToolArg]) -> dict[str, Any] | None:
        """The tool's parameters object; None withdraws the tool (one undescribable argument is enough).

        akan.tool.undescribable-arg-withdraws-tool.
        """
        properties: dict[str, Any] = {}
        for arg in args:
            schema = self.arg_schema(arg)
            if schema is None:
                return None
            properties[arg.name] = schema
        return {"type": "object", "properties": properties, "required": [arg.name for arg in args]}

    def published(self, tools: Sequence[PageTool]) -> dict[str, PageTool]:
        """The declarations the model is offered, by name, in first-declared order, one per name.

        akan.tool.falsy-name-declares-without-publishing. akan.tool.shared-merges-repeats: shared repeats
        are one tool. akan.tool.duplicate-name-warns: of unshared repeats only one stays reachable; the
        documents disagree on which, and the reference keeps the last mounted (the row example's reading).
        """
        offered: dict[str, PageTool] = {}
        for tool in tools:
            if tool.name and self.parameters(tool.args) is not None:
                keep_first = tool.name in offered and tool.shared
                offered[tool.name] = offered[tool.name] if keep_first else tool
        return offered

    def withdrawal_notices(self, tools: Sequence[PageTool]) -> list[str]:
        """Console warnings for the published names withdrawn over an argument no schema describes.

        akan.tool.undescribable-arg-console-not-throw: the warning names the tool, the argument and its
        type; nothing is thrown, so the rest of the page is declared as usual.
        """
        notices: list[str] = []
        for tool in tools:
            undescribable = next((arg for arg in tool.args if self.arg_schema(arg) is None), None)
            if tool.name and undescribable is not None:
                notices.append(
                    f"st.tool {tool.name!r} is not published: argument {undescribable.name!r} has type "
                    f"{undescribable.type}, which no tool schema can describe"
                )
        return notices

    def clashes(self, tools: Sequence[PageTool]) -> dict[str, int]:
        """Names registered more than once without ``shared`` on every registration, with their count.

        akan.tool.duplicate-name-warns: each is warned about; a shared name repeated is not a clash.
        """
        counts: dict[str, list[PageTool]] = {}
        for tool in tools:
            if tool.name:
                counts.setdefault(tool.name, []).append(tool)
        return {
            name: len(regs) for name, regs in counts.items()
            if len(regs) > 1 and not all(t.shared for t in regs)
        }

    def declared(self, tool: PageTool) -> dict[str, Any]:
        """One entry of a turn's ``tools``."""
        return {"name": tool.name, "description": tool.description, "parameters": self.parameters(tool.args)}

    def page_entries(self, tools: Sequence[PageTool]) -> list[dict[str, Any]]:
        """The page's part of a turn's ``tools``: one entry per published name."""
        return [self.declared(tool) for tool in self.published(tools).values()]

    def call_refusal(self, tool: PageTool, arguments: dict[str, Any]) -> str | None:
        """Why a call is refused before the body runs, naming the offending value; None lets it run.

        akan.tool.enum-of-refuses-off-values.
        """
        for arg in tool.args:
            schema = self.arg_schema(arg) or {}
            allowed = schema.get("enum")
            if allowed is None or arg.name not in arguments:
                continue
            value = arguments[arg.name]
            if not any(_same(value, option) for option in allowed):
                shown = ", ".join(str(option) for option in allowed)
                return f"{arg.name} cannot be {value!r}; it must be one of: {shown}"
        return None
