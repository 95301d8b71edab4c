"""Deliberately broken variants of the akan reference, one rule flipped in each, grouped by area.

Each patch replaces one policy (or one constant a policy reads at call time) for the duration of a run;
``tests/test_akan_mutants.py`` proves that for every rule listed, some case pinning it fails and names it.
``reference.mutants`` reads :data:`MUTANTS` from here.
"""

from __future__ import annotations

from reference.akan.mutants import (
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
from reference.mutants import Mutant

MUTANTS: list[Mutant] = [
    *conversation.MUTANTS, *screen.MUTANTS, *tools.MUTANTS, *state.MUTANTS, *forms.MUTANTS, *ui.MUTANTS,
    *zones.MUTANTS, *mounting.MUTANTS, *voice.MUTANTS, *storage.MUTANTS,
]
