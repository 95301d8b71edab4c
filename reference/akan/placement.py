"""Which declarations and guides an agent gets, from where they are mounted.

Membership is positional: a declaration belongs to the zone it is mounted under, with no key of its own
(akan.zone.membership-is-positional). The root agent sees everything on the page, zones included
(akan.zone.visible-to-root); a zone's agent sees what is mounted inside its zone
(akan.zone.inner-declarations-join-zone). Guides cascade like layouts: an agent gets the guides of the
layouts above the current route plus its own zone's, never a sibling zone's
(akan.zone.guides-follow-layout-cascade), joined outermost first (akan.guide.nested-concatenate-outer-first),
and a layout's guide stops once the route leaves it (akan.guide.withdrawn-on-navigation).
"""

from __future__ import annotations

from collections.abc import Sequence

from conformance.scenario.akan import Guide


def in_view(placed_in: str | None, agent_zone: str | None) -> bool:
    """Whether a declaration mounted in zone ``placed_in`` is on the surface of ``agent_zone``'s agent.

    The reference gives a zone's agent only what is mounted inside the zone; the documents say what joins
    a zone, not whether the rest of the page stays out, so scenarios check only the joining.
    """
    return agent_zone is None or placed_in == agent_zone


def under(route: str, layout: str) -> bool:
    """Whether ``layout``'s subtree renders ``route``: a path-segment prefix, so /task is not under /tasks."""
    prefix = layout.rstrip("/")
    return route == prefix or route.startswith(prefix + "/") or prefix == ""


def guides(all_guides: Sequence[Guide], route: str, agent_zone: str | None) -> list[str]:
    """The guide texts an agent receives for this route, outermost first.

    Depth is the layout's number of path segments; a guide mounted in a zone sits inside the page, so it
    comes after every layout guide. Equal places keep their declaration order.
    """
    def depth(guide: Guide) -> tuple[int, int]:
        return (0 if guide.zone is None else 1, len([part for part in guide.layout.split("/") if part]))

    chosen = [
        guide for guide in all_guides
        if under(route, guide.layout) and (guide.zone is None or in_view(guide.zone, agent_zone))
    ]
    return [guide.text for guide in sorted(chosen, key=depth)]
