"""Scores from the sampled mutants' outcomes: per module, per system and overall.

A sampled mutant ends one of five ways: killed by a failed expectation (a scenario's ``expect`` caught
it: the suite *says what is wrong*), killed only by a crash (the reference raised, timed out or wrote a
broken record: caught, but not by a rule), killed by an invariant (every scenario passed, the module's
invariant tests did not; ``plan.Target.invariants``), survived, or incompetent (Cosmic Ray could not
apply or run it; left out of every ratio). ``score`` is killed / (killed + survived);
``expectation_score`` counts the expectation kills alone. ``adjusted_score`` (issue 27's measure) is
killed / (judged - equivalent): an equivalent mutant cannot be killed by any test, an open one could be
but must not be, so it stays in the denominator and ``open_share`` says how large that class is.
``rule_score`` leaves out both: killed / the mutants that break something the documents fix.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from conformance.mutation_tool.exclude import excluded_in, exclusion_of
from conformance.mutation_tool.plan import TARGETS, wanted_operator
from conformance.mutation_tool.probe import PREFIX
from conformance.mutation_tool.triage import Entry, Verdicts

OUTCOMES = ("expectation", "crash", "invariant", "survived", "incompetent")


@dataclass(frozen=True)
class Mutant:
    module: str
    system: str
    operator: str
    occurrence: int
    location: str
    mutation: str
    outcome: str
    """expectation | crash | invariant | survived | incompetent"""
    detail: str


@dataclass
class Tally:
    expectation: int = 0
    crash: int = 0
    invariant: int = 0
    """Passed every scenario, failed its module's invariant tests (``plan.Target.invariants``)."""
    survived: int = 0
    incompetent: int = 0
    equivalent: int = 0
    """Survivors triaged ``equivalent``: no implementation could show the change."""
    open_in_documents: int = 0
    """Survivors triaged ``open-in-the-documents``: the change is another permitted reading."""

    def add(self, outcome: str, verdict: str | None = None) -> None:
        setattr(self, outcome, getattr(self, outcome) + 1)
        if outcome == "survived" and verdict == "equivalent":
            self.equivalent += 1
        elif outcome == "survived" and verdict == "open-in-the-documents":
            self.open_in_documents += 1

    @property
    def killed(self) -> int:
        return self.expectation + self.crash + self.invariant

    def as_dict(self) -> dict[str, Any]:
        judged = self.killed + self.survived
        # The mutants that break what the documents fix: all judged ones but the survivors triaged as
        # equivalent or as another permitted reading.
        rule_breaking = judged - self.equivalent - self.open_in_documents
        return {
            "mutants": judged + self.incompetent,
            "killed": self.killed,
            "killed_by_expectation": self.expectation,
            "killed_by_crash_only": self.crash,
            "killed_by_invariant": self.invariant,
            "survived": self.survived,
            "incompetent": self.incompetent,
            "score": round(self.killed / judged, 4) if judged else None,
            "expectation_score": round(self.expectation / judged, 4) if judged else None,
            "survivors_equivalent": self.equivalent,
            "survivors_open_in_documents": self.open_in_documents,
            "rule_score": round(self.killed / rule_breaking, 4) if rule_breaking else None,
            # Issue 27's measure: what a mutant could show at all. Equivalent mutants leave the
            # denominator, open ones stay in it (they count against the figure) and are listed apart.
            "adjusted_score": (
                round(self.killed / (judged - self.equivalent), 4) if judged - self.equivalent else None
            ),
            "open_share": round(self.open_in_documents / judged, 4) if judged else None,
        }


def classify(worker_outcome: str, test_outcome: str | None, output: str | None) -> tuple[str, str]:
    """One result's outcome and the probe's line (or what stood in for it)."""
    if worker_outcome != "normal" or test_outcome in (None, "incompetent"):
        return "incompetent", (output or worker_outcome).strip()[-200:]
    lines = [line for line in (output or "").splitlines() if line.startswith(PREFIX)]
    line = lines[-1] if lines else (output or "").strip()[-200:]
    if test_outcome == "survived":
        return "survived", line
    if lines and lines[-1].startswith(f"{PREFIX} expectation"):
        return "expectation", line
    if lines and lines[-1].startswith(f"{PREFIX} invariant"):
        return "invariant", line
    return "crash", line or "no output (import failed or timed out)"


