"""``python -m conformance``: run the suite against an implementation, or list the reference mutants.

``run`` writes report.json, junit.xml and report.md into the report directory and prints a per-system
summary ending with the line ``N passed, N failed, N errored, N skipped``. Exit status:

- 0: at least one scenario was played, and nothing failed or errored unless the baseline expected it;
- 1: a scenario failed or errored unexpectedly, a baseline entry is stale or unknown, or nothing was
  played at all (every selected scenario was skipped): a run that checked nothing is never green;
- 2: the run could not start, and no report was written: no scenario selected (a missing or empty
  folder, a layout that is not ``<root>/<system>/<area>/<name>.yaml``, a ``-k`` or ``--system`` that
  matches nothing), an unknown implementation, a failed hello, an unreadable baseline, a bad number, a
  report directory that is a link or holds one where a report file belongs;
- 128 + the signal: stopped by Ctrl-C, SIGTERM or SIGHUP (``conformance.stopping``); its implementation's
  processes are ended and the last complete report is left as it was.
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import json
import sys
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from conformance import argtypes, stopping
from conformance.adapters.base import DEFAULT_TIMEOUT, AdapterError
from conformance.exiting import exiting
from conformance.paths import BUILD_ROOT, SCENARIO_ROOT, SPEC_ROOT
from conformance.report.commands import add_compare, add_html
from conformance.systems import SYSTEMS

if TYPE_CHECKING:
    from conformance import baseline
    from conformance.adapters.base import Adapter
    from conformance.protocol import ImplementationInfo
    from conformance.report.metadata import Clock
    from conformance.report.model import Report
    from conformance.runner import CaseResult
    from conformance.scenario.load import LoadedScenario, LoadError
    from conformance.workers import Pool

# What only some runs use is imported where it is used: the expected-failures baseline (only with
# --expected-failures), the report writers (only once the cases are played), the mutants and the fuzzer.
# ``python -m conformance run --system akan`` thus loads the akan models and nothing of the others.


def _parser(prog: str = "python -m conformance") -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog=prog, description="Agent runtime conformance suite.")
    commands = parser.add_subparsers(dest="command", required=True)
    run = commands.add_parser("run", help="run the suite against an implementation")
    run.add_argument(
        "--impl",
        default="reference",
        help="reference | reference[<mutant>] | stdio:<command> | python:<module>:<factory> | preset",
    )
    run.add_argument(
        "--report-dir",
        type=Path,
        help="default: build/conformance/<name the implementation gives in its hello>/ in the current "
        "directory (the --impl spec's slug when that folder holds another --impl's report)",
    )
    run.add_argument("--expected-failures", type=Path, metavar="FILE", help="YAML baseline of known failures")
    run.add_argument("--system", action="append", choices=SYSTEMS, help="only this system (repeatable)")
    run.add_argument(
        "-k", dest="keyword", metavar="SUBSTR", help="only scenarios whose id or rule ids contain it"
    )
    run.add_argument(
        "--timeout", type=argtypes.seconds, default=DEFAULT_TIMEOUT, help="seconds per case (default 30)"
    )
    run.add_argument(
        "--jobs",
        type=argtypes.JOBS,
        default=argtypes.usable_cores(),
        metavar="N",
        help="cases played at once, each worker process with its own adapter (default: the usable cores, "
        f"{argtypes.usable_cores()}; 1 plays them one by one in this process)",
    )
    run.add_argument(
        "--scenarios",
        type=Path,
        default=SCENARIO_ROOT,
        help="scenario root (default: the clone's fixtures/scenarios, else the package's copy)",
    )
    run.add_argument("--spec", type=Path, default=SPEC_ROOT, help=argparse.SUPPRESS)
    run.add_argument(
        "-v", "--verbose", action="store_true", help="also list expected failures with their reasons"
    )
    add_compare(commands)
    add_html(commands)
    commands.add_parser("list-mutants", help="the reference's mutants and permitted variants")
    mutants = commands.add_parser(
        "check-mutants",
        help="each mutant must fail the cases pinning its rules; each permitted variant must pass them all",
    )
    mutants.add_argument("--system", action="append", choices=SYSTEMS, help="only this system's variants")
    mutants.add_argument(
        "-k",
        dest="keyword",
        metavar="SUBSTR",
        help="only mutants and permitted variants whose name or a rule id they name contains it",
    )
    mutants.add_argument("--scenarios", type=Path, default=SCENARIO_ROOT, help=argparse.SUPPRESS)
    from conformance.fuzz.arguments import add_parser as add_fuzz

    add_fuzz(commands)
    from conformance.drift.command import add_parser as add_spec

    add_spec(commands)
    return parser


def known_ids(scenario_root: Path, catalogue_ids: Iterable[str]) -> set[str]:
    """Every id a baseline may name: catalogue rules and scenario ids.

    Scenario ids come from file names (a scenario's id *is* its path), so nothing is parsed twice; the
    rule ids scenarios name are catalogue ids (``nox -s spec`` checks that every one is).
    """
    from conformance.scenario.load import scenario_files, scenario_id

    ids = set(catalogue_ids)
    if scenario_root.exists():
        ids.update(scenario_id(path, scenario_root) for path in scenario_files(scenario_root))
    return ids


def write_reports(report: Report, directory: Path) -> None:
    """Each file is replaced in one rename, so a reader never sees half a report."""
    from conformance.report.files import write_atomic
    from conformance.report.junit import to_junit
    from conformance.report.markdown import to_markdown

    directory.mkdir(parents=True, exist_ok=True)
    write_atomic(
        directory / "report.json",
        json.dumps(report.model_dump(mode="json"), indent=2, ensure_ascii=False) + "\n",
    )
    write_atomic(directory / "junit.xml", to_junit(report))
    write_atomic(directory / "report.md", to_markdown(report))


def _usage_error(message: str) -> int:
    from conformance.report.escape import terminal_text  # the message may quote the implementation

    print(f"error: {terminal_text(message)}", file=sys.stderr)
    return 2


def run_command(args: argparse.Namespace) -> int:
    from conformance.report.metadata import Clock
    from conformance.runner import Selection, layout_problem, nothing_selected, select

    clock = Clock()
    entries: list[baseline.Entry] = []
    if args.expected_failures:
        from conformance import baseline

        try:
            entries = baseline.load(args.expected_failures)
        except baseline.BaselineError as exc:
            return _usage_error(str(exc))
    layout = layout_problem(args.scenarios)
    if layout:
        return _usage_error(layout)
    selection = Selection(set(args.system) if args.system else None, args.keyword)
    items = select(args.scenarios, selection)
    if not items:
        return _usage_error(nothing_selected(args.scenarios, selection))
    return _start_and_play(args, clock, items, entries)


def _start_and_play(
    args: argparse.Namespace,
    clock: Clock,
    items: list[LoadedScenario | LoadError],
    entries: list[baseline.Entry],
) -> int:
    """Claim the report folder, start the implementation, play.

    The folder is claimed before the first case (exit 2 when it is unwritable or another run holds it), so
    a run never plays for an hour and then loses its results; a ``--report-dir`` is claimed even before the
    implementation starts. The default folder carries the name the implementation gives in its hello, so
    it is claimed just after the hello. A run that ends without a report removes the folder it created
    (``discard_if_unused``): a failed start leaves no folder holding only the lock.

    With ``--jobs`` above 1 and an implementation in a process of its own, the hello is a worker's
    (``conformance.parallel``): the pool is started here and lives until the last case is played."""
    from conformance.adapters.registry import create
    from conformance.adapters.stdio import StdioAdapter
    from conformance.report.files import ReportDirectoryError
    from conformance.report.folder import Claim
    from conformance.workers import Pool

    claim = Claim()
    try:
        if args.report_dir:
            claim.take(args.report_dir)
        adapter = create(args.impl, hello_timeout=args.timeout)
    except (AdapterError, ReportDirectoryError) as exc:
        claim.abandon()
        return _usage_error(str(exc))
    with contextlib.ExitStack() as stack:
        stack.callback(adapter.close)
        pool: Pool | None = None
        try:
            if min(args.jobs, len(items)) > 1 and isinstance(adapter, StdioAdapter):
                from conformance import parallel

                adapter.close()  # never started: a stdio adapter starts its process at the hello
                plan = parallel.Plan(args.impl, items, args.timeout, args.timeout)
                pool = stack.enter_context(Pool(plan, min(args.jobs, len(items))))
                info = parallel.hello(pool)
            else:
                info = adapter.hello()
            # Without --system, the run covers the systems the implementation says it implements: a bridge
            # to llmz alone is not "skipping" Akan. Naming a system explicitly keeps its cases, as honest
            # skips.
            systems = set(args.system) if args.system else set(info.systems)
            kept = [index for index, item in enumerate(items) if item.id.split("/", 1)[0] in systems]
            if not kept:
                raise AdapterError(
                    f"none of the selected scenarios belongs to a system {info.name} implements "
                    f"({', '.join(info.systems)}); name one with --system to count them as skips"
                )
            if not args.report_dir:
                claim.take(*_default_folder(args, info.name))
        except (AdapterError, ReportDirectoryError) as exc:
            claim.abandon()
            return _usage_error(str(exc))
        # Everything alive now (the modules, the loaded suite) stays alive for the whole run, so the cyclic
        # garbage collector need not look at it again: frozen, its passes over what the cases allocate cost
        # less than half as much. Unfrozen afterwards, so a process that calls ``main`` again (the tests)
        # collects it as usual.
        gc.freeze()
        try:
            cases = _play(args, adapter, info, items, kept, pool, entries)
            stack.close()  # the implementation's processes and the workers end before the report
            if isinstance(cases, int):  # the implementation broke off the run: no report, so no folder
                claim.abandon()
                return cases
            return _report(args, clock, info, cases, entries, claim.path, systems, claim.note)
        finally:
            gc.unfreeze()
            claim.release()


def _default_folder(args: argparse.Namespace, name: str) -> tuple[Path, str]:
    """The default report folder for the implementation's hello name, and why not that one, if not."""
    from conformance.report.folder import default_folder

    choice = default_folder(BUILD_ROOT / "conformance", name, args.impl)
    return choice.path, choice.note


def _play(
    args: argparse.Namespace,
    adapter: Adapter,
    info: ImplementationInfo,
    items: list[LoadedScenario | LoadError],
    kept: list[int],
    pool: Pool | None,
    entries: list[baseline.Entry],
) -> list[CaseResult] | int:
    """The verdicts of the cases at ``kept``, or exit status 2 when the implementation broke off the run.

    With ``--jobs 1`` they are played here, on the adapter that said hello; with more, by worker
    processes that each start their own (``conformance.parallel``): ``pool`` when the hello was already a
    worker's, else a pool started here once this process's adapter has warmed up what they inherit. Each
    case's duration is remembered for the next run's order (``conformance.timings``)."""
    from conformance import parallel, timings
    from conformance.progress import follow
    from conformance.runner import run_case, verdict_only
    from conformance.workers import Pool

    def system_of(item: LoadedScenario | LoadError) -> str:
        return item.id.split("/", 1)[0]

    note = " (before the baseline)" if entries else ""
    chosen = [items[index] for index in kept]
    jobs = min(args.jobs, len(kept))
    try:
        if pool is not None or jobs > 1:
            seconds = timings.load(info.name)
            with contextlib.ExitStack() as stack:
                done: dict[int, CaseResult] = {}
                if pool is None:  # the harness's own adapter warms up what the forked workers inherit
                    done = parallel.warm_up(adapter, info, items, kept, args.timeout)
                    plan = parallel.Plan(args.impl, items, args.timeout, args.timeout)
                    pool = stack.enter_context(Pool(plan, jobs))
                cases = follow(chosen, system_of, parallel.play(pool, items, kept, done, seconds), note)
        else:
            # Judged as each case completes; only the verdict is kept, never the record (it may be 100 MB).
            # A stop whose exception a ``__del__`` swallowed is raised again before the next case.
            def played() -> Iterator[CaseResult]:
                for item in chosen:
                    stopping.check()
                    yield verdict_only(run_case(adapter, info, item, args.timeout))

            cases = follow(chosen, system_of, played(), note)
    except AdapterError as exc:
        return _usage_error(str(exc))
    timings.save(info.name, ((case.id, case.duration_ms / 1000) for case in cases))
    return cases


def _report(
    args: argparse.Namespace,
    clock: Clock,
    info: ImplementationInfo,
    cases: list[CaseResult],
    entries: list[baseline.Entry],
    directory: Path,
    systems: set[str],
    note: str = "",
) -> int:
    """Judge the run as a whole (baseline, catalogue coverage) and write every report file."""
    from conformance.catalogue.load import load_catalogue
    from conformance.report import console, html
    from conformance.report.build import build_report
    from conformance.report.metadata import run_metadata

    catalogue = load_catalogue(args.spec, schema_check=False)  # the schema's agreement: nox -s spec
    catalogue_ids = [i for i in catalogue.ids() if i.split(".")[0] in systems]
    problems = []
    if entries:
        from conformance import baseline

        problems = baseline.apply(cases, entries, known_ids(args.scenarios, catalogue.ids()))
    run = run_metadata(clock, args.spec, args.scenarios)
    excluded = [i for i in catalogue_ids if catalogue.rules[i].rule.excluded is not None]
    report = build_report(args.impl, info, cases, catalogue_ids, problems, run, catalogue.errors, excluded)
    write_reports(report, directory)
    html.write([report], catalogue, directory / "report.html")
    lines = console.render(report, verbose=args.verbose)
    where = f"reports: {directory}" + (f" ({note})" if note else "")
    print("\n".join([*lines[:-1], where, lines[-1]]))
    return 0 if report.ok else 1


def list_mutants() -> int:
    from variants import all_mutants, all_permitted

    mutants = all_mutants()
    for name, mutant in sorted(mutants.items()):
        print(
            f"{name}: breaks {', '.join(mutant.rules)}"
            + (f" ({mutant.description})" if mutant.description else "")
        )
    permitted = all_permitted()
    for name, variant in sorted(permitted.items()):
        print(f"{name}: permitted, exercises {', '.join(variant.exercises)} ({variant.description})")
    print(f"{len(mutants)} mutants, {len(permitted)} permitted variants")
    return 0


def check_mutants(args: argparse.Namespace) -> int:
    from conformance.mutation import judge_mutant, judge_permitted, permitted_lines, report_lines
    from conformance.runner import select
    from conformance.shared_reference import SharedReference
    from variants import all_mutants, all_permitted

    items = select(args.scenarios)
    def wanted(name: str, system: str, rules: Iterable[str]) -> bool:
        named = args.keyword is None or any(args.keyword in text for text in (name, *rules))
        return named and (not args.system or system in args.system)

    mutants = [m for _, m in sorted(all_mutants().items()) if wanted(m.name, m.system, m.rules)]
    permitted = [v for _, v in sorted(all_permitted().items()) if wanted(v.name, v.system, v.exercises)]
    if not mutants and not permitted:
        return _usage_error(
            "no mutant or permitted variant matches "
            + " and ".join(
                part
                for part in (
                    f"-k {args.keyword!r}" if args.keyword is not None else "",
                    f"--system {', '.join(args.system)}" if args.system else "",
                )
                if part
            )
        )
    caught = [judge_mutant(mutant, items) for mutant in mutants]
    shared = SharedReference()  # one plain run per case, reused where a variant cannot change it
    accepted = [judge_permitted(variant, items, shared) for variant in permitted]
    mutant_lines, variant_lines = report_lines(caught), permitted_lines(accepted)
    print("\n".join([*mutant_lines[:-1], *variant_lines[:-1], mutant_lines[-1], variant_lines[-1]]))
    ok = (
        bool(caught or accepted)
        and all(r.status == "killed" for r in caught)
        and all(r.accepted for r in accepted)
    )
    return 0 if ok else 1


def main(argv: list[str] | None = None, prog: str = "python -m conformance") -> int:
    """Run one command; a stop the user asks for (Ctrl-C, SIGTERM, SIGHUP) ends it with one line and
    ``128 + signal``, its child processes killed, and no traceback (``conformance.stopping``)."""
    args = _parser(prog).parse_args(argv)
    with stopping.handling_stops():
        try:
            return _command(args)
        except stopping.Stopped as stop:
            print(f"error: {stopping.describe(stop)}", file=sys.stderr)
            return stopping.exit_status(stop)


def _command(args: argparse.Namespace) -> int:
    if args.command == "list-mutants":
        return list_mutants()
    if args.command == "check-mutants":
        return check_mutants(args)
    if args.command == "fuzz":
        from conformance.fuzz.command import command as fuzz

        return fuzz(args)
    if args.command == "spec":
        from conformance.drift.command import command as spec

        return spec(args)
    if args.command in ("compare", "html"):
        from conformance.report import compare, html

        return int(compare.command(args) if args.command == "compare" else html.command(args))
    return run_command(args)


def console_main() -> None:
    """The ``agent-conformance`` console script: the same commands as ``python -m conformance``."""
    status = main(prog="agent-conformance")
    exiting()
    sys.exit(status)
