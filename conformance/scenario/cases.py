"""Validating a case as an implementation receives it, building only the models of its system.

Why a module of its own. ``conformance.scenario.model`` holds the union of all three systems' scenarios
and cases, so importing it builds every system's pydantic models. The reference's stdio server plays
whatever it is sent, usually one system's cases only; validating a case with its own system's class
(``conformance.scenario.<system>``) means a ``--system falai`` run never imports llmz's or Akan's step
models. A payload whose ``system`` is missing or unknown goes to the union, whose error says so.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from conformance.systems import SYSTEMS

if TYPE_CHECKING:
    from conformance.scenario.akan import AkanCase
    from conformance.scenario.falai import FalaiCase
    from conformance.scenario.llmz import LlmzCase

CASE_CLASSES = {"llmz": "LlmzCase", "falai": "FalaiCase", "akan": "AkanCase"}
"""Each system's case class, in ``conformance.scenario.<system>``."""


def parse_case(data: Any) -> LlmzCase | FalaiCase | AkanCase:
    """Validate what an implementation received (a case, without ``id``), raising ValidationError."""
    system = data.get("system") if isinstance(data, dict) else None
    if isinstance(system, str) and system in SYSTEMS and system in CASE_CLASSES:
        case_class = getattr(importlib.import_module(f"conformance.scenario.{system}"), CASE_CLASSES[system])
        parsed: LlmzCase | FalaiCase | AkanCase = case_class.model_validate(data)
        return parsed
    from conformance.scenario.model import CASE_ADAPTER

    return CASE_ADAPTER.validate_python(data)
