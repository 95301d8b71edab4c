"""``python -m conformance.mutation_tool [score|run] ...``: the command line behind ``nox -s mutation``.

``score`` (the default of ``nox -s mutation``) recomputes every figure from the committed record
(``conformance/mutation_record/``, see :mod:`.record`) and the triage file, without running a mutant;
``tidy`` moves the triage entries whose line moved and drops those no sampled mutant of the planned
sample matches. ``collect`` writes the records from the work databases of an earlier ``run`` under ``--out``.
``--check`` also fails when the figures differ from the committed ``figures.json`` or a module's source
changed since its sample (stale), ``--write`` updates ``figures.json``. ``run`` samples and runs the
mutants of the selected modules (Cosmic Ray), replaces their records, then scores the whole record and
writes ``figures.json``. Both print the table, the open class (each entry with the rule that leaves it
open and where the documents say so), and every problem. Exit status: 0; 1 when an open ``gap``, an
untriaged survivor, a triage entry that matches no sampled mutant (or one that was killed), a closed gap
that survives again, or (``--check``) a difference or a stale module remains; 2 on bad input. An open
``gap`` (a rule no scenario pins yet) is listed and counted against the figures, not an error: it is a
finding the record is consistent with.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from importlib.metadata import version
from pathlib import Path
from typing import Any

from conformance import argtypes
from conformance.mutation_tool import record, score, session, triage
from conformance.mutation_tool.plan import EXTENDED_PER_MODULE, PER_MODULE, SEED, TARGETS, Target, target
from conformance.paths import REPO_ROOT


def _run(args: argparse.Namespace, targets: list[Target]) -> None:
    """Run the mutants and replace the selected modules' records with what they gave."""
    session.run(
        targets, REPO_ROOT, args.out, args.per_module, args.seed, args.jobs,
        per_module_extended=args.per_module_extended,
    )  # fmt: skip
    _collect(args, targets)


def _collect(args: argparse.Namespace, targets: list[Target]) -> None:
    """Replace the selected modules' records with what their work databases under ``--out`` hold (what
    ``run`` does after running; alone, it rescues a run whose scoring step was interrupted)."""
    tool = f"cosmic-ray {version('cosmic-ray')}"
    for t in targets:
        db = args.out / t.system / f"{t.name.split('/', 1)[1]}.sqlite"
        tree = args.out / f"tree-{t.system}"  # the source the run mutated (the clone may have moved on)
        _, population = score.population(db, tree)
        budget = session.budget(t, args.per_module, args.per_module_extended)
        meta = {"tool": tool, "seed": args.seed, "budget": budget}
        built = record.build(t, score.read_db(db), population, meta, record.source_digest(t, tree))
        record.write(built, record.path_for(t, args.record))


def problems(
    summary: dict[str, Any], entries: list[triage.Entry], records: dict[str, record.ModuleRecord]
) -> list[str]:
    """Everything that keeps the record and the triage from answering for each other (issue 27, item 4).
    Whether each entry matches a sampled mutant is asked of the plan's sample only (``planned_sample``):
    a smaller trial sample holds only some of the mutants the triage answers for."""
    found = []
    planned = {name: r for name, r in records.items() if planned_sample(r)}
    sampled: dict[tuple[str, str, str, str], str] = {
        (name, m.operator, m.location, m.mutation): m.outcome
        for name, r in planned.items()
        for m in r.mutants
    }
    for s in summary["survivors"]:
        if s["verdict"] is None:
            found.append(f"untriaged: {s['module']} {s['location']} {s['operator']}: {s['mutation']}")
        elif s["verdict"] == "gap" and s["status"] == "closed":
            found.append(f"closed gap still survives: {s['module']} {s['location']} {s['operator']}")
    for e in entries:
        if e.module not in planned:
            continue
        outcome = sampled.get(e.key)
        if outcome is None:
            found.append(
                f"triage entry matches no sampled mutant: {e.module} {e.location} {e.operator}: {e.mutation}"
            )
        elif outcome != "survived" and e.verdict != "gap":
            found.append(f"triage entry on a mutant that is now killed ({outcome}): {e.module} {e.location}")
    return found


def planned_sample(r: record.ModuleRecord) -> bool:
    """Whether ``r`` holds the plan's sample (seed and budget), the one the triage answers for."""
    return r.seed == SEED and r.budget == session.budget(target(r.module), PER_MODULE, EXTENDED_PER_MODULE)


