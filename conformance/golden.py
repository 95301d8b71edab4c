"""``python -m conformance.golden [--check] [-k SUBSTR]`` (``nox -s snapshots``): regenerate the golden
transcripts and say what moved.

Theory of operation. A golden transcript is the reference's normalised record of one scenario, stored as
``fixtures/golden/<scenario id>.json`` (``golden_text``: pretty JSON, sorted keys, trailing newline);
``tests/test_golden.py`` compares every record with its file, byte for byte. After a deliberate change a
maintainer regenerates them here and reviews the result, so this command ends with one line per golden it
added, changed or removed: the scenario id, the rules the scenario pins, and what moved in the record (per
event type, how many events were added, removed or changed in place, and which other top-level fields
changed). ``--check`` plays and compares the same way but writes nothing and exits 1 when a golden would
change: the review before the write. Files are written directly (one rename each), not through the
snapshot plugin, whose update mode reports only a count and warns about every golden kept outside the
tests' folder.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from conformance.paths import GOLDEN_ROOT, SCENARIO_ROOT


def golden_text(record: Any) -> str:
    """A record as its golden file holds it (the one serialisation; the snapshot test uses it too)."""
    return json.dumps(record, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


@dataclass(frozen=True)
class Moved:
    """One golden that differs from what the reference plays now."""

    scenario: str
    rules: tuple[str, ...]
    kind: str
    """added | changed | removed"""
    summary: str

    def line(self) -> str:
        rules = ", ".join(self.rules) or "no scenario"
        return f"  {self.kind:8} {self.scenario} [{rules}]: {self.summary}"


def _by_type(record: Any) -> dict[str, list[Any]]:
    events = record.get("events") if isinstance(record, dict) else None
    grouped: dict[str, list[Any]] = defaultdict(list)
    for event in events if isinstance(events, list) else []:
        grouped[str(event.get("type")) if isinstance(event, dict) else "?"].append(event)
    return grouped


def _counts(record: Any) -> str:
    grouped = _by_type(record)
    total = sum(len(events) for events in grouped.values())
    kinds = ", ".join(f"{len(events)} {kind}" for kind, events in sorted(grouped.items()))
    return f"{total} events" + (f" ({kinds})" if kinds else "")


def movement(old: Any, new: Any) -> str:
    """What moved between two records: per event type added/removed/changed in place (events of one type
    are paired in order), then the other top-level fields that differ."""
    before, after = _by_type(old), _by_type(new)
    parts = []
    for kind in sorted(set(before) | set(after)):
        was, now = before.get(kind, []), after.get(kind, [])
        changed = sum(1 for a, b in zip(was, now, strict=False) if a != b)
        told = [f"{changed} changed"] if changed else []
        told += [f"{len(now) - len(was)} added"] if len(now) > len(was) else []
        told += [f"{len(was) - len(now)} removed"] if len(was) > len(now) else []
        if told:
            parts.append(f"{kind} {' '.join(told)}")
    fields = (set(old) | set(new)) - {"events"} if isinstance(old, dict) and isinstance(new, dict) else set()
    parts += [f"{key} changed" for key in sorted(fields) if old.get(key) != new.get(key)]
    return "; ".join(parts) or "events reordered"


def _read(path: Path) -> tuple[str | None, Any, str | None]:
    """A golden file's text, its record, and why it is not a golden record (not UTF-8, not JSON, not an
    object), or why it cannot be read at all; ``(None, None, None)`` when there is none. A golden that
    is not JSON is moved, never a traceback (issue 23): regenerating rewrites it."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return None, None, None
    except OSError as exc:
        return None, None, f"cannot be read ({exc.strerror or exc})"
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        return "", None, f"not UTF-8 (byte at offset {exc.start})"
    try:
        record = json.loads(text)
    except ValueError as exc:
        return text, None, f"not JSON ({exc})"
    except RecursionError:
        return text, None, "not JSON this tool can read (nested too deeply)"
    if not isinstance(record, dict):
        return text, None, f"a JSON {type(record).__name__}, not a record object"
    return text, record, None


