"""What the model is told: the system message and the single native tool, ``run_javascript``.

The host API (tools, exits and, in chat mode, components) is described inside ``run_javascript``'s
declaration with each item's JSON Schema, so a request always declares exactly one native tool.
"""

from __future__ import annotations

import json
from typing import Any

from reference.llmz.config import RunConfig

TOOL_NAME = "run_javascript"

WORKER_GUIDANCE = (
    "You are running as a worker. Reply to every turn with exactly one run_javascript call and no "
    "assistant text at all, including when recovering from errors and when finishing. Never write an "
    'introduction, a status remark or a confirmation (not even "Done."): show values with inspect() '
    "and finish only by calling exit(name, payload) with one of the exits listed in the run_javascript "
    "declaration."
)
"""llmz.memory.worker-prompt-no-chatter: a worker is told to write nothing beside its program."""

CHAT_GUIDANCE = (
    "You are talking with a user. Say things to the user as plain assistant text, or send rich messages "
    "from JavaScript with chat.<component>(props). Use run_javascript to call tools. When you have "
    'answered and want the user to speak next, call exit("listen").'
)


def system_prompt(instructions: str, guidance: str) -> str:
    """The system message: the host's instructions, then the mode's guidance."""
    return f"{instructions}\n\n{guidance}" if instructions else guidance


def _schema(schema: dict[str, Any] | None) -> str:
    return json.dumps(schema, sort_keys=True) if schema is not None else "(no payload)"


def api_description(config: RunConfig) -> str:
    lines = [
        "Runs a JavaScript program in a sandbox. The code is the body of an async function: use await "
        "and return. inspect(value) shows you a preview of a value in the next turn.",
        "",
        "Tools (async functions):",
    ]
    for tool in config.tools.values():
        output = f" -> {_schema(tool.output)}" if tool.output is not None else ""
        lines.append(f"- {tool.name}(input: {_schema(tool.input)}){output} {tool.description}".rstrip())
    if config.objects:
        lines.append("Objects (globals with host-backed properties):")
        for obj in config.objects:
            for prop in obj.properties:
                access = "read/write" if prop.writable else "read-only"
                lines.append(f"- {obj.name}.{prop.name} ({access}): {_schema(prop.schema)}")
    lines.append("Exits (call exit(name, payload) to finish):")
    for definition in config.exits.values():
        signature = f'exit("{definition.name}", payload: {_schema(definition.schema)})'
        lines.append(f"- {signature} {definition.description}".rstrip())
    if config.chat:
        lines.append("Components (send with chat.<name>(props)):")
        for component in config.components.values():
            lines.append(
                f"- chat.{component.name}(props: {_schema(component.props)}) {component.description}".rstrip()
            )
    return "\n".join(lines)


def tools(description: str) -> list[dict[str, Any]]:
    """The one native tool, its description carrying the host API."""
    return [
        {
            "name": TOOL_NAME,
            "description": description,
            "input_schema": {
                "type": "object",
                "properties": {"code": {"type": "string", "description": "The JavaScript program."}},
                "required": ["code"],
            },
        }
    ]


def tool_choice(config: RunConfig) -> dict[str, Any]:
    """Workers must call the tool every turn; chat may answer in plain text."""
    return {"type": "auto"} if config.chat else {"type": "required", "name": TOOL_NAME}
