"""The blast radius of a rule: the scenarios naming it, their goldens, and the variants built around it.

Pure lookups over an ``Index`` that ``command`` builds from the clone (scenario files, golden files,
``variants``), so a test can hand in a small index of its own.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Index:
    scenarios: dict[str, tuple[str, ...]] = field(default_factory=dict)
    """Scenario id (``llmz/chat-guard/opt-out``) -> the rule ids its ``rules:`` list names."""
    goldens: frozenset[str] = frozenset()
    """Golden transcripts present, as paths under fixtures/golden (``llmz/chat-guard/opt-out.json``)."""
    mutants: dict[str, tuple[str, ...]] = field(default_factory=dict)
    """Mutant name -> the rules it breaks."""
    permitted: dict[str, tuple[str, ...]] = field(default_factory=dict)
    """Permitted variant name -> what it exercises (rule ids, ``<id>#open_question``, ``protocol:...``)."""


@dataclass(frozen=True)
class Radius:
    scenarios: tuple[str, ...]
    goldens: tuple[str, ...]
    mutants: tuple[str, ...]
    permitted: tuple[str, ...]


def radius(rule_id: str, index: Index) -> Radius:
    scenarios = tuple(sorted(s for s, rules in index.scenarios.items() if rule_id in rules))
    goldens = tuple(f"fixtures/golden/{s}.json" for s in scenarios if f"{s}.json" in index.goldens)
    mutants = tuple(sorted(name for name, rules in index.mutants.items() if rule_id in rules))
    permitted = tuple(
        sorted(name for name, ex in index.permitted.items() if rule_id in {e.split("#", 1)[0] for e in ex})
    )
    return Radius(scenarios, goldens, mutants, permitted)
