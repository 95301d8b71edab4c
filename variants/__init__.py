"""Permitted variants: the reference making a *different allowed choice* where the documents leave one open.

A mutant breaks one documented rule and the suite must catch it (``reference.mutants``). A permitted
variant is its dual: it changes something the documents do not fix (the wording of a note beyond the
documented words, an extra record field, the framing of a summary, an unspecified order, the reading of an
``open_question``) and **every scenario of its system must still pass** against it. A scenario that fails
a permitted variant pins the reference rather than the documents, which is as serious as one that passes
a broken implementation.

A variant changes the reference in one of two ways, or both:

- ``patch``: a context manager applied around one scenario's run, replacing the policy that makes the
  choice (as mutants do today);
- ``transform``: a rewrite of the finished record into what an implementation making that choice would
  report (only for choices that change nothing but the report, such as an extra field or a header line).

Each variant names what it exercises: rule ids from the catalogue, a rule id with ``#open_question`` for
the reading of that rule's open question, or ``protocol:<topic>`` for a freedom the record protocol gives
(``spec/protocol/records/``). ``tests/test_permitted_variants.py`` checks that every name resolves.
"""

from __future__ import annotations

import contextlib
import importlib
from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Any

SYSTEMS = ("llmz", "falai", "akan")

Record = dict[str, Any]


def _no_patch() -> AbstractContextManager[object]:
    return contextlib.nullcontext()


@dataclass(frozen=True)
class Permitted:
    name: str
    system: str
    exercises: tuple[str, ...]
    """Rule ids, ``<rule-id>#open_question``, or ``protocol:<topic>``: what the documents leave open here."""
    description: str
    patch: Callable[[], AbstractContextManager[object]] = _no_patch
    transform: Callable[[Record], Record] | None = None

    def apply(self, play: Callable[[], Record]) -> Record:
        """Play one case the way an implementation making this choice would, and return its record."""
        with self.patch():
            record = play()
        return self.transform(record) if self.transform is not None else record


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
