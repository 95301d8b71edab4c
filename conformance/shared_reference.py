"""One run of the plain reference per case, shared by every permitted variant judged in the same process.

Why. Judging a permitted variant plays every scenario of its system against it; with two dozen llmz
variants that was a quarter of the project's test time, although most variants cannot change most cases:
a variant that only rewrites the finished record (``transform``) plays exactly what the reference plays,
and a variant that changes one policy (``policies``) plays exactly what the reference plays in every case
whose run never consulted that policy.

How it stays exact. The reference is deterministic: the same case with the same decisions gives the same
record (the golden transcripts rest on it). Each case is played once with the system's default policy
object replaced by a *tracked copy*, equal field for field, that notes every policy field the run reads
(reading its ``__dict__`` counts as reading them all; ``dataclasses.replace``, ``==`` and ``hash`` read
every field). A variant's record for that case is then taken from the shared run, with the variant's own
``transform`` applied, only when

* the variant changes no policy at all, or
* every field its ``policies`` change produces that is not the very same object as the default's is a
  field the case's run never read (so the variant's run takes the same path and gives the same record);

otherwise the variant plays the case itself. When anything is unknown (the player never asked for
policies, the policy object is not a dataclass, the change raises) the case is played. The records are
the ones the variant's own run would give, so every variant is still judged on its own records, and a
variant that breaks a pinned choice is still rejected (``tests/test_permitted_variants.py`` checks both,
against full replays).

Scope. One ``SharedReference`` lives as long as its owner (a test module's fixture, one ``check-mutants``
run); entries are keyed by the case's content (a SHA-256 of its canonical JSON), not by its id, so two
scenarios with the same id but different content never share a record.
"""

from __future__ import annotations

import copy
import dataclasses
import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from variants import Permitted

Record = dict[str, Any]


def _tracked(default: Any, reads: set[str]) -> Any:
    """A copy of ``default`` (a frozen dataclass instance) that adds the name of every field read to
    ``reads``. Its class is a subclass made for this run, so ``replace`` keeps tracking."""
    names = frozenset(f.name for f in dataclasses.fields(default))
    base: type = type(default)

    class Tracked(base):  # type: ignore[misc]
        def __getattribute__(self, name: str) -> Any:
            if name in names:
                reads.add(name)
            elif name == "__dict__":
                reads.update(names)
            return super().__getattribute__(name)

    Tracked.__name__ = Tracked.__qualname__ = base.__name__
    tracked = copy.copy(default)
    object.__setattr__(tracked, "__class__", Tracked)
    return tracked


@dataclass
class _Run:
    """The plain reference's run of one case: its raw record (or what it raised) and what it consulted."""

    record: Record | None = None
    raised: BaseException | None = None
    reads: set[str] = field(default_factory=set)
    default: Any = None
    """The default policy object the player handed over; None when it never asked for one."""


class SharedReference:
    """Plain-reference runs by case content, and the per-variant shortcut described in the module."""

    def __init__(self) -> None:
        self._runs: dict[str, _Run] = {}
        self._changed: dict[Permitted, tuple[Any, frozenset[str] | None]] = {}
        self.reused = 0
        """How many variant cases were answered from a shared run (for tests and curiosity)."""
        self.replayed = 0
        """How many variant cases had to be played by the variant itself."""

    def _run(self, payload: dict[str, Any]) -> _Run:
        key = hashlib.sha256(json.dumps(payload, sort_keys=True, ensure_ascii=False).encode()).hexdigest()
        if key in self._runs:
            return self._runs[key]
        from conformance.players import play
        from variants import Permitted

        run = _Run()

        def track(default: Any) -> Any:
            if not dataclasses.is_dataclass(default) or isinstance(default, type):
                raise TypeError("not a dataclass")  # never happens with the shipped players
            run.default = default
            return _tracked(default, run.reads)

        tracking = Permitted("reference", str(payload.get("system")), (), "", policies=track)
        try:
            run.record = play(json.loads(json.dumps(payload)), tracking)
        except Exception as exc:
            run.raised = exc
            run.default = None  # never shortcut a case whose tracked run failed: play it for real
        self._runs[key] = run
        return run

    def _changed_fields(self, variant: Permitted, default: Any) -> frozenset[str] | None:
        """The policy fields ``variant`` gives another value than ``default``; None when unknown."""
        cached = self._changed.get(variant)
        if cached is not None and cached[0] is default:
            return cached[1]
        assert variant.policies is not None
        try:
            changed_policies = variant.policies(default)
            changed: frozenset[str] | None = frozenset(
                f.name
                for f in dataclasses.fields(default)
                if getattr(changed_policies, f.name) is not getattr(default, f.name)
            )
        except Exception:
            changed = None
        self._changed[variant] = (default, changed)
        return changed

    def record_for(self, variant: Permitted, payload: dict[str, Any]) -> Callable[[], Record] | None:
        """How to produce ``variant``'s raw record of this case from the shared run (a thunk that may
        raise as the variant's own play would), or None when the variant must play the case itself."""
        run = self._run(payload)
        if variant.policies is not None:
            if run.default is None:
                self.replayed += 1
                return None
            changed = self._changed_fields(variant, run.default)
            if changed is None or changed & run.reads:
                self.replayed += 1
                return None
        elif run.raised is not None:
            self.replayed += 1
            return None
        self.reused += 1
        transform = variant.transform
        raw = run.record

        def produce() -> Record:
            record = copy.deepcopy(raw)
            assert record is not None
            return transform(record) if transform is not None else record

        return produce
