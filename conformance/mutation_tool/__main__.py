"""``python -m conformance.mutation_tool [run|score] ...``: the command line behind ``nox -s mutation``.

``run`` samples and runs the mutants (Cosmic Ray) and then scores them; ``score`` re-reads the work
databases of an earlier run (for instance after editing the triage file). Both write
``<out>/score.json`` and print the table. Exit status: 0, or 1 when, among the selected modules, an open
``gap`` or an untriaged survivor remains or a closed gap's mutant survives again (the issue's bar: no open
gap). A triage entry matched at a new location is reported so its location can be brought up to date.
"""

from __future__ import annotations

import argparse
import sys
import time
from importlib.metadata import version
from pathlib import Path

from conformance import argtypes
from conformance.mutation_tool import score, session, triage
from conformance.mutation_tool.plan import EXTENDED_PER_MODULE, PER_MODULE, SEED, TARGETS, target
from conformance.paths import REPO_ROOT


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m conformance.mutation_tool", description=__doc__)
    parser.add_argument("command", choices=["run", "score"])
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
    parser.add_argument("--out", type=Path, default=Path("build/mutation"))
    parser.add_argument("--triage", type=Path, default=triage.TRIAGE_FILE)
    args = parser.parse_args(argv)
    try:
        targets = [target(name) for name in args.module] if args.module else list(TARGETS)
        entries = triage.load(args.triage)
    except (KeyError, triage.TriageError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if args.system:
        targets = [t for t in targets if t.system in args.system]
    started = time.monotonic()
    if args.command == "run":
        session.run(
            targets, REPO_ROOT, args.out, args.per_module, args.seed, args.jobs,
            per_module_extended=args.per_module_extended,
        )  # fmt: skip
    dbs = [args.out / t.system / f"{t.name.split('/', 1)[1]}.sqlite" for t in targets]
    missing = [str(db) for db in dbs if not db.exists()]
    if missing:
        print(f"error: no work database {', '.join(missing)}; run `run` first", file=sys.stderr)
        return 2
    mutants = [m for db in dbs for m in score.read_db(db)]
    meta = {
        "tool": f"cosmic-ray {version('cosmic-ray')}",
        "seed": args.seed,
        "per_module": args.per_module,
        "per_module_extended": args.per_module_extended,
        "seconds": round(time.monotonic() - started, 1),
    }
    # The source the run mutated: its system's tree copy (the clone may have moved on since).
    trees = [args.out / f"tree-{t.system}" for t in targets]
    populations = dict(
        score.population(db, tree if tree.is_dir() else REPO_ROOT)
        for db, tree in zip(dbs, trees, strict=True)
    )
    sources = {
        t.name: [line.strip() for line in (root / t.path).read_text(encoding="utf-8").splitlines()]
        for t, root in (
            (t, tree if tree.is_dir() else REPO_ROOT) for t, tree in zip(targets, trees, strict=True)
        )
    }
    summary = score.summarise(mutants, entries, meta, populations, sources)
    closed = {e.key for e in entries if e.verdict == "gap" and e.status == "closed"}
    reopened = [s for s in summary["survivors"] if s["verdict"] == "gap" and s["status"] == "closed"]
    summary["closed_gaps"] = len(closed)
    chosen = {t.name for t in targets}
    gaps = [gap for gap in triage.open_gaps(entries) if gap.module in chosen]
    summary["open_gaps"] = len(gaps)
    score.write(summary, args.out / "score.json")
    print(score.table(summary))
    for gap in gaps:  # the selected modules' only: a run of one module answers for that module
        print(f"open gap: {gap.module} {gap.location} {gap.operator} ({gap.rule})")
    for s in summary["survivors"]:
        if s["verdict"] is None:
            print(f"untriaged: {s['module']} {s['location']} {s['operator']}: {s['mutation']}")
    for moved in summary["moved_entries"]:
        print(
            f"triage entry moved: {moved['module']} {moved['operator']} {moved['location']} is now at "
            f"{moved['now']} (update its location)"
        )
    for s in reopened:
        print(f"closed gap still survives: {s['module']} {s['location']} {s['operator']}: {s['mutation']}")
    return 1 if gaps or reopened or summary["untriaged"] else 0


if __name__ == "__main__":
    sys.exit(main())
