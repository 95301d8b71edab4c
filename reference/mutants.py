"""Deliberately broken variants of the reference ("mutants"), each flipping one rule.

They exist to prove the suite catches what it claims to: for each headline rule there is a mutant, and a
test runs the suite against it and asserts that the cases pinning that rule fail and name the rule id.
A mutant is a patch applied around one scenario run (``unittest.mock.patch`` on the one policy that
implements the rule), so the reference code itself stays clean. Each system lists its mutants in
``reference/<system>/mutants.py`` as ``MUTANTS: list[Mutant]``; ``variants.all_mutants`` reads them until
each system's mutants have moved to ``variants/mutants/`` as policy changes (then this module goes).
"""

from __future__ import annotations

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
