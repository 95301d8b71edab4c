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

#: akan.builtin.five-on-every-surface: names and the reference's own descriptions.
BUILTIN_TOOLS: tuple[tuple[str, str], ...] = (
    ("navigate", "Go to another page of this app by its path, as a link on the page would."),
    ("goBack", "Return to the page visited before this one in this session."),
    ("readScreen", "Read the page as text; pass `section` to read one named part of it."),
    ("readState", "Read the current value of one store key, by `key`."),
    ("highlight", "Point the user at one named element by scrolling to it and flashing it."),
)
BUILTIN_NAMES = frozenset(name for name, _ in BUILTIN_TOOLS)
#: A scheme (``https:``, ``javascript:``) or a protocol-relative ``//host`` leaves the app.
_EXTERNAL = re.compile(r"^([A-Za-z][A-Za-z0-9+.\-]*:|//|\\\\)")
MASK = "[masked]"


def offered(page_tools: Sequence[tuple[str, str]]) -> list[dict[str, str]]:
    """The tools a turn declares: the page's own, then each built-in whose name no page tool took."""
    taken = {name for name, _ in page_tools}
    tools = [{"name": name, "description": description} for name, description in page_tools]
    tools += [{"name": n, "description": d} for n, d in BUILTIN_TOOLS if n not in taken]
    return tools


def is_internal(path: str) -> bool:
    """akan.builtin.navigate-internal-only: an app path starts with one ``/`` and names no other origin.

    The documents leave "internal" open; the reference reads it as a root-relative path, so a relative
    path is refused as well -- the router ``Link`` uses resolves app paths from the root.
    """
    return path.startswith("/") and not _EXTERNAL.match(path)


def masked(value: Any, hidden: Sequence[str]) -> Any:
    """akan.builtin.read-state-one-masked-key: fields the key's model masks are replaced, at any depth."""
    if isinstance(value, dict):
        return {k: MASK if k in hidden else masked(v, hidden) for k, v in value.items()}
    if isinstance(value, list):
        return [masked(item, hidden) for item in value]
    return value
