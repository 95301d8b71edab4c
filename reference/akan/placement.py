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

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from reference.akan.html_tree import Element
from reference.akan.model import Guide, PageTool, StateKey


def under(route: str, layout: str) -> bool:
    """Whether ``layout``'s subtree renders ``route``: a path-segment prefix, so /task is not under /tasks."""
    prefix = layout.rstrip("/")
    return route == prefix or route.startswith(prefix + "/") or prefix == ""


@dataclass(frozen=True)
class Placement:
    """What an agent's surface holds, from where things are mounted and what has unmounted."""

    def in_view(self, placed_in: str | None, agent_zone: str | None) -> bool:
        """Whether something mounted in zone ``placed_in`` is on the surface of ``agent_zone``'s agent.

        akan.zone.visible-to-root, akan.zone.inner-declarations-join-zone. The reference gives a zone's
        agent only what is mounted inside the zone; the documents say what joins a zone, not whether the
        rest of the page stays out, so scenarios check only the joining.
        """
        return agent_zone is None or placed_in == agent_zone

    def guides(self, all_guides: Sequence[Guide], route: str, agent_zone: str | None) -> list[str]:
        """The guide texts an agent receives for this route, outermost first.

        Depth is the layout's number of path segments; a guide mounted in a zone sits inside the page, so
        it comes after every layout guide. Equal places keep their declaration order.
        """
        def depth(guide: Guide) -> tuple[int, int]:
            return (0 if guide.zone is None else 1, len([part for part in guide.layout.split("/") if part]))

        chosen = [
            guide for guide in all_guides
            if under(route, guide.layout) and (guide.zone is None or self.in_view(guide.zone, agent_zone))
        ]
        return [guide.text for guide in sorted(chosen, key=depth)]

    def zone_root(self, page: Element, agent_zone: str | None) -> Element:
        """What readScreen and highlight see: the page, or a zone agent's own container.

        akan.zone.read-screen-limited-to-container: a zone missing from the page shows nothing.
        """
        if agent_zone is None:
            return page
        zone = next((e for e in page.elements() if e.attrs.get("data-agent-zone") == agent_zone), None)
        return zone or Element("#document")

    def unmount(
        self, tools: Sequence[PageTool], keys: Mapping[str, StateKey], gone_tools: Sequence[str],
        gone_keys: Sequence[str],
    ) -> tuple[list[PageTool], dict[str, StateKey]]:
        """The declarations and subscribed keys left once components unmount.

        akan.surface.declaration-is-the-surface: a tool leaves with the component declaring it.
        akan.surface.key-readable-while-reader-mounted, akan.state.unread-sibling-key-unreadable: a key
        stays readable only while a component reading it is mounted.
        """
        left = [tool for tool in tools if tool.name not in gone_tools]
        return left, {key: entry for key, entry in keys.items() if key not in gone_keys}
