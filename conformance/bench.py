"""``python -m conformance.bench``: how fast the suite runs against the reference, in-process and over stdio.

Both runs play the same loaded scenarios (loading is timed separately), so the ratio is the cost of the
protocol: a process boundary, JSON both ways and schema checks. ``--repeat N`` keeps the best of N runs,
which is the least disturbed by whatever else the machine is doing. ``--preview`` instead times the
llmz inspector cutting a 4 MB value to its default 2,000-token preview (it must stay near one tokenization
of the value, about a second, not one per step of its search).
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path

from conformance.adapters.base import Adapter
from conformance.adapters.reference import ReferenceAdapter
from conformance.adapters.stdio import StdioAdapter
from conformance.paths import SCENARIO_ROOT
from conformance.runner import run_all, select
from conformance.scenario.load import LoadedScenario, LoadError


def timed_run(
    make: Callable[[], Adapter], items: list[LoadedScenario | LoadError]
) -> tuple[float, float, int]:
    """(seconds for hello, seconds for the cases, how many passed)."""
    adapter = make()
    try:
        started = time.perf_counter()
        info = adapter.hello()
        greeted = time.perf_counter()
        _, cases = run_all(adapter, items, 60.0)
        finished = time.perf_counter()
    finally:
        adapter.close()
    del info
    return greeted - started, finished - greeted, sum(1 for c in cases if c.verdict == "pass")


def preview_bench(chars: int = 4_000_000) -> int:
    import json

    from reference.llmz.preview import Preserve, preview

    value = [{"id": n, "name": f"item {n}", "tags": ["a", "b"]} for n in range(chars // 60)]
    text = json.dumps(value, indent=2)[:chars]
    shapes: tuple[Preserve, ...] = ("top", "bottom", "both")
    for shape in shapes:
        started = time.perf_counter()
        shown = preview(text, 2000, shape)
        seconds = time.perf_counter() - started
        print(f"preview {shape:6} of {len(text):,} chars -> {len(shown):,} in {seconds:.2f}s")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m conformance.bench", description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3, help="runs per adapter; the best is reported")
    parser.add_argument("--scenarios", type=Path, default=SCENARIO_ROOT, help="scenario root")
    parser.add_argument("--preview", action="store_true", help="time the llmz preview cut instead")
    args = parser.parse_args(argv)
    if args.preview:
        return preview_bench()
    started = time.perf_counter()
    items = select(args.scenarios)
    print(f"loaded {len(items)} scenarios in {time.perf_counter() - started:.2f}s")
    if not items:
        print("no scenarios to run")
        return 0
    adapters: dict[str, Callable[[], Adapter]] = {
        "in-process": ReferenceAdapter,
        "stdio": lambda: StdioAdapter([sys.executable, "-m", "reference.harness"]),
    }
    rates: dict[str, float] = {}
    for name, make in adapters.items():
        runs = [timed_run(make, items) for _ in range(max(1, args.repeat))]
        hello, seconds, passed = min(runs, key=lambda run: run[1])
        rates[name] = len(items) / seconds
        print(
            f"{name:10} {len(items)} scenarios ({passed} pass) in {seconds:.3f}s = "
            f"{rates[name]:.1f} scenarios/s (+ {hello * 1000:.0f} ms hello)"
        )
    print(f"ratio in-process/stdio: {rates['in-process'] / rates['stdio']:.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
