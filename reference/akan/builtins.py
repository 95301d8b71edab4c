"""The five built-in tools: what the model is offered, and the decisions behind navigate and readState.

Every store surface offers the same five tools without app code (akan.builtin.five-on-every-surface), and
there is deliberately no general wait among them (akan.builtin.no-general-wait): waiting belongs to a
screen that knows what it waits for. A page tool declared under a built-in's name replaces it outright
(akan.builtin.hook-tool-shadows-builtin) -- one entry of that name, and calls run the page's tool -- which
is the opposite of slash commands, where the chat's own name always wins.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any


def _params(required: Sequence[str], optional: Sequence[str] = ()) -> dict[str, Any]:
    names = [*required, *optional]
    properties = {name: {"type": "string"} for name in names}
    return {"type": "object", "properties": properties, "required": list(required)}


#: akan.builtin.five-on-every-surface: names, the reference's own descriptions, and parameters.
BUILTIN_TOOLS: tuple[dict[str, Any], ...] = (
    {"name": "navigate", "description": "Go to another page of this app by its path, as a link would.",
     "parameters": _params(["path"])},
    {"name": "goBack", "description": "Return to the page visited before this one in this session.",
     "parameters": _params([])},
    {"name": "readScreen", "description": "Read the page as text; pass `section` to read one named part.",
     "parameters": _params([], ["section"])},
    {"name": "readState", "description": "Read the current value of one store key, by `key`.",
     "parameters": _params(["key"])},
    {"name": "highlight", "description": "Point the user at one named element: scroll to it, then flash it.",
     "parameters": _params(["target"])},
)
BUILTIN_NAMES = frozenset(str(tool["name"]) for tool in BUILTIN_TOOLS)
#: A scheme (``https:``, ``javascript:``) or a protocol-relative ``//host`` leaves the app.
_EXTERNAL = re.compile(r"^([A-Za-z][A-Za-z0-9+.\-]*:|//|\\\\)")


def offered(page_tools: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """The tools a turn declares: the page's own, then each built-in whose name no page tool took."""
    taken = {tool["name"] for tool in page_tools}
    return [*page_tools, *(dict(tool) for tool in BUILTIN_TOOLS if tool["name"] not in taken)]


def is_internal(path: str) -> bool:
    """akan.builtin.navigate-internal-only: an app path starts with one ``/`` and names no other origin.

    The documents leave "internal" open; the reference reads it as a root-relative path, so a relative
    path is refused as well -- the router ``Link`` uses resolves app paths from the root.
    """
    return path.startswith("/") and not _EXTERNAL.match(path)
