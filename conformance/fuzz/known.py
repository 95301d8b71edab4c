"""Known deviations for the fuzzer: the rule entries of an expected-failures baseline.

A bounded fuzz run in CI against an implementation that is known to differ from the documents (llmz 1.0.1)
would fail forever as soon as the generator reaches that difference. So ``fuzz --expected-failures FILE``
reads the same baseline ``run`` does (``conformance/baselines/*.yaml``). The rules it knows the
implementation to break are its rule entries, and the ``fails`` rules of its scenario entries (such an entry
says, with its reason, that the implementation breaks those rules in that scenario; a generated case that
disagrees on them alone shows the same deviation from another angle):

* A disagreement is *known* when every rule it failed on is listed, exactly as the runner covers a failing
  case; a case the implementation gave no record for is known when one of the rules its facts speak for is
  listed and that entry has an ``error`` the problem contains (an ``error`` entry says how the case
  errors, so a new kind of crash is never hidden behind a rule listed for a wrong value).
* A known disagreement is counted, named with its reason in the summary, and not written out: it is not a
  new finding. The search goes on looking for disagreements on other rules.
* A scenario entry without ``fails`` (one that says how a case errors) names no rule and is not used (the
  summary says how many). An entry naming neither a rule nor a scenario is an error, as in ``run``.
* Unlike in ``run``, an entry the search did not reach is not stale: a few hundred random cases are no
  evidence that the deviation is gone (``run`` with the scenario that shows it is).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from conformance import baseline


@dataclass(frozen=True)
class Known:
    """Rule entries of a baseline, by rule id."""

    rules: dict[str, baseline.Entry] = field(default_factory=dict)
    ignored: int = 0
    """Scenario entries that name no rule (they say how a case errors)."""

    def covering(self, rules: frozenset[str], fact_rules: Iterable[str], problem: str | None) -> list[str]:
        """The listed rules that explain a disagreement, or [] when it is new.

        ``rules``: what failed (``<error>`` when the implementation gave no record); ``fact_rules``: the
        rules of the case's facts; ``problem``: why there is no record, if there is none.
        """
        if problem is not None:
            return sorted(
                rule
                for rule in set(fact_rules)
                if rule in self.rules and (self.rules[rule].error or "\0") in problem
            )[:1]
        if rules and all(rule in self.rules for rule in rules):
            return sorted(rules)
        return []

    def reason(self, rule: str) -> str:
        return self.rules[rule].reason


class KnownError(ValueError):
    """The baseline cannot be used; says which file and entry."""


def load_known(path: Path, rule_ids: set[str], scenario_ids: set[str]) -> Known:
    """The rule entries of the baseline at ``path``; ``KnownError`` for an unreadable file or an entry
    naming neither a catalogue rule nor a scenario."""
    from conformance import baseline  # only a run with --expected-failures reads one

    try:
        entries = baseline.load(path)
    except baseline.BaselineError as exc:
        raise KnownError(str(exc)) from exc
    rules: dict[str, baseline.Entry] = {}
    ignored = 0
    for entry in entries:
        if entry.id in rule_ids:
            rules[entry.id] = entry
        elif entry.id not in scenario_ids:
            raise KnownError(f"{path}: baseline entry {entry.id!r} names no rule or scenario")
        elif not entry.fails:
            ignored += 1
    for entry in entries:  # a rule's own entry wins over a scenario that fails it
        for rule in entry.fails:
            if rule not in rules:
                reason = f"as in {entry.id}: {entry.reason}"
                rules[rule] = baseline.Entry(id=rule, reason=reason)
    return Known(rules, ignored)
