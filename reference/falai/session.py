"""Session state (runs, the floor, the claim ledger, data, the transcript), with its record form.

Only observable state goes into the record (``final.session``): who holds the floor, the runs and where
they stand, the claim ledger's keys, collected data, the transcript and ``lastAssistantAt``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

RunStatus = Literal["active", "suspended", "parked", "waiting", "ended"]
LIVE: tuple[RunStatus, ...] = ("active", "suspended", "parked", "waiting")


@dataclass
class Run:
    run_id: str
    flow_id: str
    anchor: str
    trigger_index: int | None
    input: dict[str, Any]
    started_at: int
    step: int = 0
    status: RunStatus = "active"
    wake_key: str | None = None
    wait_else: str | None = None

    @property
    def live(self) -> bool:
        return self.status in LIVE


@dataclass
class Session:
    session_id: str
    runs: list[Run] = field(default_factory=list)
    floor: str | None = None
    suspended: list[str] = field(default_factory=list)
    """Run ids put aside by a takeover, most recent last; the first live one resumes when the floor frees."""
    claims: dict[str, int] = field(default_factory=dict)
    data: dict[str, Any] = field(default_factory=dict)
    seen_messages: list[str] = field(default_factory=list)
    history: list[dict[str, Any]] = field(default_factory=list)
    last_assistant_at: int | None = None
    last_customer_at: int | None = None
    silence_keys: dict[str, str] = field(default_factory=dict)

    def run(self, run_id: str | None) -> Run | None:
        return next((r for r in self.runs if r.run_id == run_id), None)

    def to_record(self, step_ids: dict[str, list[str]]) -> dict[str, Any]:
        def where(run: Run) -> str | None:
            steps = step_ids.get(run.flow_id, [])
            return steps[run.step] if run.live and run.step < len(steps) else None

        return {
            "floor": self.floor,
            "runs": [
                {"runId": r.run_id, "flowId": r.flow_id, "status": r.status, "step": where(r)}
                for r in self.runs
            ],
            "claims": sorted(self.claims),
            "data": dict(self.data),
            "history": list(self.history),
            "lastAssistantAt": self.last_assistant_at,
        }


def live_run(runs: Sequence[Run], flow_id: str, anchor: str) -> Run | None:
    """falai.live.one-per-anchor: the flow's live run for this anchor, if any (at most one exists)."""
    return next((r for r in runs if r.flow_id == flow_id and r.anchor == anchor and r.live), None)


def stamp_direction(session: Session, direction: Literal["customer", "assistant"], now_ms: int) -> None:
    """falai.event.direction: an event with a ``direction`` marks the session as if that side had just
    spoken (``lastCustomerAt`` or ``lastAssistantAt``), which is what silence wakes are checked against."""
    if direction == "customer":
        session.last_customer_at = now_ms
    else:
        session.last_assistant_at = now_ms
