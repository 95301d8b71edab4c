"""Mutants of zones and route guides."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from reference.akan.model import Guide
from reference.akan.placement import Placement
from variants import Mutant
from variants.mutants.akan.common import mutant


class _GuidesInnerFirst(Placement):
    def guides(self, all_guides: Sequence[Guide], route: str, agent_zone: str | None) -> list[str]:
        return list(reversed(super().guides(all_guides, route, agent_zone)))


class _ZoneGuidesByLayoutDepth(Placement):
    """A zone's guide is placed by its layout's depth alone, as if it were a layout's, not inside the page."""

    def guides(self, all_guides: Sequence[Guide], route: str, agent_zone: str | None) -> list[str]:
        def depth(guide: Guide) -> int:
            return len([part for part in guide.layout.split("/") if part])

        shown = super().guides(all_guides, route, agent_zone)
        ordered = sorted((g for g in all_guides if g.text in shown), key=depth)
        return [g.text for g in ordered]


class _GuidesOutliveRoute(Placement):
    def guides(self, all_guides: Sequence[Guide], route: str, agent_zone: str | None) -> list[str]:
        return super().guides([replace(g, layout="/") for g in all_guides], route, agent_zone)


class _SiblingZoneGuides(Placement):
    def guides(self, all_guides: Sequence[Guide], route: str, agent_zone: str | None) -> list[str]:
        return super().guides(all_guides, route, None)


class _ZoneAgentSeesNothingInside(Placement):
    def in_view(self, placed_in: str | None, agent_zone: str | None) -> bool:
        return agent_zone is None


class _MembershipByKey(Placement):
    """A declaration joins a zone only through a zone key of its own; one mounted inside a zone without a
    key (every declaration a scenario can write) stays with the root agent."""

    def in_view(self, placed_in: str | None, agent_zone: str | None) -> bool:
        return agent_zone is None


class _ZonesNamedBefore(Placement):
    """A zone's agent also gets what is mounted in zones whose names sort at or before its own (the generated
    mutant ``placed_in <= agent_zone`` in reference/akan/placement.py): a sibling's name, not where it is
    mounted, decides what the agent sees, and a sibling's guide joins the cascade."""

    def in_view(self, placed_in: str | None, agent_zone: str | None) -> bool:
        return agent_zone is None or (placed_in is not None and placed_in <= agent_zone)


class _RootLosesZones(Placement):
    def in_view(self, placed_in: str | None, agent_zone: str | None) -> bool:
        return placed_in == agent_zone


MUTANTS: list[Mutant] = [
    mutant(
        "akan-zone-guide-by-layout-depth",
        "akan.guide.nested-concatenate-outer-first",
        "a guide mounted in a zone is ordered by its layout's depth, ahead of deeper layout guides",
        placement=_ZoneGuidesByLayoutDepth(),
    ),
    mutant(
        "akan-guides-inner-first",
        "akan.guide.nested-concatenate-outer-first",
        "nested guides are joined innermost first",
        placement=_GuidesInnerFirst(),
    ),
    mutant(
        "akan-guides-outlive-route",
        "akan.guide.withdrawn-on-navigation",
        "a layout's guide keeps being sent after the route leaves it",
        placement=_GuidesOutliveRoute(),
    ),
    mutant(
        "akan-sibling-zone-guides",
        "akan.zone.guides-follow-layout-cascade",
        "a zone agent also gets the guides of sibling zones",
        placement=_SiblingZoneGuides(),
    ),
    mutant(
        "akan-zone-agent-sees-nothing-inside",
        "akan.zone.inner-declarations-join-zone",
        "declarations mounted in a zone are not on its agent's surface",
        placement=_ZoneAgentSeesNothingInside(),
    ),
    mutant(
        "akan-guides-fixed-per-route",
        "akan.guide.is-a-rendered-component",
        "guides are a setting of the route: one keeps being sent after its component unmounts",
        guides_follow_render=False,
    ),
    mutant(
        "akan-zone-membership-by-key",
        "akan.zone.membership-is-positional",
        "zone membership comes from a per-declaration key, so a keyless library component mounted "
        "in a zone is not on that zone's surface",
        placement=_MembershipByKey(),
    ),
    mutant(
        "akan-zone-sees-zones-named-before",
        ("akan.zone.membership-is-positional", "akan.zone.guides-follow-layout-cascade"),
        "a zone agent also gets what is mounted in zones whose names sort before its own",
        placement=_ZonesNamedBefore(),
    ),
    mutant(
        "akan-root-loses-zones",
        "akan.zone.visible-to-root",
        "wrapping a section in a zone hides it from the root agent",
        placement=_RootLosesZones(),
    ),
]
