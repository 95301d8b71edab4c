"""Mutants of zones and route guides."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any
from unittest import mock

from reference.akan import (
    placement,
)
from reference.mutants import Mutant

MUTANTS: list[Mutant] = []

_guides = placement.guides


def _guides_inner_first(all_guides: Sequence[Any], route: str, agent_zone: str | None) -> list[str]:
    return list(reversed(_guides(all_guides, route, agent_zone)))


def _guides_any_route(all_guides: Sequence[Any], route: str, agent_zone: str | None) -> list[str]:
    return _guides([g.model_copy(update={"layout": "/"}) for g in all_guides], route, agent_zone)


def _guides_every_zone(all_guides: Sequence[Any], route: str, agent_zone: str | None) -> list[str]:
    return _guides(all_guides, route, None)


MUTANTS += [
    Mutant(
        "akan-guides-inner-first",
        ("akan.guide.nested-concatenate-outer-first",),
        lambda: mock.patch.object(placement, "guides", _guides_inner_first),
        "nested guides are joined innermost first",
    ),
    Mutant(
        "akan-guides-outlive-route",
        ("akan.guide.withdrawn-on-navigation",),
        lambda: mock.patch.object(placement, "guides", _guides_any_route),
        "a layout's guide keeps being sent after the route leaves it",
    ),
    Mutant(
        "akan-sibling-zone-guides",
        ("akan.zone.guides-follow-layout-cascade",),
        lambda: mock.patch.object(placement, "guides", _guides_every_zone),
        "a zone agent also gets the guides of sibling zones",
    ),
    Mutant(
        "akan-zone-agent-sees-nothing-inside",
        ("akan.zone.inner-declarations-join-zone",),
        lambda: mock.patch.object(placement, "in_view", lambda placed_in, agent_zone: agent_zone is None),
        "declarations mounted in a zone are not on its agent's surface",
    ),
    Mutant(
        "akan-root-loses-zones",
        ("akan.zone.visible-to-root",),
        lambda: mock.patch.object(placement, "in_view", lambda placed, agent_zone: placed == agent_zone),
        "wrapping a section in a zone hides it from the root agent",
    ),
]
