"""Zones and guides (reference.akan.placement)."""

from __future__ import annotations

from reference.akan.model import Guide
from reference.akan.placement import Placement, under

guides, in_view = Placement().guides, Placement().in_view


def test_layout_prefixes_follow_path_segments() -> None:
    assert under("/tasks/42", "/tasks") and under("/tasks", "/tasks") and under("/x", "/")
    assert not under("/taskslist", "/tasks")


def test_root_sees_every_zone_and_a_zone_agent_its_own() -> None:
    # akan.zone.visible-to-root, akan.zone.inner-declarations-join-zone
    assert in_view("billing", None) and in_view(None, None)
    assert in_view("billing", "billing") and not in_view("team", "billing")


def test_guides_cascade_outer_first_and_skip_sibling_zones() -> None:
    # akan.guide.nested-concatenate-outer-first, akan.zone.guides-follow-layout-cascade
    all_guides = [Guide(text="zone", zone="billing"), Guide(text="deep", layout="/a/b"),
                  Guide(text="root"), Guide(text="sibling", zone="team"), Guide(text="mid", layout="/a")]
    assert guides(all_guides, "/a/b/c", "billing") == ["root", "mid", "deep", "zone"]
    assert guides(all_guides, "/a", None) == ["root", "mid", "zone", "sibling"]


def test_guides_of_a_layout_left_behind_are_withdrawn() -> None:
    # akan.guide.withdrawn-on-navigation
    assert guides([Guide(text="tasks", layout="/tasks")], "/reports", None) == []
