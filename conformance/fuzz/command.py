"""``python -m conformance fuzz``: the differential fuzzer on the command line.

``fuzz --impl X --system falai --examples 500 --seed 7 [--out DIR] [--jobs N]`` generates up to
``--examples`` cases of one system, plays each on the reference and on X, and compares the documented
facts (on ``--jobs`` worker processes, each with its own reference and X: ``conformance.fuzz.ahead``;
the findings are the same for any N). Every distinct
disagreement (at most ``--max-findings``) is shrunk and written as a scenario under
``DIR/<system>/<area>/`` (default ``build/fuzz``), then loaded back and run as the runner would, to confirm
it passes the reference and fails X. ``--expected-failures FILE`` takes the baseline ``run`` takes: a
disagreement on rules it lists is a known deviation, named with its reason and not written
(``conformance.fuzz.known``). Exit status: 0 when nothing disagreed beyond the known deviations; 1 when
something did (the files are listed) or nothing could be compared; 2 on usage errors (unknown
implementation or system, one that does not implement the system, a non-positive count, an unreadable
baseline or one naming an unknown id).
"""

from __future__ import annotations

import argparse
import contextlib
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from conformance.adapters.base import Adapter, AdapterError
from conformance.adapters.registry import create
from conformance.catalogue.load import load_catalogue
from conformance.fuzz.known import Known, KnownError, load_known
from conformance.paths import SCENARIO_ROOT, SPEC_ROOT
from conformance.report.files import folder_problem
from conformance.scenario.load import scenario_files, scenario_id

if TYPE_CHECKING:  # hypothesis comes with the dev extra: the fuzzer's modules are imported on use
    from conformance.fuzz.ahead import Lookahead
    from conformance.fuzz.engine import Generator


def _usage_error(message: str) -> int:
    print(f"error: {message}", file=sys.stderr)
    return 2


def _known(path: Path | None) -> Known:
    """The baseline's rule entries (empty without one); ``KnownError`` when it cannot be used."""
    if path is None:
        return Known()
    rule_ids = set(load_catalogue(SPEC_ROOT, schema_check=False).ids())
    scenario_ids = {scenario_id(file, SCENARIO_ROOT) for file in scenario_files(SCENARIO_ROOT)}
    return load_known(path, rule_ids, scenario_ids)


@contextlib.contextmanager
def _ahead(args: argparse.Namespace, generator: Generator, reference: Adapter) -> Iterator[Lookahead | None]:
    """With ``--jobs`` above 1, comparisons played ahead on worker processes (``conformance.fuzz.ahead``),
    started now, before this process starts any implementation process of its own (a fork must not share
    its pipes); with 1, None: the search plays each case here, as it always did."""
    if args.jobs == 1:
        yield None
        return
    from conformance.fuzz.ahead import CompareJob, Lookahead

    with Lookahead(
        CompareJob(args.impl, generator, args.timeout, args.timeout), args.jobs, reference
    ) as ahead:
        yield ahead


def command(args: argparse.Namespace) -> int:
    if args.examples < 1 or args.max_findings < 1:
        return _usage_error("--examples and --max-findings must be at least 1")
    try:  # hypothesis comes with the dev extra; the rest of the harness runs without it
        from conformance.fuzz import generator_for
        from conformance.fuzz.engine import generated, search
        from conformance.fuzz.write import Provenance, reproduces, write
    except ModuleNotFoundError as exc:
        if exc.name != "hypothesis":
            raise
        return _usage_error("fuzz needs hypothesis: pip install hypothesis (or the project's dev extra)")
    try:
        known = _known(args.expected_failures)
    except KnownError as exc:
        return _usage_error(str(exc))
    problem = folder_problem(args.out)  # before the search, so a finding is never lost to --out
    if problem:
        return _usage_error(f"{problem}; choose another folder with --out")
    try:
        reference = create("reference")
        implementation = create(args.impl, hello_timeout=args.timeout)
    except AdapterError as exc:
        return _usage_error(str(exc))
    try:
        generator = generator_for(args.system)
        with _ahead(args, generator, reference) as ahead:
            # With workers, the implementation's hello is a worker's: this process starts its own copy
            # only if a finding is to be reproduced (the stdio adapter starts it on its first case).
            if ahead is not None:  # the workers start while this process lists the first round
                ahead.start()
                ahead.expect(generated(generator, args.examples, args.seed, 0))
            reference_info = reference.hello()
            info = implementation.hello() if ahead is None else ahead.hello()
            if args.system not in info.systems:
                return _usage_error(
                    f"{info.name} does not implement {args.system} (it implements {', '.join(info.systems)})"
                )
            result = search(
                generator,
                reference,
                implementation,
                examples=args.examples,
                seed=args.seed,
                timeout=args.timeout,
                max_findings=args.max_findings,
                capabilities=frozenset(info.capabilities),
                progress=lambda line: print(f"  {line}", flush=True),
                known=known,
                ahead=ahead,
            )
        written: list[tuple[Path, str | None]] = []
        for finding in result.findings:
            provenance = Provenance(args.impl, args.system, args.seed, args.examples, finding.examples)
            path = write(args.out, generator.area(finding.comparison.case), finding.comparison, provenance)
            problem = reproduces(
                path, args.out, (reference, reference_info), (implementation, info), args.timeout
            )
            written.append((path, problem))
    except AdapterError as exc:
        return _usage_error(str(exc))
    finally:
        implementation.close()
        reference.close()
    compared = result.examples - result.skipped
    print(
        f"fuzz {args.system}: reference vs {args.impl}, seed {args.seed}: {result.examples} cases generated "
        f"({result.skipped} skipped), {result.compared} comparisons with shrinking, {result.seconds:.1f} s"
    )
    if args.expected_failures is not None:
        print(
            f"  baseline {args.expected_failures}: {len(known.rules)} rules known to fail, "
            f"{known.ignored} entries naming no rule"
        )
    for rule, count in sorted(result.known.items()):
        print(f"  known deviation [{rule}] in {count} case(s): {' '.join(known.reason(rule).split())}")
    for path, problem in written:
        print(f"  wrote {path}" + (f" (does not reproduce: {problem})" if problem else ""))
    if written:
        print(f"{len(written)} disagreement(s)")
        return 1
    if compared == 0:
        print("nothing was compared: every case was skipped")
        return 1
    print("no disagreement" + (" beyond the known deviations" if result.known else ""))
    return 0
