"""``python -m conformance.catalogue [--write-ledger] [--out DIR]``: check the catalogue, write traceability.

Exit status 1 when any catalogue or scenario file is invalid, an id is duplicated, a scenario names an
unknown rule, a rule gives an ``untested`` reason while a scenario pins it, the id ledger is out of date
(unless ``--write-ledger`` updates it), with ``--require-reasons``, an untested rule says nothing
about why, or, with ``--anchors``, a rule's section or passages are not in its source document (checked
only where the seed documents are found; ``python -m conformance spec anchors``).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from conformance.catalogue import ledger
from conformance.catalogue.check import CheckResult, check, write_reports
from conformance.catalogue.traceability import summary_lines, unexplained
from conformance.paths import BUILD_ROOT, LEDGER, REPO_ROOT, SCENARIO_ROOT, SPEC_ROOT


def _relative(path: Path) -> str:
    try:
        return str(path.relative_to(REPO_ROOT))
    except ValueError:
        return str(path)


def _anchor_problems(result: CheckResult) -> list[str]:
    """Sections and passages that no longer resolve; none (with a note) where the seeds are not here,
    since a clone or package outside the project's layout has no source documents to check against."""
    from conformance.drift.command import anchor_problems
    from conformance.originality import locate_seeds

    seeds = locate_seeds()
    if seeds is None:
        print("anchors not checked: no seed documents found (set SEEDS_DIR)")
        return []
    problems, checked = anchor_problems(result.catalogue, seeds)
    print(f"{checked} rules' sections and passages checked against {seeds}")
    return problems


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m conformance.catalogue", description=__doc__.splitlines()[0]
    )
    parser.add_argument("--write-ledger", action="store_true", help="rewrite spec/ids.txt from the catalogue")
    parser.add_argument(
        "--out", type=Path, default=BUILD_ROOT / "spec", help="where traceability.{json,md} go"
    )
    parser.add_argument("--spec", type=Path, default=SPEC_ROOT, help=argparse.SUPPRESS)
    parser.add_argument("--scenarios", type=Path, default=SCENARIO_ROOT, help=argparse.SUPPRESS)
    parser.add_argument("--ledger", type=Path, default=LEDGER, help=argparse.SUPPRESS)
    parser.add_argument(
        "--require-reasons",
        action="store_true",
        help="fail when an untested rule has no `untested` reason (every gap must be explained)",
    )
    parser.add_argument(
        "--anchors",
        action="store_true",
        help="also check every rule's section and passages against the seed documents, when they are found",
    )
    args = parser.parse_args(argv)
    result = check(args.spec, args.scenarios, args.ledger)
    if args.anchors:
        result.errors += _anchor_problems(result)
    if args.write_ledger:
        ledger.write(result.catalogue.ids(), args.ledger)
        print(f"wrote {_relative(args.ledger)} ({len(result.catalogue.rules)} ids)")
        result.ledger_problems = []
    for problem in result.errors + result.ledger_problems:
        print(f"error: {problem}", file=sys.stderr)
    json_path, md_path = write_reports(result.trace, args.out)
    print(
        f"{len(result.catalogue.rules)} rules in {len(result.catalogue.files)} files; "
        f"wrote {_relative(json_path)} and {_relative(md_path)}"
    )
    for line in summary_lines(result.trace):
        print(line)
    silent = unexplained(result.trace)
    if silent:
        print(
            f"{len(silent)} untested rule(s) give no reason: {', '.join(r.id for r in silent[:8])}"
            + (", ..." if len(silent) > 8 else "")
        )
    if args.require_reasons and silent:
        print("error: --require-reasons: every untested rule needs an `untested` reason", file=sys.stderr)
        return 1
    return 1 if result.errors or result.ledger_problems else 0


if __name__ == "__main__":
    sys.exit(main())
