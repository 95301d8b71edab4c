"""Mutants of the chat's own surface rules: store classes, LLM settings, the transcript's costs, speech, the
panel and the composer."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from reference.akan.declarations import Declarations
from reference.akan.model import Store
from variants import Mutant
from variants.mutants.akan.common import mutant


class _StoreMethodsPublished(Declarations):
    """Every method of every store class is offered as a tool of the same name."""

    def store_tools(self, stores: Sequence[Store]) -> list[dict[str, Any]]:
        return [
            {"name": method, "description": f"{store.name}.{method}",
             "parameters": {"type": "object", "properties": {}, "required": []}}
            for store in stores for method in store.methods
        ]


MUTANTS: list[Mutant] = [
    mutant("akan-store-methods-published", "akan.surface.no-derivation-from-store-class",
           "a store class's methods are offered as tools without any declaration",
           declarations=_StoreMethodsPublished()),
]