def mutation_text(diff: str | None) -> str:
    """``before -> after`` from a unified diff (the changed lines, stripped)."""
    if not diff:
        return ""
    body = [line for line in diff.splitlines() if not line.startswith(("---", "+++", "@@"))]
    before = " / ".join(line[1:].strip() for line in body if line.startswith("-"))
    after = " / ".join(line[1:].strip() for line in body if line.startswith("+"))
    return f"{before} -> {after}"


def read_db(db: Path) -> list[Mutant]:
    """The sampled (not skipped) mutants of one Cosmic Ray work database."""
    from cosmic_ray.work_db import WorkDB, use_db

    names = {t.path: t for t in TARGETS}
    mutants = []
    with use_db(str(db), WorkDB.Mode.open) as work_db:
        for item, result in work_db.completed_work_items:
            if str(result.worker_outcome.value) == "skipped":
                continue
            spec = item.mutations[0]
            target = names[str(spec.module_path)]
            test = None if result.test_outcome is None else str(result.test_outcome.value)
            outcome, detail = classify(str(result.worker_outcome.value), test, result.output)
            line, column = spec.start_pos
            mutants.append(
                Mutant(
                    module=target.name,
                    system=target.system,
                    operator=spec.operator_name,
                    occurrence=spec.occurrence,
                    location=f"{line}:{column}",
                    mutation=mutation_text(result.diff),
                    outcome=outcome,
                    detail=detail,
                )
            )
    return sorted(mutants, key=lambda m: (m.module, m.operator, m.occurrence))


def population(db: Path, root: Path) -> tuple[str, dict[str, Any]]:
    """One module's population: how many mutations of the wanted operators Cosmic Ray can make to it, and
    how many of them each class of :mod:`.exclude` set aside (they are never sampled)."""
    from cosmic_ray.work_db import WorkDB, use_db

    names = {t.path: t for t in TARGETS}
    wanted = 0
    excluded: dict[str, int] = {}
    module = ""
    with use_db(str(db), WorkDB.Mode.open) as work_db:
        for item in work_db.work_items:
            spec = item.mutations[0]
            module = names[str(spec.module_path)].name
            if not wanted_operator(spec.operator_name):
                continue
            wanted += 1
            lines = _excluded(root / str(spec.module_path))
            cls = exclusion_of(lines, spec.start_pos, spec.end_pos)
            if cls is not None:
                excluded[cls] = excluded.get(cls, 0) + 1
    return module, {"wanted": wanted, "excluded": dict(sorted(excluded.items()))}


_EXCLUDED: dict[Path, dict[int, str]] = {}


def _excluded(path: Path) -> dict[int, str]:
    if path not in _EXCLUDED:
        _EXCLUDED[path] = excluded_in(path)
    return _EXCLUDED[path]


