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
from dataclasses import dataclass
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
#: akan.builtin.settle-after-non-query-tools: the built-ins that only read, so the session does not wait for
#: the screen after them (the documents do not say how a tool is marked `query`).
QUERY_BUILTINS = frozenset({"readScreen", "readState"})
#: A scheme (``https:``, ``javascript:``) or a protocol-relative ``//host`` leaves the app.
_EXTERNAL = re.compile(r"^([A-Za-z][A-Za-z0-9+.\-]*:|//|\\\\)")


#: akan.builtin.max-turns-bound: the reference's maxTurns when the app sets none (the documents give no
#: default); a script normally runs out long before.
DEFAULT_MAX_TURNS = 100
#: Who answers a call, in order (akan.builtin.hook-tool-shadows-builtin: the page's declaration first).
CALL_ORDER = ("page", "form", "ui", "local", "builtin")


def max_turns(configured: int | None) -> int:
    """akan.builtin.max-turns-bound: model requests one loop may post."""
    return configured or DEFAULT_MAX_TURNS


def is_internal(path: str) -> bool:
    """akan.builtin.navigate-internal-only: an app path starts with one ``/`` and names no other origin.

    The documents leave "internal" open; the reference reads it as a root-relative path, so a relative
    path is refused as well -- the router ``Link`` uses resolves app paths from the root.
    """
    return path.startswith("/") and not _EXTERNAL.match(path)


@dataclass(frozen=True)
class Builtins:
    """The built-in tools on offer, who answers a call first, and the decisions behind navigation.

    ``call_order`` names who answers a call by name, first to last: the page's own declarations, a form
    control's tool, an ``akanjs/ui`` component's, a local-state setter, then a built-in. ``queries`` are
    the built-ins the session does not wait for the screen after (akan.builtin.settle-after-non-query-tools;
    the documents do not say how a tool is marked `query`, and the reference counts the two that only read).
    """

    tools: tuple[dict[str, Any], ...] = BUILTIN_TOOLS
    call_order: tuple[str, ...] = CALL_ORDER
    queries: frozenset[str] = QUERY_BUILTINS

    def offered(self, page_tools: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
        """The tools a turn declares: the page's own, then each built-in whose name no page tool took.

        akan.builtin.five-on-every-surface, akan.builtin.hook-tool-shadows-builtin,
        akan.builtin.no-general-wait.
        """
        taken = {tool["name"] for tool in page_tools}
        return [*page_tools, *(dict(tool) for tool in self.tools if tool["name"] not in taken)]

    def is_internal(self, path: str) -> bool:
        """Whether ``navigate`` may go to ``path`` (akan.builtin.navigate-internal-only)."""
        return is_internal(path)

    def go_back(self, history: Sequence[str]) -> tuple[list[str], dict[str, Any]]:
        """``goBack``: the history left and the answer.

        akan.builtin.go-back-session-history-everywhere: this session's own history, on any page; at its
        first page there is nowhere to go, which the reference answers as an error.
        """
        if len(history) < 2:
            return list(history), {"error": "there is no earlier page in this session"}
        left = list(history[:-1])
        return left, {"route": left[-1]}
