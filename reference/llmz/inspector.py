"""Previews with the host's ``onInspect`` hook in front of the native inspector.

The hook may replace a preview, but it never gets the retained value itself: it sees a copy
(llmz.inspection.on-inspect-snapshot), its text is cut to the same budget as any preview
(llmz.inspection.on-inspect-bounded), ``None`` (JavaScript's ``undefined``) means "format as usual"
(llmz.inspection.on-inspect-undefined-default), and a hook that throws falls back to the usual preview
without disturbing the run (llmz.inspection.on-inspect-failure-fallback). A replaced preview is display
only; the value stays in memory for code and tools (llmz.inspection.redaction-preview-only). Each call
tells the hook what the preview is for and whose value it is (llmz.inspection.on-inspect-context).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from reference.llmz.preview import Preserve
from reference.record import snapshot as isolated_copy

if TYPE_CHECKING:
    from reference.llmz.policies import Policies

RESULT = "result"
"""The purpose of a result preview (a returned or inspected value, a tool result, a signal's context)."""


@dataclass(frozen=True)
class InspectEvent:
    """What ``onInspect`` is called with: a copy of the value, the purpose of the preview and the identity
    of the value (the iteration, and the tool whose result it is), read-only
    (llmz.inspection.on-inspect-context). The reference previews results only, so its purpose is always
    ``result``; the guide also names ``variable`` and leaves the full list open."""

    value: Any
    purpose: str
    identity: Mapping[str, Any] | None = None


InspectHook = Callable[[InspectEvent], Any]
Preview = Callable[[Any, int, Preserve], str]
Ask = Callable[[Any, str, Mapping[str, Any] | None], Any]
"""(retained value, purpose, identity) -> what the host's hook answered (it may raise)."""


def snapshot(value: Any) -> Any:
    """The isolated copy the hook receives (llmz.inspection.on-inspect-snapshot)."""
    return isolated_copy(value)


def inspect_event(copy: Any, purpose: str, identity: Mapping[str, Any] | None) -> InspectEvent:
    """The event handed to the hook: the copy, the purpose and a read-only identity
    (llmz.inspection.on-inspect-context)."""
    return InspectEvent(copy, purpose, None if identity is None else MappingProxyType(dict(identity)))


def asker(hook: InspectHook | None, policies: Policies) -> Ask | None:
    """How a preview asks ``hook``: with a copy of the value, its purpose and its identity."""
    if hook is None:
        return None
    return lambda value, purpose, identity: hook(
        policies.inspect_event(policies.snapshot(value), purpose, identity)
    )


def asked_once(ask: Ask | None) -> Ask | None:
    """``ask``, asked at most once per value, purpose and identity: the reference shows one preview to the
    model and builds the same preview again for its record's ``inspection`` event, and the host's hook
    should see the preview once. The hook's answer (or what it raised) is replayed for the second build."""
    if ask is None:
        return None
    asked: list[tuple[Any, str, Mapping[str, Any] | None, Any, BaseException | None]] = []

    def once(value: Any, purpose: str, identity: Mapping[str, Any] | None) -> Any:
        for seen, seen_purpose, seen_identity, answer, raised in asked:
            if seen is value and seen_purpose == purpose and seen_identity == identity:
                if raised is not None:
                    raise raised
                return answer
        try:
            answer = ask(value, purpose, identity)
        except Exception as exc:
            asked.append((value, purpose, identity, None, exc))
            raise
        asked.append((value, purpose, identity, answer, None))
        return answer

    return once


def bounded_custom(text: Any, budget: int, preserve: Preserve, preview: Preview) -> str:
    """The hook's own preview, cut to the same budget as any other (llmz.inspection.on-inspect-bounded)."""
    return preview(text, budget, preserve)


def present(
    value: Any,
    budget: int,
    preserve: Preserve,
    ask: Ask | None,
    policies: Policies,
    purpose: str = RESULT,
    identity: Mapping[str, Any] | None = None,
) -> str:
    """The preview of ``value`` within ``budget`` tokens, after ``onInspect`` (through ``ask``) had its
    say."""
    preview = policies.previewer
    if ask is None:
        return preview(value, budget, preserve)
    try:
        custom = ask(value, purpose, identity)
    except Exception:  # a throwing hook changes nothing (llmz.inspection.on-inspect-failure-fallback)
        custom = None
    if custom is None:
        return preview(value, budget, preserve)
    return policies.custom_preview(custom, budget, preserve, preview)
