"""How a ThinkSignal from a tool handler reaches generated code (llmz 1.0.2 semantics).

Two small policies, kept apart so each can be checked (and broken by a mutant) on its own:

* ``honoured`` — a signal counts whether the handler returned it or threw it
  (llmz.think-signal.return-or-throw);
* ``reported`` — every signal of the iteration is reported, not just the first;
* ``INTERRUPTS_PROGRAM`` — the signal does not stop the program: the awaited call resolves to the
  signal's context and the statements after it keep running (llmz.think-signal.context-is-result,
  llmz.think-signal.code-continues).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final, TypeVar

T = TypeVar("T")


def honoured(via: str) -> bool:
    """Whether a signal produced ``via`` "return" or "throw" is recognised as a ThinkSignal."""
    return via in ("return", "throw")


INTERRUPTS_PROGRAM: Final = False
"""Whether raising a signal ends the running program: it never does in 1.0.2
(llmz.think-signal.code-continues, llmz.think-signal.context-is-result)."""


def reported(raised: Sequence[T]) -> list[T]:
    """The signals the next request reports: every one raised in the iteration, in order
    (llmz.think-signal.all-signals-together)."""
    return list(raised)
