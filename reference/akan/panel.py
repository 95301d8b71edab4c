"""The chat panel as rendered: launcher, classes, header, empty state, slots, code blocks and layout.

The panel is customised in widening steps: props, then the eight slots of ``_overrides.tsx`` (each with an
exported default a replacement can wrap), then a whole replacement. The reference renders it as a plain
description an implementation could report from its own DOM (``final.panel``): which surface each class
reached, which controls the header holds, what the empty transcript shows, which component draws each part,
the language a code block was handed, whether the panel is a full-screen sheet or a card, and how far it
rose above an on-screen keyboard. The names of the parts and the layout words are the reference's; the
documents fix what each one must show.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from reference.akan.model import SLOTS, ChatPanel, Message

#: The line an empty transcript shows when the app gives no ``intro`` (our wording).
EMPTY_STATE = "Ask anything about this page."
#: akan.panel.header-adds-controls: the header's own controls, which ``header`` adds to.
BUILTIN_HEADER: tuple[str, ...] = ("clear", "close")
#: akan.panel.agent-chat-replaces-whole-panel: what the stock panel does that a whole replacement takes on.
PANEL_DUTIES: tuple[str, ...] = ("slash-commands", "compaction-notice", "approval-gate")
#: akan.composer.phone-full-screen: Tailwind's ``sm:`` breakpoint, in CSS pixels (its default).
SM_BREAKPOINT = 640
_FENCE = re.compile(r"^```([^\n`]*)\n(.*?)^```", re.M | re.S)


@dataclass(frozen=True)
class PanelPolicy:
    """Every rendering decision of the panel, one method per documented rule."""

    def starts_open(self, panel: ChatPanel) -> bool:
        """akan.panel.controlled-open: a controlled panel is open exactly when the app's ``open`` says."""
        return panel.open if panel.open is not None else panel.initially_open

    def launcher_drawn(self, panel: ChatPanel) -> bool:
        """akan.panel.controlled-open: ``launcher={false}`` draws no launcher of the chat's own."""
        return panel.launcher

    def launcher_classes(self, panel: ChatPanel) -> list[str]:
        """akan.panel.class-name-targets: ``className`` and ``launcherClassName`` reach the launcher."""
        return [c for c in (panel.class_name, panel.launcher_class_name) if c]

    def panel_classes(self, panel: ChatPanel) -> list[str]:
        """akan.panel.class-name-targets: ``className`` and ``panelClassName`` reach the panel."""
        return [c for c in (panel.class_name, panel.panel_class_name) if c]

    def empty_state(self, panel: ChatPanel) -> str:
        """akan.panel.intro-replaces-empty-state: ``intro`` stands where the empty-state line would."""
        return panel.intro if panel.intro is not None else EMPTY_STATE

    def header(self, panel: ChatPanel) -> list[str]:
        """akan.panel.header-adds-controls: the app's controls beside clear and close, never instead."""
        return [*BUILTIN_HEADER, *panel.header]

    def default_name(self, slot: str) -> str:
        """akan.panel.defaults-exported: ``akanjs/ui``'s default for a slot (``DefaultBubble``)."""
        return "Default" + slot.removeprefix("Agent")

    def duties(self, panel: ChatPanel) -> list[str]:
        """akan.panel.agent-chat-replaces-whole-panel: the stock panel's own duties, none once ``AgentChat``
        replaces it (they are then the replacement's job)."""
        return [] if panel.agent_chat else list(PANEL_DUTIES)

    def parts(self, panel: ChatPanel) -> dict[str, dict[str, Any]]:
        """akan.panel.slots-replace-one-part: who draws each part; a replacement touches its slot only.

        akan.panel.defaults-exported: a replacement that wraps the default names the default it wraps.
        akan.panel.agent-chat-replaces-whole-panel: under ``AgentChat`` every part is the replacement's.
        """
        if panel.agent_chat:
            return {slot: {"drawn_by": "AgentChat", "wraps": None} for slot in SLOTS}
        parts: dict[str, dict[str, Any]] = {}
        for slot in SLOTS:
            if slot in panel.overrides:
                wraps = self.default_name(slot) if panel.overrides[slot] else None
                parts[slot] = {"drawn_by": "override", "wraps": wraps}
            else:
                parts[slot] = {"drawn_by": self.default_name(slot), "wraps": None}
        return parts

    def code_blocks(self, transcript: Sequence[Message]) -> list[dict[str, Any]]:
        """akan.panel.code-slot-gets-language: each fenced block in a reply, drawn by ``AgentCode`` with
        the language written on its fence (None when the fence names none)."""
        blocks: list[dict[str, Any]] = []
        for message in transcript:
            if message.get("role") != "assistant":
                continue
            for info, code in _FENCE.findall(str(message.get("content", ""))):
                language = info.strip().split(" ")[0] or None
                blocks.append({"slot": "AgentCode", "language": language, "code": code})
        return blocks

    def layout(self, width: int) -> str:
        """akan.composer.phone-full-screen: the whole screen below ``sm:``, a card from it up."""
        return "card" if width >= SM_BREAKPOINT else "full-screen"

    def lift(self, keyboard_height: int) -> int:
        """akan.composer.lifts-above-keyboard: how far the panel rises, the keyboard's height as
        ``visualViewport`` reports it."""
        return keyboard_height

    def captures_shortcut(self, panel: ChatPanel) -> bool:
        """akan.mount.launcher-shortcut: Cmd/Ctrl+L is the launcher's unless ``shortcut={false}``."""
        return panel.shortcut

    def storage(self, panel: ChatPanel) -> Literal["session", "local"] | None:
        """Where the transcript is kept across reloads, if anywhere.

        akan.mount.persist-default-off: nowhere unless ``persist`` is given. akan.mount.persist-storage-
        choice: sessionStorage (gone with the tab), or localStorage with ``{ storage: "local" }``.
        """
        if not panel.persist:
            return None
        return "local" if panel.storage == "local" else "session"

    def ends_on_unmount(self, panel: ChatPanel) -> bool:
        """akan.mount.own-session-ends-on-unmount, akan.mount.provided-session-outlives-chat: unmounting
        the chat ends the session only when the chat made it."""
        return panel.session == "own"

    def render(
        self, panel: ChatPanel, transcript: Sequence[Message], is_open: bool, keyboard: int
    ) -> dict[str, Any]:
        """The panel as the user sees it now (the record's ``final.panel``)."""
        shown = [m for m in transcript if m.get("role") in ("user", "assistant", "local")]
        return {
            "open": is_open,
            "launcher": {"drawn": self.launcher_drawn(panel), "classes": self.launcher_classes(panel)},
            "classes": self.panel_classes(panel),
            "header": self.header(panel),
            "empty_state": None if shown else self.empty_state(panel),
            "parts": self.parts(panel),
            "duties": self.duties(panel),
            "code_blocks": self.code_blocks(transcript),
            "layout": self.layout(panel.width),
            "lift": self.lift(keyboard),
        }
