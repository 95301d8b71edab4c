"""Permitted variants: the reference making a *different allowed choice* where the documents leave one open.

A mutant breaks one documented rule and the suite must catch it (``variants``). A permitted
variant is its dual: it changes something the documents do not fix (the wording of a note beyond the
documented words, an extra record field, the framing of a summary, an unspecified order, the reading of an
``open_question``) and **every scenario of its system must still pass** against it. A scenario that fails
a permitted variant pins the reference rather than the documents, which is as serious as one that passes
a broken implementation.

A mutant or a variant changes the reference through its public API, never by patching it:

- ``policies``: a function from the system's default policy object (``reference.<system>.policies``) to
  the one this variant runs with, usually ``dataclasses.replace`` of one decision;
- ``transform`` (permitted variants only): a rewrite of the finished record into what an implementation
  making that choice would report (only for choices that change nothing but the report, such as an
  extra field or a header line).

There is deliberately no way to patch the runtime's internals: a rule a mutant cannot reach through the
policy object is a rule the runtime does not yet decide in one place.

Each variant names what it exercises: rule ids from the catalogue, a rule id with ``#open_question`` for
the reading of that rule's open question, or ``protocol:<topic>`` for a freedom the record protocol gives
(``spec/protocol/records/``). ``tests/test_permitted_variants.py`` checks that every name resolves.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from conformance.systems import SYSTEMS

Record = dict[str, Any]
PolicyChange = Callable[[Any], Any]
"""From a system's default policy object to the one a variant runs with."""
Play = Callable[[PolicyChange | None], Record]
"""Plays one case with the given policy change (None: the defaults) and returns its record."""


@dataclass(frozen=True)
class Mutant:
    """The reference with one documented rule broken: the scenarios pinning ``rules`` must fail."""

    name: str
    rules: tuple[str, ...]
    """The rule ids this mutant breaks: the cases pinning them must fail."""
    description: str = ""
    policies: PolicyChange = field(kw_only=True)

    @property
    def system(self) -> str:
        return self.rules[0].split(".", 1)[0]

    def apply(self, play: Play) -> Record:
        return play(self.policies)


@dataclass(frozen=True)
class Permitted:
    name: str
    system: str
    exercises: tuple[str, ...]
    """Rule ids, ``<rule-id>#open_question``, or ``protocol:<topic>``: what the documents leave open here."""
    description: str
    transform: Callable[[Record], Record] | None = None
    policies: PolicyChange | None = None

    def apply(self, play: Play) -> Record:
        """Play one case the way an implementation making this choice would, and return its record."""
        record = play(self.policies)
        return self.transform(record) if self.transform is not None else record


Variant = Mutant | Permitted


def all_mutants() -> dict[str, Mutant]:
    found: dict[str, Mutant] = {}
    for system in SYSTEMS:
        module = importlib.import_module(f"variants.mutants.{system}")
        for mutant in getattr(module, "MUTANTS", []):
            if not isinstance(mutant, Mutant):
                raise TypeError(f"variants.mutants.{system}.MUTANTS holds {mutant!r}, not a Mutant")
            if mutant.name in found:
                raise ValueError(f"two mutants are named {mutant.name!r}")
            found[mutant.name] = mutant
    return found


def get_mutant(name: str) -> Mutant:
    mutants = all_mutants()
    if name not in mutants:
        raise KeyError(f"unknown mutant {name!r}; known: {', '.join(sorted(mutants)) or 'none'}")
    return mutants[name]


def all_permitted() -> dict[str, Permitted]:
    found: dict[str, Permitted] = {}
    for system in SYSTEMS:
        module = importlib.import_module(f"variants.{system}")
        for variant in getattr(module, "PERMITTED", []):
            if variant.name in found:
                raise ValueError(f"two permitted variants are named {variant.name!r}")
            if variant.system != system:
                raise ValueError(f"{variant.name!r} is listed under {system}, not {variant.system!r}")
            found[variant.name] = variant
    return found


def get_permitted(name: str) -> Permitted:
    known = all_permitted()
    if name not in known:
        raise KeyError(f"unknown permitted variant {name!r}; known: {', '.join(sorted(known)) or 'none'}")
    return known[name]
