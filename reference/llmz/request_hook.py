"""``onBeforeRequest``: the host's last word on the messages of one model request.

The hook sees the request after tentative compaction and may return other messages; those are what is
sent (llmz.hooks.before-request-replaces). The replacement is only for this request: the session's
history is untouched (llmz.hooks.before-request-not-history), and it is measured again, so a replacement
that does not fit fails the run with TOKEN_OVERFLOW before anything is sent
(llmz.hooks.before-request-must-fit). A compaction prepared for the request is committed only after this
check passes (llmz.compaction.commit-after-fit), which is why ``execute.build_request`` calls it first.
"""

from __future__ import annotations

import copy
from typing import Any

from conformance.scenario.llmz import BeforeRequestHook, ModelSpec
from reference.llmz import budget, tokens
from reference.llmz.errors import LlmzError

Message = dict[str, Any]


def replaced_messages(hook: BeforeRequestHook, messages: list[Message]) -> list[Message]:
    """The hook's answer: copies of the request messages (changing them never reaches history,
    llmz.hooks.request-messages-are-copies) followed by the messages it adds."""
    return [copy.deepcopy(m) for m in messages] + [
        {"role": m.role, "content": m.content} for m in hook.append
    ]


def check_fits(
    instructions: str,
    tools_declared: list[dict[str, Any]],
    messages: list[Message],
    max_tokens: object,
    models: list[ModelSpec],
) -> None:
    """Raise TOKEN_OVERFLOW (phase input) when the replaced request no longer fits its window."""
    window = budget.window_for(
        budget.check_max_tokens(max_tokens),
        [m.input_tokens for m in models],
        [m.output_tokens for m in models],
    )
    needed = (
        tokens.count_instructions(instructions)
        + tokens.count_tools(tools_declared)
        + tokens.count_messages(messages)
    )
    if not budget.fits(window, needed):
        raise LlmzError(
            "TOKEN_OVERFLOW",
            f"the request returned by onBeforeRequest needs {needed} input tokens; {window.input_budget} fit",
            phase="input",
            tokens=needed,
            limit=window.input_budget,
        )
