"""Running the suite: scenarios in, one verdict per scenario out.

Theory of operation. The runner loads every scenario file (a file that fails to load becomes an ``error``
verdict and the rest still run), keeps those selected by system and keyword, and plays each through the
adapter. Before playing, a case whose system the implementation does not implement, or which requires a
capability it does not declare, is a ``skip`` naming what is missing. After playing, the record is checked
against the record schema, the envelope and then its system's vocabulary (``conformance.records``; a broken
record is the implementation's ``error``, naming the path and the schema rule), what the implementation
carries for itself is set aside with a note (events of its own types, ``x-`` fields; values of open sets
the documents do not name are noted too: ``conformance.records.extras``), its volatile values are
replaced by placeholders, and ``conformance.judging.judge`` evaluates the expectations: no mismatch is
``pass``, any mismatch is ``fail`` with every failing matcher and its rule id in the message. The runner
never judges anything itself and never stops early: one verdict per selected file, always.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from conformance.adapters.base import DEFAULT_TIMEOUT, Adapter, Outcome
from conformance.judging.judge import Mismatch, judge
from conformance.judging.normalise import normalise
from conformance.paths import PROTOCOL_DIR, SCENARIO_ROOT
from conformance.protocol import ImplementationInfo
from conformance.record import Record
from conformance.records.check import problems as vocabulary_problems
from conformance.records.extras import notes as record_notes
from conformance.resources import files_under
from conformance.scenario.load import LoadedScenario, LoadError, load_all
from conformance.systems import SYSTEMS

if TYPE_CHECKING:
    import jsonschema


@dataclass
class CaseResult:
    id: str
    rules: list[str]
    verdict: str
    """pass | fail | error | skip, and xfail once a baseline covers a fail or error."""
    message: str = ""
    failing_rules: list[str] = field(default_factory=list)
    duration_ms: float = 0.0
    expected_failure: str | None = None
    record: dict[str, Any] | None = None
    """The normalised record, when the implementation returned a valid one."""
    checks: list[Mismatch] = field(default_factory=list)
    """The failed expectations of a ``fail``, with what they expected and what the record held."""
    notes: list[str] = field(default_factory=list)
    """What judging set aside (events of the implementation's own types, ``x-`` fields) and values of open
    sets the documents do not name (``conformance.records.extras``): allowed, and shown in the reports."""

    @property
    def system(self) -> str:
        return self.id.split("/", 1)[0]

    @property
    def area(self) -> str:
        parts = self.id.split("/")
        return parts[1] if len(parts) > 2 else ""


@dataclass
class Selection:
    systems: set[str] | None = None
    keyword: str | None = None

    def wants(self, item: LoadedScenario | LoadError) -> bool:
        if self.systems and item.id.split("/", 1)[0] not in self.systems:
            return False
        if not self.keyword:
            return True
        rules = item.scenario.rules if isinstance(item, LoadedScenario) else []
        return any(self.keyword in text for text in (item.id, *rules))


@lru_cache(maxsize=1)
def record_validator() -> jsonschema.protocols.Validator:
    """The envelope schema, compiled once, and only when a record does not conform (``jsonschema`` is not
    even imported by a run whose records all do)."""
    import jsonschema

    path = PROTOCOL_DIR / "record.schema.json"
    schema = json.loads(path.read_text(encoding="utf-8")) if path.exists() else Record.model_json_schema()
    return jsonschema.Draft202012Validator(schema)


def envelope_conforms(record: Any) -> bool:
    """The fast answer for the envelope: the model the schema is generated from, in strict mode.

    Strict validation accepts no more than the published schema (a test perturbs records to check it) and
    runs in Rust; only a record that fails it goes through ``jsonschema``, whose messages are reported."""
    try:
        Record.model_validate(record, strict=True)
    except ValidationError:
        return False
    return True


def record_problems(record: Any) -> list[str]:
    """The first five ways ``record`` breaks the envelope schema (empty when it follows it)."""
    if envelope_conforms(record):
        return []
    return [
        f"record field {'.'.join(map(str, e.absolute_path)) or '(record)'}: {e.message}"
        for e in sorted(
            record_validator().iter_errors(record), key=lambda e: list(map(str, e.absolute_path))
        )[:5]
    ]


def precheck(item: LoadedScenario, info: ImplementationInfo) -> str | None:
    """Why the implementation cannot be asked to play this case at all (a skip reason), else None."""
    if item.scenario.system not in info.systems:
        return f"{info.name} does not implement {item.scenario.system}"
    missing = [flag for flag in item.scenario.requires if flag not in info.capabilities]
    if missing:
        return (
            f"requires capability {', '.join(repr(m) for m in missing)}, which {info.name} does not declare"
        )
    return None


def verdict_for(
    item: LoadedScenario, outcome: Outcome, twin_outcomes: Mapping[str, Outcome] | None = None
) -> CaseResult:
    """Turn what the adapter returned into a verdict (the judging step). ``twin_outcomes`` are the plays
    of the scenario's twins (``conformance.scenario.twins``), which ``relation`` expectations read."""
    rules = list(item.scenario.rules)
    notes: list[str] = []
    record = _checked_record(item, outcome, "", notes)
    if isinstance(record, CaseResult):
        return record
    twins: dict[str, dict[str, Any]] = {}
    for name, twin_outcome in (twin_outcomes or {}).items():
        twin_record = _checked_record(item, twin_outcome, f"twin {name!r}: ")
        if isinstance(twin_record, CaseResult):
            return twin_record
        twins[name] = twin_record
    mismatches = judge(item.scenario.expect, record, twins)
    if not mismatches:
        return CaseResult(item.id, rules, "pass", record=record, notes=notes)
    failing = sorted({m.rule for m in mismatches})
    message = "\n".join(map(str, mismatches))
    return CaseResult(
        item.id, rules, "fail", message, failing, record=record, checks=mismatches, notes=notes
    )


def judge_played(item: LoadedScenario, play: Callable[[dict[str, Any]], dict[str, Any]]) -> list[Mismatch]:
    """Judge a scenario on records the caller plays itself (tests that drive a player directly): the main
    case and each of its twins, each played by ``play`` from its payload."""
    twins = {name: play(item.twin_payload(name)) for name in item.twin_documents}
    return judge(item.scenario.expect, play(item.payload), twins)


def _checked_record(
    item: LoadedScenario, outcome: Outcome, which: str, notes: list[str] | None = None
) -> dict[str, Any] | CaseResult:
    """The play's record, checked, without what the implementation carries for itself, and normalised; or
    the skip or error verdict the play earns instead. ``notes`` receives what was set aside or is
    undocumented (``conformance.records.extras``), for the main play's report."""
    rules = list(item.scenario.rules)
    if outcome.skip is not None:
        return CaseResult(item.id, rules, "skip", which + outcome.skip)
    if outcome.error is not None or outcome.record is None:
        reason = outcome.error or "the adapter returned no record"
        return CaseResult(item.id, rules, "error", which + reason)
    problems = record_problems(outcome.record)
    if problems:
        return CaseResult(item.id, rules, "error", f"{which}invalid record: " + "; ".join(problems))
    system = item.scenario.system
    problems = vocabulary_problems(system, outcome.record)
    if problems:
        message = f"{which}the record breaks the {system} record schema: " + "; ".join(problems)
        return CaseResult(item.id, rules, "error", message)
    judged, found = record_notes(system, outcome.record)
    if notes is not None:
        notes.extend(found)
    normalised: dict[str, Any] = normalise(judged, keep=item.kept_values)
    return normalised


def _play(adapter: Adapter, payload: dict[str, Any], timeout: float) -> Outcome:
    try:
        return adapter.run(payload, timeout)
    except Exception as exc:  # an adapter bug must cost one case, never the run
        return Outcome(error=f"the adapter raised {type(exc).__name__}: {exc}")


def run_case(
    adapter: Adapter,
    info: ImplementationInfo,
    item: LoadedScenario | LoadError,
    timeout: float = DEFAULT_TIMEOUT,
) -> CaseResult:
    if isinstance(item, LoadError):
        return CaseResult(item.id, [], "error", item.message)
    reason = precheck(item, info)
    if reason is not None:
        return CaseResult(item.id, list(item.scenario.rules), "skip", reason)
    started = time.perf_counter()
    outcome = _play(adapter, item.payload, timeout)
    twins: dict[str, Outcome] = {}
    if outcome.record is not None:  # a main play that skipped or errored decides the case alone
        twins = {name: _play(adapter, item.twin_payload(name), timeout) for name in item.twin_documents}
    try:
        result = verdict_for(item, outcome, twins)
    except Exception as exc:
        result = CaseResult(
            item.id, list(item.scenario.rules), "error", f"judging failed: {type(exc).__name__}: {exc}"
        )
    result.duration_ms = (time.perf_counter() - started) * 1000
    return result


LAYOUT = "<root>/<system>/<area>/<name>.yaml, with <system> one of llmz, falai, akan"


def layout_problem(root: Path) -> str | None:
    """Why ``root`` cannot be a scenario root, or None. A wrong root is a usage error, not an empty run."""
    if not root.exists():
        return f"scenario folder {root} does not exist (expected {LAYOUT})"
    if not root.is_dir():
        return f"scenario folder {root} is not a folder (expected {LAYOUT})"
    files = files_under(root)
    if not files:
        return f"scenario folder {root} holds no .yaml files (expected {LAYOUT})"
    systems = {parts[0] for parts in files if len(parts) > 1}
    if not systems & set(SYSTEMS):
        found = ", ".join(sorted({parts[0] for parts in files})[:5])
        return (
            f"scenario folder {root} has no system folder (found {found}); expected {LAYOUT}. "
            "Point --scenarios at the folder that holds the system folders."
        )
    return None


def nothing_selected(root: Path, selection: Selection) -> str:
    """The usage error for a selection that matched no scenario file, naming what was asked for."""
    asked = []
    if selection.systems:
        asked.append(f"--system {' '.join(sorted(selection.systems))}")
    if selection.keyword:
        asked.append(f"-k {selection.keyword!r}")
    return f"no scenario in {root} matches {' and '.join(asked) or 'the selection'}"


def verdict_only(result: CaseResult) -> CaseResult:
    """The result without its record: what a run keeps once the case is judged."""
    result.record = None
    return result


def select(
    root: Path = SCENARIO_ROOT, selection: Selection | None = None
) -> list[LoadedScenario | LoadError]:
    systems = selection.systems if selection is not None else None
    keyword = selection.keyword if selection is not None else None
    items = load_all(root, systems, keyword) if root.exists() else []
    return [item for item in items if selection is None or selection.wants(item)]


def run_all(
    adapter: Adapter,
    items: Iterable[LoadedScenario | LoadError],
    timeout: float = DEFAULT_TIMEOUT,
    *,
    keep_records: bool = True,
) -> tuple[ImplementationInfo, list[CaseResult]]:
    """Play and judge each case as it comes. With ``keep_records=False`` only the verdicts are kept, so a
    run's memory does not grow with the size of the records (an implementation may answer with 100 MB)."""
    info = adapter.hello()
    keep = (lambda result: result) if keep_records else verdict_only
    return info, [keep(run_case(adapter, info, item, timeout)) for item in items]
