"""Shared test helpers: throwaway scenario trees and the fake implementations in ``tests/fakes``."""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import json
import sys
import typing
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, settings

from conformance.adapters.reference import ReferenceAdapter
from conformance.catalogue.load import Catalogue, load_catalogue
from conformance.protocol import ImplementationInfo
from conformance.runner import CaseResult, run_case
from conformance.scenario.load import LoadedScenario, LoadError, _fresh, load_all
from conformance.scenario.model import parse_scenario

pytest_plugins = ["pytester"]

# Speed is the benchmarks' business, never the tests' (no timed assertions): hypothesis's per-example
# deadline and its "input generation is slow" health check only measure how loaded the machine is, and
# both failed property tests on a busy two-core machine that passed alone. Tests that set their own
# settings keep them; everything else inherits this profile.
settings.register_profile(
    "project", deadline=None, suppress_health_check=[HealthCheck.too_slow], print_blob=True
)
settings.load_profile("project")

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


def copy_of_the_tree(into: Path) -> Path:
    """The clone's tracked and unignored files, as a fresh clone would have them (no .venv, .nox, build)."""
    import shutil
    import subprocess

    root = Path(__file__).resolve().parents[1]
    listed = subprocess.run(
        ["git", "ls-files", "-co", "--exclude-standard", "-z"], cwd=root, capture_output=True, check=True
    ).stdout.decode()
    for name in filter(None, listed.split("\0")):
        source = root / name
        if source.is_file():
            (into / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, into / name)
    return into


#: Under ``pytest -n 3 --dist loadgroup`` (``nox -s tests``), the tests that take longest, in the order
#: they should start: xdist hands out one work unit at a time, so starting the long ones first lets the
#: workers finish together instead of one waiting on a long test that started last. Node id prefixes;
#: measured with ``--durations`` (the llmz bridge suite, the packaging round trip, every mutant, the
#: permitted variants of llmz, then the rest of the minute-scale tests).
START_FIRST = (
    "tests/test_llmz_node.py::test_the_suite_against_llmz_1_0_1_matches_its_baseline",
    "tests/test_doc_commands.py",
    "tests/test_packaging.py",
    "tests/test_spec_changes_doc.py::test_every_command_on_the_page_runs_as_written",
    "tests/test_conformance_reference.py",
    "tests/test_permitted_variants.py",
    "tests/test_reliability_scenarios.py",
    "tests/test_reliability_twins.py::test_a_hostile_twin_answer_decides_the_case_naming_the_twin",
    "tests/test_reliability_stdio.py::test_records_are_not_kept_so_memory_stays_under_its_cap",
    "tests/test_mutation_tool.py::test_two_sampled_mutants_run_end_to_end_in_a_copy_of_the_tree",
    "tests/test_harness_plugin.py::test_xdist_runs_the_suite_in_workers",
    "tests/test_harness_bench.py",
    "tests/test_llmz_mutants.py::test_unmutated_reference_passes_the_cases_pinning_mutant_rules",
    "tests/test_reliability_fuzz.py",
    "tests/test_reliability_files.py::test_a_reader_polling_during_100_rewrites_never_sees_broken_json",
    "tests/test_llmz_node.py::test_tokenizer_caches_give_js_tiktokens_answers",
    "tests/test_record_schemas.py::test_the_published_schema_works_with_any_validator",
)

