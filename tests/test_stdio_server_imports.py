"""What the reference's stdio server loads, and when: a run over stdio starts one such child per run (and
one more after every crash), so what it imports before it can answer is paid again by every run.

Checked structurally, on the child's ``sys.modules`` at exit (speed itself is the bench's business):
greeting loads no scenario model, no pydantic and no reference; a case of one system loads that system's
player and reference only; pydantic's plugin discovery (``importlib.metadata``) is skipped unless the
user asked pydantic for plugins; and the collector, off while the first case builds the start-up heap,
is on again once that case is answered.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from typing import Any

PROBE = """
import atexit, gc, json, runpy, sys

def report():
    sys.stderr.write("\\nPROBE " + json.dumps({"modules": sorted(sys.modules), "gc": gc.isenabled()}) + "\\n")

atexit.register(report)
sys.argv = ["conformance.players.server"]
runpy.run_module("conformance.players.server", run_name="__main__", alter_sys=True)
"""

HELLO = {"cmd": "hello", "protocol": [2]}
FALAI_CASE = {
    "id": "falai/probe/one-message",
    "system": "falai",
    "steps": [{"op": "message", "id": "m1", "text": "hi"}],
}


def served(*messages: dict[str, Any], env: dict[str, str] | None = None) -> tuple[list[Any], dict[str, Any]]:
    """The server's answers to ``messages`` (then stop), and what the probe saw at its exit."""
    lines = "".join(json.dumps(m) + "\n" for m in (*messages, {"cmd": "stop"}))
    done = subprocess.run(
        [sys.executable, "-c", PROBE], input=lines, capture_output=True, text=True, check=True, env=env
    )
    probe = next(line for line in done.stderr.splitlines() if line.startswith("PROBE "))
    answers = [json.loads(line) for line in done.stdout.splitlines() if line.strip()]
    seen: dict[str, Any] = json.loads(probe[len("PROBE ") :])
    return answers, seen


def loaded(seen: dict[str, Any], prefix: str) -> list[str]:
    return [name for name in seen["modules"] if name == prefix or name.startswith(prefix + ".")]


def test_a_greeting_loads_no_models_and_no_reference() -> None:
    answers, seen = served(HELLO)
    assert answers[0]["protocol"] == 2
    # A package's submodule cannot be imported without the package (only the server's stand-in for
    # pydantic's plugin loader is put in sys.modules directly), so the packages themselves are checked.
    for heavy in (
        "pydantic",
        "pydantic_core",
        "reference",
        "conformance.scenario",
        "importlib.metadata",
        "argparse",
    ):
        assert heavy not in seen["modules"], f"{heavy} imported by a server that was only greeted"


def test_a_case_loads_its_own_system_only_and_skips_plugin_discovery() -> None:
    answers, seen = served(HELLO, {"cmd": "run", "seq": 1, "case": FALAI_CASE})
    assert answers[1]["seq"] == 1 and "record" in answers[1], answers[1]
    assert loaded(seen, "reference.falai") and loaded(seen, "conformance.scenario.falai")
    for other in (
        "reference.akan",
        "reference.llmz",
        "conformance.scenario.akan",
        "conformance.scenario.llmz",
    ):
        assert not loaded(seen, other), f"a falai case imported {other}"
    assert not loaded(seen, "importlib.metadata"), "pydantic's plugin discovery ran"
    assert not loaded(seen, "argparse")
    assert seen["gc"] is True, "the collector stayed off after the first case"


def test_a_user_who_configures_pydantic_plugins_gets_pydantic_own_discovery() -> None:
    env = {**os.environ, "PYDANTIC_DISABLE_PLUGINS": "some-plugin"}
    answers, seen = served(HELLO, {"cmd": "run", "seq": 1, "case": FALAI_CASE}, env=env)
    assert "record" in answers[1], answers[1]
    assert loaded(seen, "importlib.metadata"), (
        "the server replaced pydantic's loader against the user's setting"
    )


def test_an_akan_case_without_setup_gets_the_validated_default() -> None:
    """AkanCase builds its default setup unvalidated (``Setup.model_construct``, so that no server builds
    Setup's own validator for it): it must be the very value validation gives."""
    from conformance.scenario.akan import AkanCase, Setup

    case = AkanCase.model_validate({"system": "akan", "steps": [{"op": "send", "text": "hi"}]})
    validated = Setup.model_validate({})
    assert case.setup == validated and case.setup.model_dump() == validated.model_dump()
    assert case.setup.model_fields_set == validated.model_fields_set == set()


STUB_FALLBACK = """
import sys
from conformance.players import server

server.skip_pydantic_plugin_discovery()
stub = sys.modules["pydantic.plugin._loader"]
assert stub.get_plugins() == ()
assert not hasattr(stub, "__path__")
try:
    stub.a_name_only_a_future_pydantic_would_ask_for
except AttributeError:
    pass
real = sys.modules["pydantic.plugin._loader"]
print(real is not stub and hasattr(real, "__file__"))
"""


def test_anything_but_get_plugins_asked_of_the_stand_in_comes_from_pydantic_own_loader() -> None:
    """A pydantic whose loader changed must cost the server its saving, never a broken validator: any other
    name brings in (and installs) the real module."""
    env = {k: v for k, v in os.environ.items() if k != "PYDANTIC_DISABLE_PLUGINS"}
    done = subprocess.run([sys.executable, "-c", STUB_FALLBACK], capture_output=True, text=True, env=env)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "True", done.stdout
