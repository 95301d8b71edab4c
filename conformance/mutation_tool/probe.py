"""The test command Cosmic Ray runs for each mutant: one system's scenarios, stopping at the first failure.

``python -m conformance.mutation_tool.probe --system falai [--first routing,live]`` plays the system's
scenarios against the (mutated) reference in this process, the areas named by ``--first`` first. Exit
codes and the one line printed tell the scorer how the mutant died:

* a case fails an expectation: prints ``mutation-probe: expectation <case> <rules>``, exits 1 at once;
* cases only error (the runtime raised, timed out or returned a broken record): plays on in case a later
  case fails an expectation, then prints ``mutation-probe: crash <case> <reason>`` and exits 2;
* every case passes and the module's invariant tests (``--invariants``, see ``plan.Target.invariants``)
  fail: prints ``mutation-probe: invariant <files>`` and exits 3;
* every case passes (and every invariant test): prints ``mutation-probe: survived <n> cases`` and exits 0.

The probe runs with the caches off (``CONFORMANCE_CACHE_DIR=off``, see :func:`cold_caches`): the reference
remembers token counts and preview cuts between runs, so with a warm cache a mutant in the code that
computes them (``reference/llmz/preview.py``'s ``kept_chars``, ``tokens.count_text``) is never executed for
any text the unmutated suite has seen, and would survive without being tested.

A mutant that breaks the import of the reference dies before any line is printed; the scorer counts a
missing line as a crash, like a Cosmic Ray timeout.
"""

from __future__ import annotations

import argparse
import builtins
import os
import subprocess
import sys

from cosmic_ray.exceptions import CosmicRayTestingException

from conformance import argtypes
from conformance.adapters.reference import ReferenceAdapter
from conformance.mutation_tool.plan import CASE_TIMEOUT, SYSTEMS
from conformance.runner import Selection, run_case, select
from conformance.scenario.load import LoadedScenario, LoadError
from conformance.yamlcache import ENV as CACHE_ENV

PREFIX = "mutation-probe:"

# Cosmic Ray's exception operator rewrites ``except E`` to ``except CosmicRayTestingException``: the handler
# no longer matches, so E propagates. The name must resolve for that to mean anything (else every such
# mutant dies of a NameError), so the probe makes it a builtin, as Cosmic Ray's documentation asks.
builtins.CosmicRayTestingException = CosmicRayTestingException  # type: ignore[attr-defined]


def ordered(
    items: list[LoadedScenario | LoadError], first: list[str], last: list[str]
) -> list[LoadedScenario | LoadError]:
    """The areas named in ``first`` (in that order) ahead of the rest, those in ``last`` behind it;
    otherwise the runner's order."""

    def rank(item: LoadedScenario | LoadError) -> int:
        parts = item.id.split("/")
        area = parts[1] if len(parts) > 2 else ""
        if area in first:
            return first.index(area)
        return len(first) + (1 if area in last else 0)

    return sorted(items, key=rank)


def probe(
    system: str, first: list[str], last: list[str] | None = None, timeout: float = CASE_TIMEOUT
) -> tuple[int, str]:
    """Play ``system``'s scenarios; the exit code and the line to print (see the module docstring)."""
    items = ordered(select(selection=Selection(systems={system})), first, last or [])
    adapter = ReferenceAdapter()
    info = adapter.hello()
    crash: str | None = None
    for item in items:
        result = run_case(adapter, info, item, timeout)
        if result.verdict == "fail":
            return 1, f"{PREFIX} expectation {result.id} {','.join(result.failing_rules)}"
        if result.verdict == "error" and crash is None:
            reason = result.message.strip().splitlines()[0][:200] if result.message.strip() else "error"
            crash = f"{PREFIX} crash {result.id} {reason}"
    if crash is not None:
        return 2, crash
    return 0, f"{PREFIX} survived {len(items)} cases"


def invariants_hold(files: list[str]) -> bool:
    """Run the invariant tests in a fresh interpreter (the mutated module is imported from the working
    directory, the tree copy) under the tree's own empty ``pytest.ini``, so the clone's pytest settings
    (parallel workers, plugins' options) never apply."""
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider", "-c", "pytest.ini",
         "--rootdir", ".", *files],
        capture_output=True, text=True, check=False, timeout=600,
    )  # fmt: skip
    return done.returncode == 0


def cold_caches() -> None:
    """Turn every cache off for this process and the invariant tests it starts, so the mutated code
    computes each value itself instead of reading what an earlier, unmutated run remembered."""
    os.environ[CACHE_ENV] = "off"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m conformance.mutation_tool.probe", description=__doc__)
    parser.add_argument("--system", required=True, choices=SYSTEMS)
    parser.add_argument("--first", default="", help="comma-separated scenario areas to play first")
    parser.add_argument("--last", default="", help="comma-separated scenario areas to play last")
    parser.add_argument("--invariants", default="", help="comma-separated test files run on a survivor")
    parser.add_argument("--timeout", type=argtypes.seconds, default=CASE_TIMEOUT, help="seconds per case")
    args = parser.parse_args(argv)
    cold_caches()
    code, line = probe(
        args.system,
        [a for a in args.first.split(",") if a],
        [a for a in args.last.split(",") if a],
        args.timeout,
    )
    files = [a for a in args.invariants.split(",") if a]
    if code == 0 and files and not invariants_hold(files):
        code, line = 3, f"{PREFIX} invariant {','.join(files)}"
    print(line, flush=True)
    return code


if __name__ == "__main__":
    sys.exit(main())