def open_class(summary: dict[str, Any], entries: list[triage.Entry]) -> list[str]:
    """The open class, per system: each survivor triaged open, with the rule that leaves it open and the
    place in the documents that rule rests on (issue 27, item 5)."""
    from conformance.catalogue.load import load_catalogue
    from conformance.paths import SPEC_ROOT

    rules = load_catalogue(SPEC_ROOT, schema_check=False).rules
    by_key = {e.key: e for e in entries}
    lines = []
    for s in summary["survivors"]:
        if s["verdict"] != "open-in-the-documents":
            continue
        entry = by_key[(s["module"], s["operator"], s["location"], s["mutation"])]
        found = rules.get(entry.rule or "")
        where = f"{found.rule.source.document}, {found.rule.source.section}" if found else "no such rule"
        question = " ".join((entry.open_question or "").split())
        lines.append(f"open: {s['module']} {s['location']}: {entry.rule} ({where}): {question}")
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m conformance.mutation_tool", description=__doc__)
    parser.add_argument("command", choices=["score", "run", "collect", "tidy"])
    parser.add_argument(
        "--per-module",
        type=argtypes.POSITIVE,
        default=PER_MODULE,
        help=f"mutants per core module ({PER_MODULE})",
    )
    parser.add_argument(
        "--per-module-extended",
        type=argtypes.NON_NEGATIVE,
        default=EXTENDED_PER_MODULE,
        help=f"mutants per module of the extended group ({EXTENDED_PER_MODULE})",
    )
    parser.add_argument("--seed", type=argtypes.NON_NEGATIVE, default=SEED, help=f"sampling seed ({SEED})")
    parser.add_argument("--module", action="append", help="only this target (e.g. falai/routing), repeatable")
    parser.add_argument("--system", action="append", help="only this system's targets, repeatable")
    parser.add_argument(
        "--jobs", type=argtypes.POSITIVE, default=2, help="systems run side by side (one tree copy each)"
    )
    parser.add_argument("--out", type=Path, default=Path("build/mutation"), help="work databases, trees")
    parser.add_argument(
        "--record", type=Path, default=None,
        help="the record to write and read (the committed one; <out>/record for a sample of another size)",
    )  # fmt: skip
    parser.add_argument("--triage", type=Path, default=triage.TRIAGE_FILE)
    parser.add_argument("--check", action="store_true", help="fail on figures unlike figures.json, or stale")
    parser.add_argument("--write", action="store_true", help="write figures.json (run always does)")
    args = parser.parse_args(argv)
    try:
        targets = [target(name) for name in args.module] if args.module else list(TARGETS)
        entries = triage.load(args.triage)
    except (KeyError, triage.TriageError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if args.system:
        targets = [t for t in targets if t.system in args.system]
    sample = (args.seed, args.per_module, args.per_module_extended)
    planned = sample == (SEED, PER_MODULE, EXTENDED_PER_MODULE)
    if args.record is None:
        # Only the planned sample replaces the committed record; a smaller or other one is a trial.
        args.record = record.RECORD_ROOT if planned or args.command == "score" else args.out / "record"
    if args.command == "collect" and args.module is None and args.system is None:
        print("error: collect names its modules (--module or --system)", file=sys.stderr)
        return 2
    started = time.monotonic()
    if args.command == "run":
        _run(args, targets)
    elif args.command == "collect":
        dbs = {t.name: args.out / t.system / f"{t.name.split('/', 1)[1]}.sqlite" for t in targets}
        missing = [name for name, db in dbs.items() if not db.exists()]
        if missing:
            print(f"error: no work database under {args.out} for {', '.join(missing)}", file=sys.stderr)
            return 2
        _collect(args, targets)
    try:
        records = record.load_all(targets, args.record)
    except record.RecordError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if not records:
        print(f"error: no module record under {args.record}; `run` first", file=sys.stderr)
        return 2
    if args.command == "tidy":
        sampled = {
            name: [(m.operator, m.location, m.mutation) for m in r.mutants]
            for name, r in records.items()
            if planned_sample(r)
        }
        killed = frozenset(
            (name, m.operator, m.location, m.mutation)
            for name, r in records.items()
            if planned_sample(r)
            for m in r.mutants
            if m.outcome != "survived"
        )
        entries, changes = triage.tidy(entries, sampled, killed)
        triage.write(entries, args.triage)
        print("\n".join(changes) or "nothing to tidy")
    mutants = [m for r in records.values() for m in r.as_mutants()]
    seeds = sorted({r.seed for r in records.values()})
    meta = {"tool": sorted({r.tool for r in records.values()}), "seeds": seeds}
    populations = {name: r.population for name, r in records.items()}
    summary = score.summarise(mutants, entries, meta, populations)
    summary["seconds"] = round(time.monotonic() - started, 1)
    summary["unrecorded"] = sorted(t.name for t in targets if t.name not in records)
    summary["stale"] = record.stale(records)
    summary["closed_gaps"] = sum(
        1 for e in entries if e.verdict == "gap" and e.status == "closed" and e.module in records
    )
    found = problems(summary, entries, records)
    summary["problems"] = found
    # An open gap is a finding, not an inconsistency: the figures count it (it stays in every denominator)
    # and it is listed, but the record and the triage still answer for each other.
    gaps = [g for g in triage.open_gaps(entries) if g.module in records]
    summary["open_gaps"] = len(gaps)
    score.write(summary, args.out / "score.json")
    print(score.table(summary))
    for line in open_class(summary, entries):
        print(line)
    for gap in gaps:
        reason = " ".join(gap.reason.split())
        print(f"open gap: {gap.module} {gap.location} {gap.operator} ({gap.rule}): {reason}")
    figures = record.figures_of(summary)
    figures_path = args.record / record.FIGURES
    whole = not args.module and not args.system
    if (args.command == "run" and whole) or args.write:
        figures_path.write_text(json.dumps(figures, indent=1) + "\n", encoding="utf-8")
        print(f"wrote {figures_path}")
    if summary["unrecorded"]:
        print(f"no record (never run): {', '.join(summary['unrecorded'])}")
    for name in summary["stale"]:
        print(f"stale: {name} changed since its sample; `nox -s mutation -- run --module {name}`")
    if args.check and whole:
        committed = json.loads(figures_path.read_text(encoding="utf-8")) if figures_path.exists() else None
        if committed != json.loads(json.dumps(figures)):
            found.append(f"the figures differ from {figures_path} (`score --write` after a run)")
    if args.check:
        found += [f"stale record: {name}" for name in summary["stale"]]
        found += [f"no record: {name}" for name in summary["unrecorded"]]
    for line in found:
        print(line)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
