"""What the reference's stdio server really sends fits the published protocol schemas in spec/protocol/.

Foreign implementations are written against those files, so they must describe the actual traffic, not
just the pydantic models (the schemas are also checked to be current in test_harness_schemas.py).
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Iterator
from typing import Any

import jsonschema
import pytest
from conftest import every_scenario, minimal_scenario

from conformance.adapters.process import ChildProcess
from conformance.paths import PROTOCOL_DIR
from conformance.scenario.load import LoadedScenario


def schema(name: str) -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads((PROTOCOL_DIR / name).read_text())
    return loaded


@pytest.fixture
def server() -> Iterator[ChildProcess]:
    child = ChildProcess([sys.executable, "-m", "conformance.players.server"])
    yield child
    child.kill()


def exchange(child: ChildProcess, message: dict[str, Any], sent_schema: str) -> dict[str, Any]:
    jsonschema.validate(message, schema(sent_schema))
    child.send(message)
    line = child.receive(time.monotonic() + 30)
    assert line is not None, child.stderr_tail()
    answer: dict[str, Any] = json.loads(line)
    return answer


def test_hello_and_run_answers_fit_the_schemas(server: ChildProcess) -> None:
    hello = exchange(server, {"cmd": "hello", "protocol": [2]}, "hello.schema.json")
    jsonschema.validate(hello, schema("hello-response.schema.json"))
    loaded = next((item for item in every_scenario() if isinstance(item, LoadedScenario)), None)
    payload = loaded.payload if loaded else {"id": "akan/x/y", **minimal_scenario()}
    answer = exchange(server, {"cmd": "run", "seq": 7, "case": payload}, "run.schema.json")
    jsonschema.validate(answer, schema("run-response.schema.json"))
    assert answer["seq"] == 7
    if "record" in answer:
        jsonschema.validate(answer["record"], schema("record.schema.json"))


def test_an_unsupported_version_is_refused_with_an_error_answer(server: ChildProcess) -> None:
    answer = exchange(server, {"cmd": "hello", "protocol": [99]}, "hello.schema.json")
    jsonschema.validate(answer, schema("error-response.schema.json"))


def test_stop_ends_the_server(server: ChildProcess) -> None:
    jsonschema.validate({"cmd": "stop"}, schema("stop.schema.json"))
    server.send({"cmd": "stop"})
    assert server.wait_exit(10) == 0
