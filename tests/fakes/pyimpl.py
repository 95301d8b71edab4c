"""A ``python:<module>:<factory>`` implementation: ``python:fakes.pyimpl:make``."""

from __future__ import annotations

from typing import Any


class CannotExpress(Exception):
    pass


class FakePython:
    def hello(self) -> dict[str, Any]:
        return {
            "name": "fake-python",
            "version": "1",
            "language": "python",
            "systems": ["llmz", "falai", "akan"],
        }

    def run(self, payload: dict[str, Any]) -> dict[str, Any]:
        description = str(payload.get("description") or "")
        if description.startswith("fake:skip"):
            raise CannotExpress("fake python cannot express this")
        if description.startswith("fake:crash"):
            raise RuntimeError("fake python blew up")
        return {"events": [{"type": "echo", "title": payload["title"]}], "final": {"status": "ok"}}


def make() -> FakePython:
    return FakePython()
