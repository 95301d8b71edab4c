"""Deliberately broken variants of the reference ("mutants"), each flipping one rule.

They exist to prove the suite catches what it claims to: for each headline rule there is a mutant, and a
test runs the suite against it and asserts that the cases pinning that rule fail and name the rule id.
A mutant is a patch applied around one scenario run (``unittest.mock.patch`` on the one policy that
implements the rule), so the reference code itself stays clean. Each system lists its mutants in
``reference/<system>/mutants.py`` as ``MUTANTS: list[Mutant]``.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import dataclass


@dataclass(frozen=True)
class Mutant:
    name: str
    rules: tuple[str, ...]
    """The rule ids this mutant breaks: the cases pinning them must fail."""
    patch: Callable[[], AbstractContextManager[object]]
    description: str = ""


def all_mutants() -> dict[str, Mutant]:
    found: dict[str, Mutant] = {}
    for system in ("llmz", "falai", "akan"):
        try:
            module = importlib.import_module(f"reference.{system}.mutants")
        except ModuleNotFoundError as exc:
            if exc.name != f"reference.{system}.mutants":
                raise
            continue
        for mutant in getattr(module, "MUTANTS", []):
            if mutant.name in found:
                raise ValueError(f"two mutants are named {mutant.name!r}")
            found[mutant.name] = mutant
    return found


def get_mutant(name: str) -> Mutant:
    mutants = all_mutants()
    if name not in mutants:
        raise KeyError(f"unknown mutant {name!r}; known: {', '.join(sorted(mutants)) or 'none'}")
    return mutants[name]
