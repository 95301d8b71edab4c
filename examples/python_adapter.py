"""A Python implementation under test, in the shape ``--impl python:<module>:<factory>`` asks for.

Run from the clone's top folder (the current folder is importable)::

    python3 bootstrap.py -s conformance -- --impl python:examples.python_adapter:create --system falai

It hands every case to the reference simulator, so it passes; a real adapter puts its own runtime where
``play`` is called, builds the record from what that runtime did, and raises an exception class named
``CannotExpress`` to skip a case it cannot express (docs/testing-your-runtime.md, "A Python
implementation").
"""

from __future__ import annotations

from typing import Any

from conformance.players import hello_info, play


class ExampleRuntime:
    def hello(self) -> dict[str, Any]:
        """Name, version, language, systems and capability flags, as the protocol's hello answers them."""
        return {**hello_info(), "name": "example-python-adapter", "version": "0.1.0"}

    def run(self, case: dict[str, Any]) -> dict[str, Any]:
        """One case in (id, system, requires, setup, script, steps), its record out."""
        return play(case)


def create() -> ExampleRuntime:
    return ExampleRuntime()
