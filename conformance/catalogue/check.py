"""The whole catalogue check behind ``python -m conformance.catalogue`` (``nox -s spec``).

It loads the catalogue and every scenario, then collects every problem: invalid files, duplicate ids,
scenarios naming unknown or excluded rules, an out-of-date id ledger, a traceability report that does not
fit its schema. It also builds the traceability report itself.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

import jsonschema

from conformance.catalogue import ledger, traceability
from conformance.catalogue.load import Catalogue, load_catalogue, schema_problems
from conformance.paths import LEDGER, SCENARIO_ROOT, SPEC_ROOT
from conformance.report.files import write_atomic
from conformance.scenario.load import LoadError, load_all
from conformance.scenario.model import SCENARIO_ADAPTER
from conformance.yamlio import YamlFileError, read_yaml_file


@dataclass
class CheckResult:
    catalogue: Catalogue
    trace: traceability.Traceability
    errors: list[str] = field(default_factory=list)
    ledger_problems: list[str] = field(default_factory=list)


def check(
    spec_root: Path = SPEC_ROOT, scenario_root: Path = SCENARIO_ROOT, ledger_path: Path = LEDGER
) -> CheckResult:
    catalogue = load_catalogue(spec_root)
    errors = list(catalogue.errors)
    scenario_rules: list[tuple[str, list[str]]] = []
    for item in load_all(scenario_root) if scenario_root.exists() else []:
        if isinstance(item, LoadError):
            errors.append(item.message)
        else:
            scenario_rules.append((item.id, list(item.scenario.rules)))
    errors += scenario_schema_problems(scenario_root)
    pins = traceability.pinning(scenario_rules)
    errors += traceability.reference_errors(catalogue, pins)
    errors += traceability.untested_reason_errors(catalogue, pins)
    trace = traceability.build(catalogue, pins)
    errors += trace_schema_problems(trace)
    return CheckResult(catalogue, trace, errors, ledger.differences(catalogue.ids(), ledger_path))


def scenario_schema_problems(scenario_root: Path) -> list[str]:
    """Every scenario file against the scenario JSON Schema (the one non-Python tools validate with).

    The schema is a ``oneOf`` over the three systems; validating against the branch the document's
    ``system`` selects gives errors that name the field, instead of "not valid under any of the schemas".
    """
    if not scenario_root.exists():
        return []
    schema = SCENARIO_ADAPTER.json_schema()
    whole = jsonschema.Draft202012Validator(schema)
    branches = {
        system: jsonschema.Draft202012Validator({"$defs": schema.get("$defs", {}), "$ref": ref})
        for system, ref in schema.get("discriminator", {}).get("mapping", {}).items()
    }
    problems: list[str] = []
    for file in sorted(scenario_root.rglob("*.yaml")):
        try:
            document = read_yaml_file(file)
        except YamlFileError:
            continue  # unreadable YAML: the loader has already reported it
        system = document.get("system") if isinstance(document, dict) else None
        problems += schema_problems(document, branches.get(str(system), whole), file)
    return problems


def trace_schema_problems(trace: traceability.Traceability) -> list[str]:
    schema = traceability.Traceability.model_json_schema()
    validator = jsonschema.Draft202012Validator(schema)
    return [
        f"traceability.json: field {'.'.join(map(str, e.absolute_path)) or '(document)'}: {e.message}"
        for e in validator.iter_errors(trace.model_dump(mode="json"))
    ]


def write_reports(trace: traceability.Traceability, out_dir: Path) -> tuple[Path, Path]:
    out_dir.mkdir(parents=True, exist_ok=True)
    json_path, md_path = out_dir / "traceability.json", out_dir / "traceability.md"
    write_atomic(json_path, json.dumps(trace.model_dump(mode="json"), indent=2) + "\n")
    write_atomic(md_path, traceability.to_markdown(trace))
    return json_path, md_path
