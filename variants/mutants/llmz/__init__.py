"""The llmz reference with one documented rule broken per mutant, each a change of its policy object.

Every mutant is ``Mutant(name, rules, description, policies=...)`` where ``policies`` turns the
reference's ``reference.llmz.policies.Policies`` into the broken one (``dataclasses.replace`` of one
decision); the player hands that object to the runtime. ``tests/test_llmz_mutants.py`` checks
``RUNTIME_MUTANTS`` and ``tests/test_llmz_budget_mutants.py`` ``BUDGET_MUTANTS``: the scenarios pinning
each mutant's rules must fail against it, naming those rules.
"""

from __future__ import annotations

from variants import Mutant
from variants.mutants.llmz.budget import MUTANTS as BUDGET_MUTANTS
from variants.mutants.llmz.contract import MUTANTS as CONTRACT_MUTANTS
from variants.mutants.llmz.definitions import MUTANTS as DEFINITION_MUTANTS
from variants.mutants.llmz.effects import MUTANTS as EFFECT_MUTANTS
from variants.mutants.llmz.history import MUTANTS as HISTORY_MUTANTS
from variants.mutants.llmz.host_api import MUTANTS as HOST_API_MUTANTS
from variants.mutants.llmz.host_calls import MUTANTS as HOST_CALL_MUTANTS
from variants.mutants.llmz.inputs import MUTANTS as INPUT_MUTANTS
from variants.mutants.llmz.model_view import MUTANTS as MODEL_VIEW_MUTANTS
from variants.mutants.llmz.pinned import MUTANTS as PINNED_MUTANTS
from variants.mutants.llmz.runtime import MUTANTS as CORE_MUTANTS
from variants.mutants.llmz.streaming import MUTANTS as STREAMING_MUTANTS

RUNTIME_MUTANTS: list[Mutant] = [
    *CORE_MUTANTS,
    *CONTRACT_MUTANTS,
    *MODEL_VIEW_MUTANTS,
    *INPUT_MUTANTS,
    *STREAMING_MUTANTS,
    *EFFECT_MUTANTS,
    *DEFINITION_MUTANTS,
    *PINNED_MUTANTS,
    *HISTORY_MUTANTS,
    *HOST_API_MUTANTS,
    *HOST_CALL_MUTANTS,
]
"""Everything but the token budget's own mutants."""

MUTANTS: list[Mutant] = [*RUNTIME_MUTANTS, *BUDGET_MUTANTS]

__all__ = ["BUDGET_MUTANTS", "MUTANTS", "RUNTIME_MUTANTS"]
