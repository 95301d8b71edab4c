"""``{{input.x}}`` / ``{{data.x}}`` / ``{{context.x}}`` substitution in say, prompt and with."""

from __future__ import annotations

import re
from typing import Any

from reference.falai.conditions import Scope

_PLACEHOLDER = re.compile(r"\{\{\s*([A-Za-z_][A-Za-z0-9_.\-]*)\s*\}\}")


def render(text: str, scope: Scope) -> str:
    """Replace each placeholder with its value; a missing value renders as an empty string."""

    def value(match: re.Match[str]) -> str:
        found = scope.lookup(match.group(1))
        return "" if found is None or not isinstance(found, str | int | float | bool) else str(found)

    return _PLACEHOLDER.sub(value, text)


def render_all(value: Any, scope: Scope) -> Any:
    """Render every string inside a JSON-like value (for a ``do`` step's ``with``)."""
    if isinstance(value, str):
        return render(value, scope)
    if isinstance(value, dict):
        return {k: render_all(v, scope) for k, v in value.items()}
    if isinstance(value, list):
        return [render_all(v, scope) for v in value]
    return value
