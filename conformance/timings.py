"""What each case took the last time it was played, so ``run --jobs N`` hands out the longest first.

Why. With several workers, a run ends when its last worker does. Handed out in scenario order, a
2.5-second case that comes late leaves one worker playing it while the others sit idle: against llmz
1.0.1 that tail cost about a second of an 18-second ``--jobs 2`` run (issue 26). Handing out the longest
cases first (the classic longest-processing-time rule, which keeps the finish within 4/3 of the best
possible) needs each case's duration before it is played, and the only honest estimate is the last run's.
Jest orders its test files the same way, from the timings it cached.

So every run writes what each case took (``save``), per implementation name, into
``build/conformance/.timings/``; the next ``--jobs N`` run against an implementation of that name reads
them (``load``). The order only decides which worker plays a case when: verdicts, reports and the console
come out in scenario order whatever it is. A case never timed before counts as longer than every timed
one (it may be slow), and a missing, unreadable or foreign file is no timings at all, said on stderr when
the file exists but cannot be read: the cache can only make a run faster, never stop it.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
import sys
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

from conformance.paths import BUILD_ROOT

ROOT = BUILD_ROOT / "conformance" / ".timings"
"""Where the timings live: beside the default report folders, one file per implementation name."""


def longest_first(ids: Sequence[str], seconds: Mapping[str, float]) -> list[int]:
    """The positions of ``ids`` in the order to hand them out: untimed first, then slowest first.

    Ties keep scenario order, so the order is a pure function of the ids and the timings."""
    return sorted(range(len(ids)), key=lambda i: (-seconds.get(ids[i], math.inf), i))


def path_for(name: str, root: Path = ROOT) -> Path:
    """The file for an implementation's hello name (anything but letters, digits, ``.``, ``-``, ``_``
    becomes ``_``, so a name cannot leave the folder; a long name keeps its start and a digest, so it
    stays a legal file name and two long names stay apart)."""
    slug = re.sub(r"[^A-Za-z0-9._-]", "_", name).lstrip(".") or "_"
    if len(slug) > _LONGEST:
        slug = f"{slug[:_LONGEST - 17]}-{hashlib.sha256(name.encode()).hexdigest()[:16]}"
    return root / f"{slug}.json"


_LONGEST = 100


def load(name: str, root: Path = ROOT) -> dict[str, float]:
    """The seconds each case took the last time an implementation called ``name`` played it."""
    path = path_for(name, root)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        print(f"note: {path}: not read ({exc}); cases are handed out in scenario order", file=sys.stderr)
        return {}
    if not isinstance(data, dict):
        print(f"note: {path}: expected an object of case ids to seconds; not used", file=sys.stderr)
        return {}
    return {
        key: float(value)
        for key, value in data.items()
        if isinstance(value, int | float) and not isinstance(value, bool) and value >= 0
    }


def save(name: str, played: Iterable[tuple[str, float]], root: Path = ROOT) -> None:
    """Remember what each case of this run took (seconds), beside what earlier runs timed."""
    from conformance.report.files import write_atomic

    path = path_for(name, root)
    seconds = load(name, root)
    seconds.update(played)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(path, json.dumps(dict(sorted(seconds.items())), indent=0) + "\n")
    except OSError as exc:  # a read-only tree: the next run hands cases out in scenario order
        print(f"note: {path}: case timings not saved ({exc})", file=sys.stderr)
