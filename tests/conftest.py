"""Shared test helpers: throwaway scenario trees and the fake implementations in ``tests/fakes``."""

from __future__ import annotations

import sys
import typing
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

from conformance.scenario.model import parse_scenario

pytest_plugins = ["pytester"]

FAKES = Path(__file__).parent / "fakes"
PYTHON = sys.executable


def _step_options(system: str) -> list[dict[str, Any]]:
    """``{"op": tag}`` for every step type of the system (the vocabularies grow; tests must not care)."""
    module = __import__(f"conformance.scenario.{system}", fromlist=["Step"])
    step = module.Step
    while typing.get_origin(step) is typing.Annotated:
        step = typing.get_args(step)[0]
    members = typing.get_args(step) or (step,)
    options: list[dict[str, Any]] = []
    for member in members:
        op = member.model_fields["op"].annotation
        options.extend({"op": tag} for tag in typing.get_args(op))
    return options


def minimal_scenario(**overrides: Any) -> dict[str, Any]:
    """A valid scenario document for any system whose vocabulary has a step with no required fields.

    The harness tests only need *some* scenario the loader accepts; the fakes never read the steps.
    """
    for system in ("akan", "falai", "llmz"):
        for step in _step_options(system):
            document: dict[str, Any] = {
                "system": system,
                "title": "throwaway scenario",
                "rules": [f"{system}.harness.test-rule"],
                "steps": [step],
                "expect": [{"rule": f"{system}.harness.test-rule", "path": "final.status", "equals": "ok"}],
            }
            document.update(overrides)
            try:
                parse_scenario(document)
            except Exception:
                continue
            return document
    raise RuntimeError("no system vocabulary accepts a scenario with a bare step; extend minimal_scenario")


ScenarioTree = Callable[..., Path]


@pytest.fixture
def scenario_tree(tmp_path: Path) -> Callable[[dict[str, Any]], Path]:
    """Write ``{"area/name": document-or-raw-text}`` below a temporary root (system folder from the doc)."""
    root = tmp_path / "scenarios"

    def write(files: dict[str, Any]) -> Path:
        for name, document in files.items():
            system = document.get("system", "akan") if isinstance(document, dict) else name.split("/")[0]
            path = root / system / f"{name}.yaml" if isinstance(document, dict) else root / f"{name}.yaml"
            path.parent.mkdir(parents=True, exist_ok=True)
            text = document if isinstance(document, str) else yaml.safe_dump(document, sort_keys=False)
            path.write_text(text, encoding="utf-8")
        root.mkdir(parents=True, exist_ok=True)
        return root

    return write


def fake_command(name: str, *args: str) -> str:
    """``stdio:`` spec for a fake in tests/fakes."""
    return f"stdio:{PYTHON} {FAKES / name} {' '.join(args)}".rstrip()
