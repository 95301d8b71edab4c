"""Turning pydantic validation errors into lines a scenario or catalogue author can act on.

Each line names the file, the field as a dotted path (``steps.2.op``) and what was expected. The tag
pydantic adds for the system union (``akan.``) is dropped: authors never wrote it.
"""

from __future__ import annotations

from pathlib import Path

from pydantic import ValidationError

from conformance.systems import SYSTEMS

_TAGS = set(SYSTEMS)
_HINTS = {
    "extra_forbidden": "unknown field (a typo? every field is listed in the JSON Schema)",
    "missing": "required field is missing",
}


def field_problems(exc: ValidationError, path: Path) -> list[str]:
    lines = []
    for error in exc.errors():
        loc = list(error["loc"])
        if loc and loc[0] in _TAGS:
            loc = loc[1:]
        location = ".".join(str(part) for part in loc) or "(document)"
        hint = _HINTS.get(error["type"])
        message = f"{error['msg']}: {hint}" if hint else error["msg"]
        lines.append(f"{path}: field {location}: {message}")
    return lines