def summarise(
    mutants: list[Mutant],
    triage: list[Entry],
    meta: dict[str, Any],
    populations: dict[str, dict[str, Any]] | None = None,
    sources: dict[str, list[str]] | None = None,
) -> dict[str, Any]:
    """The scores per module, per system and overall, the survivors with their verdicts, and (when
    given) each module's population and what the exclusion classes removed from it. ``sources`` (module ->
    its stripped source lines) lets an entry whose line moved still match (:class:`.triage.Verdicts`)."""
    modules: dict[str, Tally] = {}
    systems: dict[str, Tally] = {}
    overall = Tally()
    core_systems: dict[str, Tally] = {}
    core_overall = Tally()
    core = {t.name for t in TARGETS if t.core}
    verdicts = Verdicts(triage, sources)
    for m in mutants:
        entry = verdicts.get((m.module, m.operator, m.location, m.mutation))
        tallies = [modules.setdefault(m.module, Tally()), systems.setdefault(m.system, Tally()), overall]
        if m.module in core:
            tallies += [core_systems.setdefault(m.system, Tally()), core_overall]
        for tally in tallies:
            tally.add(m.outcome, entry.verdict if entry else None)
    survivors = []
    for m in mutants:
        if m.outcome != "survived":
            continue
        entry = verdicts.get((m.module, m.operator, m.location, m.mutation))
        survivors.append(
            {
                **asdict(m),
                "verdict": entry.verdict if entry else None,
                "rule": entry.rule if entry else None,
                "status": entry.status if entry else None,
            }
        )
    pops = populations or {}
    return {
        **meta,
        "modules": {
            name: {**t.as_dict(), **({"population": pops[name]} if name in pops else {})}
            for name, t in sorted(modules.items())
        },
        "systems": {name: t.as_dict() for name, t in sorted(systems.items())},
        "overall": overall.as_dict(),
        # The same figures over the original eleven modules only (plan.CORE), comparable with earlier runs.
        "core": {
            "modules": sorted(name for name in modules if name in core),
            "systems": {name: t.as_dict() for name, t in sorted(core_systems.items())},
            "overall": core_overall.as_dict(),
        },
        "survivors": survivors,
        "untriaged": sum(1 for s in survivors if s["verdict"] is None),
        "moved_entries": [
            {"module": e.module, "operator": e.operator, "location": e.location, "now": now}
            for e, now in verdicts.moved
        ],
        "mutants": [asdict(m) for m in mutants],
    }


def _percent(value: float | None) -> str:
    return "   -" if value is None else f"{value * 100:5.1f}%"


def table(summary: dict[str, Any]) -> str:
    """The printed table: one line per module (``*`` marks the original eleven, plan.CORE), then per system
    and overall twice: over the core modules, and over every module run."""
    head = (
        f"{'':26} {'mutants':>7} {'killed':>6} {'expect':>6} {'crash':>5} {'inv':>3} {'surv':>4} "
        f"{'equiv':>5} {'open':>4} {'score':>6} {'by-exp':>6} {'adjust':>6} {'open%':>6} {'rules':>6}"
    )
    lines = [head]

    def row(name: str, t: dict[str, Any]) -> str:
        return (
            f"{name:26} {t['mutants']:7d} {t['killed']:6d} {t['killed_by_expectation']:6d} "
            f"{t['killed_by_crash_only']:5d} {t['killed_by_invariant']:3d} {t['survived']:4d} "
            f"{t['survivors_equivalent']:5d} {t['survivors_open_in_documents']:4d} {_percent(t['score']):>6} "
            f"{_percent(t['expectation_score']):>6} {_percent(t['adjusted_score']):>6} "
            f"{_percent(t['open_share']):>6} {_percent(t['rule_score']):>6}"
        )

    core = set(summary.get("core", {}).get("modules", []))
    lines += [row(("* " if name in core else "  ") + name, t) for name, t in summary["modules"].items()]
    groups = [("", summary)]
    if core and len(core) < len(summary["modules"]):
        groups = [("core ", summary["core"]), ("all ", summary)]
    for label, group in groups:
        lines.append("")
        lines += [row(f"{label}system {name}", t) for name, t in group["systems"].items()]
        lines.append(row(f"{label}overall", group["overall"]))
    verdicts: dict[str, int] = {}
    for s in summary["survivors"]:
        verdicts[s["verdict"] or "untriaged"] = verdicts.get(s["verdict"] or "untriaged", 0) + 1
    pops = {name: t["population"] for name, t in summary["modules"].items() if "population" in t}
    if pops:
        lines.append(
            "population (wanted operators) and excluded lines: "
            + "; ".join(
                f"{name} {p['wanted']}" + "".join(f", {n} {cls}" for cls, n in p["excluded"].items())
                for name, p in pops.items()
            )
        )
    lines.append("survivors: " + (", ".join(f"{v} {k}" for k, v in sorted(verdicts.items())) or "none"))
    return "\n".join(lines)


def write(summary: dict[str, Any], path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(summary, indent=2) + "\n", encoding="utf-8")
