"""From --impl specs to adapters: the built-in forms, presets, mutants and clear errors."""

from __future__ import annotations

from typing import Any

import pytest

from conformance.adapters import registry
from conformance.adapters.base import AdapterError, Outcome
from conformance.adapters.python_factory import PythonAdapter
from conformance.adapters.reference import ReferenceAdapter
from conformance.adapters.stdio import StdioAdapter
from conformance.protocol import ImplementationInfo
from variants import all_mutants


def test_built_in_forms() -> None:
    assert isinstance(registry.create("reference"), ReferenceAdapter)
    assert isinstance(registry.create("stdio:python -m conformance.players.server"), StdioAdapter)
    adapter = registry.create("python:fakes.pyimpl:make")
    assert isinstance(adapter, PythonAdapter) and adapter.hello().name == "fake-python"


def test_unknown_specs_list_the_accepted_forms() -> None:
    with pytest.raises(AdapterError, match=r"stdio:<command>.*python:<module>:<factory>"):
        registry.create("nonsense")
    with pytest.raises(AdapterError, match="unknown mutant or permitted variant 'no-such'"):
        registry.create("reference[no-such]")
    with pytest.raises(AdapterError, match="module>:<factory"):
        registry.create("python:justamodule")


def test_a_registered_preset_is_created_by_name(monkeypatch: pytest.MonkeyPatch) -> None:
    class Preset:
        def hello(self) -> ImplementationInfo:
            return ImplementationInfo(name="preset", version="1", language="x", systems=["llmz"])

        def run(self, payload: dict[str, Any], timeout: float) -> Outcome:
            return Outcome(skip="preset")

        def close(self) -> None:
            return None

    # The shipped presets register on first use, by importing their packages: let that happen against the
    # real table first, so this test's private table does not swallow them for the tests after it.
    monkeypatch.setattr(registry, "_PRESETS", dict(registry.presets()))
    registry.register_preset("my-preset", Preset)
    assert registry.create("my-preset").hello().name == "preset"
    assert "my-preset" in registry.presets()


def test_mutants_run_as_reference_variants() -> None:
    mutants = all_mutants()
    if not mutants:
        pytest.skip("no mutants registered yet")
    name = sorted(mutants)[0]
    assert registry.create(f"reference[{name}]").hello().name == f"reference[{name}]"


def test_display_names_are_safe_directory_names() -> None:
    assert registry.display_name("stdio:node bridge.mjs --x") == "stdio-node-bridge.mjs-x"
    assert registry.display_name("reference[drop-floor]") == "reference-drop-floor"
    assert "/" not in registry.display_name("stdio:/usr/bin/impl")


def test_the_python_adapter_turns_a_hang_into_a_timeout() -> None:
    class Hangs:
        def hello(self) -> dict[str, Any]:
            return {"name": "h", "version": "1", "language": "python", "systems": ["llmz"]}

        def run(self, payload: dict[str, Any]) -> dict[str, Any]:
            import time

            time.sleep(5)
            return {"events": []}

    adapter = PythonAdapter(Hangs())
    outcome = adapter.run({"id": "x"}, timeout=0.2)
    assert outcome.error is not None and "timeout" in outcome.error
    assert "hung" in (adapter.run({"id": "y"}, timeout=0.2).error or "")


def test_shipped_preset_packages_register_themselves() -> None:
    from conformance.paths import REPO_ROOT

    if not (REPO_ROOT / "conformance" / "adapters" / "llmz_node" / "__init__.py").exists():
        pytest.skip("the llmz-node bridge package is not in this tree")
    assert "llmz-node" in registry.presets()
