"""Players: the thin layer that translates a scenario case into calls on the reference's own API.

Together with ``conformance.adapters.reference`` these are the only harness modules that import
``reference``; the reference itself knows nothing of scenarios, YAML or judging. ``play`` is the one
entry point: a case (as it travels on the wire) in, a record out, optionally with a mutant or a permitted
variant (``variants``) whose policy change the player hands to the runtime, and optionally with another
model provider than the scripted one.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from conformance.systems import SYSTEMS
from conformance.systems import get as get_system

if TYPE_CHECKING:
    from conformance.players.common import ProviderFactory
    from variants import PolicyChange, Variant

NAME = "reference"
VERSION = "0.1.0"


class CannotExpress(Exception):
    """Raised by a player for a scenario feature it does not implement: reported as a skip."""


def player_module(system: str) -> Any:
    """The player of one system (``conformance.players.<system>`` once moved, else its legacy home)."""
    for name in (get_system(system).player, f"reference.{system}.play"):
        try:
            return importlib.import_module(name)
        except ModuleNotFoundError as exc:
            if exc.name is not None and name.startswith(exc.name):
                continue
            raise
    raise ModuleNotFoundError(f"no player for system {system!r}")


def hello_info(variant: str | None = None) -> dict[str, Any]:
    """What the reference says in its hello. The capabilities come from ``capabilities`` without importing
    a player (a system missing there is asked through its player)."""
    from conformance.players import capabilities as declared

    capabilities: list[str] = []
    for system in SYSTEMS:
        if system in declared.BY_SYSTEM:
            capabilities.extend(declared.BY_SYSTEM[system])
        else:
            capabilities.extend(getattr(player_module(system), "CAPABILITIES", ()))
    return {
        "name": NAME if variant is None else f"{NAME}[{variant}]",
        "version": VERSION,
        "language": "python",
        "systems": list(SYSTEMS),
        "capabilities": sorted(capabilities),
    }


def resolve_variant(name: str) -> Variant:
    """A mutant or a permitted variant by name (they share one namespace)."""
    from variants import all_mutants, all_permitted

    known: dict[str, Variant] = {**all_mutants(), **all_permitted()}
    if name not in known:
        raise KeyError(
            f"unknown mutant or permitted variant {name!r}; known: {', '.join(sorted(known)) or 'none'}"
        )
    return known[name]


def play(
    payload: dict[str, Any],
    variant: Variant | str | None = None,
    provider: ProviderFactory | None = None,
) -> dict[str, Any]:
    """Play one case and return its record.

    ``payload`` is a case as sent on the wire, or a whole scenario document as loaded from its YAML file
    (the debugging recipe in ``docs/testing-your-runtime.md``): the judging half (title, rules, expect,
    ...) is left out here, as the harness leaves it out of what it sends, so both play the same case.
    """
    # Imported on the first play, not with the package: the stdio server imports the package to greet
    # the harness, and a server that is only greeted (a failed hello, a run whose cases are all skipped)
    # then never builds pydantic or the scenario models.
    from conformance.players.common import scripted_provider
    from conformance.scenario.answer_key import Judging
    from conformance.scenario.cases import parse_case

    if isinstance(variant, str):
        variant = resolve_variant(variant)
    answer_key = {"id", *Judging.model_fields}
    case = parse_case({k: v for k, v in payload.items() if k not in answer_key})
    module = player_module(case.system)
    factory = provider or scripted_provider

    def run(policies: PolicyChange | None) -> dict[str, Any]:
        options: dict[str, Any] = {"provider": factory}
        if policies is not None:
            options["policies"] = policies
        record: dict[str, Any] = module.play(case, **options)
        return record

    return run(None) if variant is None else variant.apply(run)
