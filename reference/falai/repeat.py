"""The claim ledger: may a trigger start a run, and what claim does a start write.

Pure functions over a mapping of claim key -> claimed-at (virtual ms). A claim key is
``<flowId>:<anchor>:<nonce>`` (falai.repeat.claim-key): the nonce is empty for ``'once'`` and cooldowns,
so one key stands for "this flow has run for this anchor"; for ``'always'`` it is the trigger key, so each
key is remembered separately and only the newest 50 are kept (falai.repeat.always-window).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

from reference.falai.definitions import Cooldown, Repeat, duration_ms

TriggerKind = Literal["message", "mention", "silence", "event", "start", "chain"]

#: falai.repeat.always-window
ALWAYS_CLAIMS_KEPT = 50

#: falai.repeat.defaults (also falai.message.repeat-default, falai.mention.repeat-default,
#: falai.silence.repeat-default, falai.event.repeat-default, falai.start.repeat-default).
DEFAULT_REPEAT: dict[TriggerKind, Repeat] = {
    "message": "once",
    "mention": "once",
    "silence": "once",
    "event": "always",
    "start": "always",
    "chain": "always",
}


@dataclass(frozen=True)
class Policy:
    mode: Literal["once", "always", "cooldown"]
    cooldown_ms: int | None = None
    """The cooldown's length, for the cooldown mode only."""


def policy_for(kind: TriggerKind, declared: Repeat | None) -> Policy:
    """The effective policy: ``declared`` is once, always, a :class:`Cooldown`, or None for the default."""
    value = DEFAULT_REPEAT[kind] if declared is None else declared
    if isinstance(value, Cooldown):
        return Policy("cooldown", duration_ms(value.duration))
    if value == "once" or value == "always":
        return Policy(value)
    raise ValueError(f"repeat must be 'once', 'always' or Cooldown(...), got {value!r}")


def claim_key(flow_id: str, anchor: str, policy: Policy, trigger_key: str) -> str:
    """falai.repeat.claim-key"""
    nonce = trigger_key if policy.mode == "always" else ""
    return f"{flow_id}:{anchor}:{nonce}"


def verdict(claims: Mapping[str, int], key: str, policy: Policy, now_ms: int) -> str | None:
    """None when a trigger whose claim key is ``key`` may start a run, else the skip code
    (falai.repeat.once, falai.repeat.always, falai.repeat.cooldown)."""
    if key not in claims:
        return None
    if policy.cooldown_ms is not None:  # the cooldown mode
        return None if now_ms - claims[key] >= policy.cooldown_ms else "cooldown"
    return "already-claimed"


def record_claim(
    claims: dict[str, int], key: str, flow_id: str, anchor: str, policy: Policy, now_ms: int
) -> None:
    """Write the claim ``key`` for a start and trim old always-claims of the same flow and anchor
    (falai.repeat.always-window)."""
    claims[key] = now_ms
    if policy.mode == "always":
        prefix = f"{flow_id}:{anchor}:"
        mine = [k for k in claims if k.startswith(prefix) and k != prefix]
        for old in mine[: max(0, len(mine) - ALWAYS_CLAIMS_KEPT)]:
            del claims[old]
