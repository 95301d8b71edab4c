"""Previews with the host's ``onInspect`` hook in front of the native inspector.

The hook may replace a preview, but it never gets the retained value itself: it sees a copy
(llmz.inspection.on-inspect-snapshot), its text is cut to the same budget as any preview
(llmz.inspection.on-inspect-bounded), ``undefined`` means "format as usual"
(llmz.inspection.on-inspect-undefined-default), and a hook that throws falls back to the usual preview
without disturbing the run (llmz.inspection.on-inspect-failure-fallback). A replaced preview is display
only; the value stays in memory for code and tools (llmz.inspection.redaction-preview-only).
"""

from __future__ import annotations

import copy
from typing import Any

from conformance.scenario.llmz import OnInspectHook
from reference.llmz.preview import Preserve, preview


class HookFailure(Exception):
    """What the scenario's throwing ``onInspect`` raises."""


def _call_hook(hook: OnInspectHook, snapshot: Any) -> str | None:
    """The hook as the scenario describes it; returns None for ``undefined``."""
    if hook.action == "throw":
        raise HookFailure(hook.text or "onInspect failed")
    if hook.action == "mutate" and isinstance(snapshot, dict):
        snapshot.clear()
        snapshot["mutated"] = True
        return None
    if hook.action == "replace":
        return hook.text
    return None


def snapshot(value: Any) -> Any:
    """The isolated copy the hook receives (llmz.inspection.on-inspect-snapshot)."""
    return copy.deepcopy(value)


def present(value: Any, budget: int, preserve: Preserve = "top", hook: OnInspectHook | None = None) -> str:
    """The preview of ``value`` within ``budget`` tokens, after ``onInspect`` had its say."""
    if hook is None:
        return preview(value, budget, preserve)
    try:
        custom = _call_hook(hook, snapshot(value))
    except HookFailure:
        custom = None
    return preview(value if custom is None else custom, budget, preserve)
