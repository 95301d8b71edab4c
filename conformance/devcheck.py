"""A minimal developer loop: play scenarios on the in-process reference and print verdicts.

``python -m conformance.devcheck [PREFIX]`` e.g. ``falai/routing``. The full runner with adapters and
reports is ``python -m conformance run``; this exists so scenario authors get a verdict in one second.
"""

from __future__ import annotations

import sys
import traceback

from conformance.players import play
from conformance.runner import judge_played
from conformance.scenario.load import LoadError, load_all


def main(argv: list[str]) -> int:
    prefix = argv[0] if argv else ""
    failed = 0
    passed = 0
    for item in load_all():
        if not item.id.startswith(prefix):
            continue
        if isinstance(item, LoadError):
            print(f"ERROR {item.id}\n{item.message}")
            failed += 1
            continue
        try:
            mismatches = judge_played(item, play)  # the case and each of its twins
        except Exception:
            print(f"ERROR {item.id}\n{traceback.format_exc()}")
            failed += 1
            continue
        if mismatches:
            failed += 1
            print(f"FAIL  {item.id}")
            for mismatch in mismatches:
                print(f"      {mismatch}")
        else:
            passed += 1
            print(f"pass  {item.id}")
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
