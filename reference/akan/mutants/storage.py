"""Mutants of restoring web storage: the restore must repair a stored hole and leave a sound transcript be."""

from __future__ import annotations

from unittest import mock

from reference.akan.sanitize import sanitize
from reference.akan.session import ChatSession
from reference.akan.wire import Message
from reference.mutants import Mutant


def _restore_dropping_results(self: ChatSession, stored: list[Message]) -> list[Message]:
    """Distrusts every stored result: drops them all, so each call comes back answered as stopped."""
    return sanitize([message for message in stored if message.get("role") != "tool"])


MUTANTS: list[Mutant] = [
    Mutant(
        "akan-restore-answers-every-call",
        ("akan.sanitize.runs-on-restore",),
        lambda: mock.patch.object(ChatSession, "_restore", _restore_dropping_results),
        "a restored transcript loses its stored results: every call is answered as stopped",
    ),
]