@dataclass
class Review:
    """What a regeneration found: the goldens that moved, their new texts (None: delete), and scenarios
    the reference gave no record for (nothing is written for those)."""

    played: int = 0
    moved: list[Moved] = field(default_factory=list)
    texts: dict[Path, str | None] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)

    def write(self) -> None:
        """Write every added or changed golden (one rename each), delete every removed one."""
        from conformance.report.files import write_atomic

        for path, text in self.texts.items():
            if text is None:
                path.unlink()
            else:
                path.parent.mkdir(parents=True, exist_ok=True)
                write_atomic(path, text)

    def lines(self, *, written: bool) -> list[str]:
        verb = "" if written else "would be "
        counts = {
            kind: sum(1 for m in self.moved if m.kind == kind) for kind in ("added", "changed", "removed")
        }
        head = ", ".join(f"{n} {verb}{kind}" for kind, n in counts.items())
        lines = [f"ERROR {problem}" for problem in self.problems]
        if not self.moved:
            return [*lines, f"golden transcripts: all {self.played} played are current"]
        return [
            *lines,
            f"golden transcripts: {head} (of {self.played} played)",
            *(m.line() for m in self.moved),
        ]


def _changed(record: Any, wrong: str | None, new: Any) -> str:
    if wrong is not None:
        return f"the golden file is {wrong[:200]}; regenerating replaces it ({_counts(new)})"
    return movement(record, new)


def review(keyword: str | None = None, root: Path = SCENARIO_ROOT, golden: Path = GOLDEN_ROOT) -> Review:
    """Play every (selected) scenario on the in-process reference and compare with its golden file."""
    from conformance.adapters.reference import ReferenceAdapter
    from conformance.runner import Selection, run_case, select

    adapter = ReferenceAdapter()
    info = adapter.hello()
    result = Review()
    items = select(root, Selection(None, keyword))
    for item in items:
        case = run_case(adapter, info, item)
        if case.record is None:
            result.problems.append(
                f"{item.id}: the reference gave no record ({case.verdict}): {case.message}"
            )
            continue
        text, path = golden_text(case.record), golden / f"{item.id}.json"
        old, record, wrong = _read(path)
        if old is None and wrong is not None:
            result.problems.append(f"{path}: the golden {wrong}; expected a JSON file")
            continue
        if old == text:
            continue
        rules = tuple(case.rules)
        moved = (
            Moved(item.id, rules, "added", _counts(case.record))
            if old is None
            else Moved(item.id, rules, "changed", _changed(record, wrong, case.record))
        )
        result.moved.append(moved)
        result.texts[path] = text
    result.played = len(items)
    if keyword is None:  # orphans only mean something when every scenario was played
        known = {item.id for item in items}
        for path in sorted(p for p in golden.rglob("*.json") if not p.is_dir()):
            scenario = path.relative_to(golden).with_suffix("").as_posix()
            if scenario not in known:
                result.moved.append(Moved(scenario, (), "removed", "no scenario has this id any more"))
                result.texts[path] = None
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m conformance.golden", description=__doc__.split("\n")[0])
    parser.add_argument("--check", action="store_true", help="list what would change; write nothing")
    parser.add_argument(
        "-k", dest="keyword", metavar="SUBSTR", help="only scenarios whose id or rules hold it"
    )
    parser.add_argument("--scenarios", type=Path, default=SCENARIO_ROOT, help=argparse.SUPPRESS)
    parser.add_argument("--golden", type=Path, default=GOLDEN_ROOT, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    result = review(args.keyword, args.scenarios, args.golden)
    if not args.check:
        result.write()
    print("\n".join(result.lines(written=not args.check)))
    if result.problems:
        return 1
    return 1 if args.check and result.moved else 0


if __name__ == "__main__":
    sys.exit(main())
