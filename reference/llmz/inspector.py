"""Previews with the host's ``onInspect`` hook in front of the native inspector.

The hook may replace a preview, but it never gets the retained value itself: it sees a copy
(llmz.inspection.on-inspect-snapshot), its text is cut to the same budget as any preview
(llmz.inspection.on-inspect-bounded), ``None`` (JavaScript's ``undefined``) means "format as usual"
(llmz.inspection.on-inspect-undefined-default), and a hook that throws falls back to the usual preview
without disturbing the run (llmz.inspection.on-inspect-failure-fallback). A replaced preview is display
only; the value stays in memory for code and tools (llmz.inspection.redaction-preview-only).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from reference.llmz.preview import Preserve
from reference.record import snapshot as isolated_copy

if TYPE_CHECKING:
    from reference.llmz.policies import Policies

InspectHook = Callable[[Any], Any]
Preview = Callable[[Any, int, Preserve], str]


def snapshot(value: Any) -> Any:
    """The isolated copy the hook receives (llmz.inspection.on-inspect-snapshot)."""
    return isolated_copy(value)


def bounded_custom(text: Any, budget: int, preserve: Preserve, preview: Preview) -> str:
    """The hook's own preview, cut to the same budget as any other (llmz.inspection.on-inspect-bounded)."""
    return preview(text, budget, preserve)


def present(value: Any, budget: int, preserve: Preserve, hook: InspectHook | None, policies: Policies) -> str:
    """The preview of ``value`` within ``budget`` tokens, after ``onInspect`` had its say."""
    preview = policies.previewer
    if hook is None:
        return preview(value, budget, preserve)
    try:
        custom = hook(policies.snapshot(value))
    except Exception:  # a throwing hook changes nothing (llmz.inspection.on-inspect-failure-fallback)
        custom = None
    if custom is None:
        return preview(value, budget, preserve)
    return policies.custom_preview(custom, budget, preserve, preview)
