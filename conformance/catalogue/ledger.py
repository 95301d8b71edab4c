"""The id ledger, ``spec/ids.txt``: every catalogue id, sorted, one per line.

Rule ids are stable: scenarios, baselines and other projects' reports refer to them. The ledger makes any
change to the set of ids a visible diff, so an id removed or renamed by accident fails the build instead of
silently orphaning everything that cited it.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

UPDATE_HINT = "run `python -m conformance.catalogue --write-ledger` and commit spec/ids.txt"


def render(ids: Iterable[str]) -> str:
    return "".join(f"{rule_id}\n" for rule_id in sorted(set(ids)))


def read(path: Path) -> list[str]:
    if not path.exists():
        return []
    return [line.strip() for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def _listing(ids: list[str], limit: int = 12) -> str:
    shown = ", ".join(ids[:limit])
    return shown if len(ids) <= limit else f"{shown} and {len(ids) - limit} more"


def differences(ids: Iterable[str], path: Path) -> list[str]:
    """Why the ledger at ``path`` does not match ``ids`` (empty when it is current)."""
    current, recorded = set(ids), set(read(path))
    problems = []
    added = sorted(current - recorded)
    removed = sorted(recorded - current)
    if added:
        problems.append(f"{len(added)} id(s) in the catalogue but not in {path.name}: {_listing(added)}")
    if removed:
        problems.append(
            f"{len(removed)} id(s) in {path.name} but no longer in the catalogue (removed or renamed; "
            f"ids are never reused): {_listing(removed)}"
        )
    if not problems and path.exists() and path.read_text(encoding="utf-8") != render(current):
        problems.append(f"{path.name} is not sorted one id per line")
    if problems:
        problems.append(f"if the change is intended, {UPDATE_HINT}")
    return problems


def write(ids: Iterable[str], path: Path) -> None:
    path.write_text(render(ids), encoding="utf-8")
