"""``onBeforeRequest``: the host's last word on the messages of one model request.

The hook sees the request after tentative compaction and may return other messages; those are what is
sent (llmz.hooks.before-request-replaces). The replacement is only for this request: the session's
history is untouched (llmz.hooks.before-request-not-history), the hook gets copies
(llmz.hooks.request-messages-are-copies), and the replacement is measured again, so one that does not fit
fails the run with TOKEN_OVERFLOW before anything is sent (llmz.hooks.before-request-must-fit). A
compaction prepared for the request is committed only after this check passes
(llmz.compaction.commit-after-fit), which is why ``execute.build_request`` calls it first.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Final

from reference.llmz import budget
from reference.llmz.api import Model
from reference.llmz.errors import LlmzError
from reference.record import snapshot

if TYPE_CHECKING:
    from reference.llmz.policies import Policies

Message = dict[str, Any]
RequestHook = Callable[[list[Message]], list[Message] | None]

MEASURE_REPLACEMENTS: Final = True
"""A request replaced by onBeforeRequest is measured again before it is sent
(llmz.hooks.before-request-must-fit)."""


COPY_MESSAGES: Final = True
"""The hook is handed copies, so changing them in place leaves history alone
(llmz.hooks.request-messages-are-copies)."""


def replaced_messages(
    hook: RequestHook, messages: list[Message], copies: bool = COPY_MESSAGES
) -> list[Message] | None:
    """The hook's answer for copies of the request messages, or None when it leaves them as they are."""
    return hook([snapshot(m) for m in messages] if copies else messages)


def check_fits(
    instructions: str,
    tools_declared: list[dict[str, Any]],
    messages: list[Message],
    max_tokens: object,
    models: Sequence[Model],
    policies: Policies,
) -> None:
    """Raise TOKEN_OVERFLOW (phase input) when the replaced request no longer fits its window."""
    if not policies.measure_hook_replacements:
        return
    window = budget.window_for(
        policies.check_max_tokens(max_tokens),
        [m.input_tokens for m in models],
        [m.output_tokens for m in models],
        policies.effective_limits,
        policies.planned_reserve,
    )
    measure = policies.measure
    needed = (
        measure.count_instructions(instructions)
        + measure.count_tools(tools_declared)
        + measure.count_messages(messages)
    )
    if not policies.input_fits(window, needed):
        raise LlmzError(
            "TOKEN_OVERFLOW",
            f"the request returned by onBeforeRequest needs {needed} input tokens; {window.input_budget} fit",
            phase="input",
            tokens=needed,
            limit=window.input_budget,
        )