#: Modules whose tests share an expensive module-scoped fixture (two whole runs of the suite, a built and
#: installed wheel, the plain-reference runs the permitted variants share, one stdio run of every hostile
#: scenario, one headless Chromium for the report's filters, one run of every hostile twin answer and one of
#: every hostile record): one work unit each under ``--dist loadgroup``,
#: so one worker builds it once (split over several workers, each built its own copy).
ONE_WORKER = {
    "tests/test_conformance_reference.py": "reference-runs",
    "tests/test_golden.py": "reference-runs",
    "tests/test_llmz_mutants.py": "reference-runs",
    "tests/test_packaging.py": "packaging",
    "tests/test_doc_commands.py": "doc-commands",
    "tests/test_permitted_variants.py": "permitted-variants",
    "tests/test_reliability_scenarios.py": "hostile-over-stdio",
    "tests/test_report_html.py": "report-html",
    "tests/test_reliability_twins.py": "hostile-twins",
    "tests/test_reliability_records.py": "hostile-records",
}
"""Module -> work unit. The golden transcripts and the llmz mutants' unmutated check share their unit with
the whole-suite test: they all take the in-process reference's result of each scenario from
``in_process_result``, which plays it once per worker."""


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Move the tests in START_FIRST to the front, in that order (stable: everything else keeps pytest's
    order). Without xdist the order costs nothing either way."""

    def rank(item: pytest.Item) -> int:
        starts = (i for i, prefix in enumerate(START_FIRST) if item.nodeid.startswith(prefix))
        return next(starts, len(START_FIRST))

    items.sort(key=rank)


try:
    from xdist.scheduler import LoadGroupScheduling  # type: ignore[import-untyped]
except ImportError:  # pragma: no cover - xdist is a dev dependency; without it nothing is distributed
    pass
else:

    class OneWorkerScheduling(LoadGroupScheduling):  # type: ignore[misc]
        """``--dist loadgroup`` with the ONE_WORKER modules as groups, read from the node ids.

        Why not ``xdist_group`` marks: xdist 3.8 passes a mark's group to the scheduler by appending it to
        the test's node id, and from pytest 9.2 on that change no longer sticks (the id is structured), so
        the marks silently stopped grouping anything (pytest-dev/pytest-xdist#1386) and every worker
        built each shared fixture again. The module is in the node id on every version."""

        def _split_scope(self, nodeid: str) -> str:
            module = nodeid.split("::", 1)[0]
            return ONE_WORKER.get(module) or str(super()._split_scope(nodeid))

    @pytest.hookimpl(optionalhook=True)
    def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
        return OneWorkerScheduling(config, log) if config.getvalue("dist") == "loadgroup" else None


@functools.cache
def _scenarios_as_loaded() -> tuple[LoadedScenario | LoadError, ...]:
    return tuple(load_all())


def every_scenario() -> tuple[LoadedScenario | LoadError, ...]:
    """Every scenario file under fixtures/scenarios, as ``load_all()`` gives them, parsed once per process.

    Why. A dozen test modules loaded all 360 files again, most of them while being collected, and every
    xdist worker collects every module: about 1.3 s of each worker's start and more at run time. Each call
    still hands out its own copy of every scenario document (a deep copy costs a twentieth of parsing),
    so what one caller's plays do to a document cannot reach another caller: a mutant that breaks
    onInspect's isolation changes the tool result it was given, which is the scenario document's
    ``returns`` (llmz/inspection/on-inspect-mutation-isolated). The parsed models are shared and read
    only. The tests of loading itself (fast paths, damaged files, ``-k``) still call the loader.

    The copy is the loader's own (``_fresh``: containers rebuilt, immutable scalars shared, anything else
    deep-copied), the walk ``LoadedScenario.payload`` makes for each read; ``copy.deepcopy`` gave the same
    documents at three times the cost, about a second of each worker's collection."""
    return tuple(
        dataclasses.replace(item, document=_fresh(item.document))
        if isinstance(item, LoadedScenario)
        else item
        for item in _scenarios_as_loaded()
    )


@functools.cache
def the_catalogue() -> Catalogue:
    """The committed catalogue, once per process, for the tests that only read its rules (callers must not
    change it). Without the JSON Schema pass over the rule files (most of the loading time), as a suite run
    loads it: the catalogue's own test (test_catalogue, through ``conformance.catalogue.check``) loads it
    with that pass and fails on any problem it finds, so doing it again here proved nothing new."""
    return load_catalogue(schema_check=False)


_IN_PROCESS: dict[str, CaseResult] = {}
_REFERENCE: list[tuple[ReferenceAdapter, ImplementationInfo]] = []


def in_process_result(item: LoadedScenario | LoadError) -> CaseResult:
    """The in-process reference's result (verdict and record) for one scenario, played once per process
    and shared by the tests that need it: the whole suite in-process (test_conformance_reference) and the
    golden transcripts (test_golden) each played every scenario again, for the same record (the in-process
    reference is deterministic and enforces no timeout: the goldens rest on it). Keyed by the scenario's
    id and content, so two different scenarios never share a result. Callers must not change it."""
    if not _REFERENCE:
        adapter = ReferenceAdapter()
        _REFERENCE.append((adapter, adapter.hello()))
    adapter, info = _REFERENCE[0]
    content = item.payload if isinstance(item, LoadedScenario) else item.message
    key = item.id + "\0" + hashlib.sha256(json.dumps(content, sort_keys=True).encode()).hexdigest()
    if key not in _IN_PROCESS:
        _IN_PROCESS[key] = run_case(adapter, info, item)
    return _IN_PROCESS[key]


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
