"""Deliberately broken variants of the akan reference, one rule flipped in each, grouped by area.

Each is a change of ``reference.akan.policies.AkanPolicies``: a constant, a function or a small policy
class replaced by one that breaks the rule. ``tests/test_akan_mutants.py`` proves that for every rule
listed, some case pinning it fails and names it.
"""

from __future__ import annotations

from variants import Mutant
from variants.mutants.akan import (
    chat,
    conversation,
    forms,
    mounting,
    screen,
    state,
    storage,
    tools,
    ui,
    voice,
    zones,
)

MUTANTS: list[Mutant] = [
    *conversation.MUTANTS,
    *screen.MUTANTS,
    *tools.MUTANTS,
    *state.MUTANTS,
    *forms.MUTANTS,
    *ui.MUTANTS,
    *zones.MUTANTS,
    *mounting.MUTANTS,
    *voice.MUTANTS,
    *storage.MUTANTS,
    *chat.MUTANTS,
]
