"""What the akan mutant modules share: a mutant as the policy fields it replaces."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

from reference.akan.policies import AkanPolicies
from variants import Mutant


def mutant(
    name: str,
    rules: tuple[str, ...] | str,
    description: str,
    change: Callable[[AkanPolicies], AkanPolicies] | None = None,
    **fields: Any,
) -> Mutant:
    """A mutant of the akan reference: ``change`` applied to its policies, or ``fields`` replaced in them."""

    def apply(policies: AkanPolicies) -> AkanPolicies:
        return change(policies) if change is not None else replace(policies, **fields)

    return Mutant(
        name, (rules,) if isinstance(rules, str) else rules, description=description, policies=apply
    )
