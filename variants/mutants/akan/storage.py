"""Mutants of restoring web storage: the restore must repair a stored hole and leave a sound transcript be."""

from __future__ import annotations

from reference.akan.model import Message
from reference.akan.sanitize import sanitize
from variants import Mutant
from variants.mutants.akan.common import mutant


def _restore_dropping_results(stored: list[Message], stopped: str) -> list[Message]:
    """Distrusts every stored result: drops them all, so each call comes back answered as stopped."""
    return sanitize([message for message in stored if message.get("role") != "tool"], stopped)


MUTANTS: list[Mutant] = [
    mutant(
        "akan-restore-answers-every-call",
        "akan.sanitize.runs-on-restore",
        "a restored transcript loses its stored results: every call is answered as stopped",
        restore=_restore_dropping_results,
    ),
]
