"""Generate the published JSON Schemas from the pydantic models: ``python -m conformance.schemas``.

The models are the single source of truth; the files under ``spec/schema/`` (catalogue, scenario,
traceability, report), ``spec/protocol/`` (the stdio messages and the record envelope) and
``spec/protocol/records/`` (each system's record vocabulary) are what implementations in other languages and
editors read. ``--check`` exits 1 when a committed file differs from what the models
generate; ``tests/test_harness_schemas.py`` runs the same check so stale schemas fail the build.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from conformance import protocol
from conformance.baseline import BASELINE_ADAPTER
from conformance.catalogue.model import RuleFile
from conformance.catalogue.traceability import Traceability
from conformance.paths import PROTOCOL_DIR, REPO_ROOT, SCHEMA_DIR
from conformance.record import Record
from conformance.records import RECORD_MODELS, schema_name
from conformance.records.check import RECORDS_DIR, generated_schema
from conformance.report.model import Report
from conformance.scenario.model import SCENARIO_ADAPTER

DIALECT = "https://json-schema.org/draft/2020-12/schema"


def _model(model: type[BaseModel]) -> Callable[[], dict[str, Any]]:
    return lambda: model.model_json_schema()


#: file name -> (directory, schema factory, title)
TARGETS: dict[str, tuple[Path, Callable[[], dict[str, Any]], str]] = {
    "rule-file.schema.json": (
        SCHEMA_DIR,
        _model(RuleFile),
        "A rule catalogue file, spec/<system>/<area>.yaml",
    ),
    "scenario.schema.json": (
        SCHEMA_DIR,
        SCENARIO_ADAPTER.json_schema,
        "A scenario, fixtures/scenarios/<system>/<area>/<name>.yaml",
    ),
    "traceability.schema.json": (SCHEMA_DIR, _model(Traceability), "build/spec/traceability.json"),
    "report.schema.json": (SCHEMA_DIR, _model(Report), "report.json of a conformance run"),
    "baseline.schema.json": (
        SCHEMA_DIR,
        BASELINE_ADAPTER.json_schema,
        "An expected-failures baseline (--expected-failures FILE), documented in docs/baselines.md",
    ),
    "hello.schema.json": (PROTOCOL_DIR, _model(protocol.HelloCommand), "harness -> implementation: hello"),
    "hello-response.schema.json": (
        PROTOCOL_DIR,
        _model(protocol.HelloResponse),
        "implementation -> harness: answer to hello",
    ),
    "run.schema.json": (
        PROTOCOL_DIR,
        _model(protocol.RunCommand),
        "harness -> implementation: play one scenario",
    ),
    "run-response.schema.json": (
        PROTOCOL_DIR,
        _model(protocol.RunResponse),
        "implementation -> harness: a record, a skip or an error",
    ),
    "stop.schema.json": (PROTOCOL_DIR, _model(protocol.StopCommand), "harness -> implementation: exit"),
    "error-response.schema.json": (
        PROTOCOL_DIR,
        _model(protocol.ErrorResponse),
        "implementation -> harness: a command it could not answer",
    ),
    "record.schema.json": (
        PROTOCOL_DIR,
        _model(Record),
        "The record an implementation returns for one scenario",
    ),
}


def _record_schema(system: str) -> Callable[[], dict[str, Any]]:
    return lambda: generated_schema(system)


for _system in RECORD_MODELS:
    TARGETS[schema_name(_system)] = (
        RECORDS_DIR,
        _record_schema(_system),
        f"The events and final state of one {_system} record (documented in {_system}.md)",
    )


def render(name: str) -> str:
    _, factory, title = TARGETS[name]
    schema = factory()
    schema.pop("title", None)
    document = {"$schema": DIALECT, "$id": name, "title": title, **schema}
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"


def generate() -> dict[Path, str]:
    """Every schema file and the text it should hold."""
    return {directory / name: render(name) for name, (directory, _, _) in TARGETS.items()}


def stale(expected: dict[Path, str] | None = None) -> list[Path]:
    """Files that are missing or differ from what the models generate."""
    expected = generate() if expected is None else expected
    return [
        path
        for path, text in expected.items()
        if not path.exists() or path.read_text(encoding="utf-8") != text
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m conformance.schemas", description=__doc__.splitlines()[0]
    )
    parser.add_argument("--check", action="store_true", help="only report stale files (exit 1 if any)")
    args = parser.parse_args(argv)
    expected = generate()
    outdated = stale(expected)
    if args.check:
        for path in outdated:
            print(f"stale: {path.relative_to(REPO_ROOT)} (run `python -m conformance.schemas`)")
        return 1 if outdated else 0
    for path in outdated:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(expected[path], encoding="utf-8")
        print(f"wrote {path.relative_to(REPO_ROOT)}")
    print(f"{len(expected)} schemas, {len(outdated)} updated")
    return 0


if __name__ == "__main__":
    sys.exit(main())
