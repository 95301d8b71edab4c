"""How an iteration ends: the single precedence table for everything that can happen in one program.

During one iteration the generated program may, in any order, make tools raise ThinkSignals, attempt an
exit, fail recoverably, or hit a critical failure (cancellation, timeout, a critical host error). Only one
of these decides what happens next. The order is fixed here and nowhere else:

1. a critical failure stops the run (llmz.think-signal.critical-still-stops);
2. any ThinkSignal forces an inspection turn, beating an attempted exit and a later recoverable error
   (llmz.think-signal.beats-exit, llmz.think-signal.beats-later-recoverable-error);
3. a recoverable failure becomes feedback for the next call;
4. an attempted exit is applied (after the chat guard and onExit);
5. otherwise the loop simply continues with the returned or inspected values.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Decision = Literal["critical", "inspect", "recover", "exit", "continue"]


@dataclass(frozen=True)
class Happenings:
    """What one iteration's program did, reduced to the facts the precedence needs."""

    critical: bool
    signalled: bool
    recoverable_error: bool
    exit_attempted: bool


def settle(happened: Happenings) -> Decision:
    """The one decision that ends an iteration, by the precedence in the module docstring."""
    if happened.critical:
        return "critical"
    if happened.signalled:
        return "inspect"
    if happened.recoverable_error:
        return "recover"
    if happened.exit_attempted:
        return "exit"
    return "continue"


def stops_run(status: str) -> bool:
    """Whether an iteration's ending ends the run: an applied exit, or a critical failure, after which no
    further model call is made (llmz.errors.critical-stops)."""
    return status in ("exit_success", "critical_error")
