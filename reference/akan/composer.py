"""The composer textarea and the keys it answers: send, newline, the sent-message walk and the ``/`` menu.

A textarea owns its caret, so the vertical arrows walk the sent messages only from the draft's first line
(Up) or last line (Down); anywhere else they move the caret (akan.composer.history-arrows-at-edge-lines).
The walk is built from the transcript's user messages, so a restored chat can reach what was sent before
the reload (akan.composer.history-seeded-from-transcript), and walking back down past the newest message
returns the draft the walk started from (akan.composer.history-restores-draft). While the ``/`` menu is
open it is what the arrows, Enter, Tab and the first Escape act on (akan.composer.slash-menu-*,
akan.composer.escape-closes-menu-then-panel).

``ChatUi`` is the panel and its composer over a session: a scenario's ``type``, ``key`` and ``viewport``
steps land here, each reported as one event, and ``final.panel`` is what the panel draws at the end.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any, Literal

from reference.akan.model import ChatPanel, Message
from reference.akan.panel import PanelPolicy

Key = Literal["Enter", "Shift+Enter", "ArrowUp", "ArrowDown", "Tab", "Escape", "Cmd+L", "Ctrl+L"]
#: akan.composer.grows-then-scrolls: the most lines the composer grows to (the documents say "a few").
MAX_ROWS = 6


@dataclass(frozen=True)
class ComposerPolicy:
    """Every decision the composer makes about a key, one method per documented rule."""

    def enter(self, shift: bool) -> Literal["send", "newline"]:
        """akan.composer.enter-sends-shift-enter-newline."""
        return "newline" if shift else "send"

    def rows(self, text: str) -> tuple[int, bool]:
        """akan.composer.grows-then-scrolls: the rows drawn, and whether the content scrolls."""
        lines = text.count("\n") + 1
        return min(lines, MAX_ROWS), lines > MAX_ROWS

    def history(self, transcript: Sequence[Message], typed: Sequence[str]) -> list[str]:
        """akan.composer.history-seeded-from-transcript: the transcript's user messages, oldest first, not
        only what was ``typed`` in this composer since the page opened."""
        return [
            str(m.get("content", "")) for m in transcript if m.get("role") == "user" and not m.get("summary")
        ]

    def walks(self, key: str, caret_line: int, lines: int) -> bool:
        """akan.composer.history-arrows-at-edge-lines: Up from the first line, Down from the last."""
        return caret_line == 0 if key == "ArrowUp" else caret_line == lines - 1

    def bottom_of_walk(self, draft: str) -> str:
        """akan.composer.history-restores-draft: what the composer holds when the walk comes back down."""
        return draft

    def menu_takes_arrows(self) -> bool:
        """akan.composer.slash-menu-takes-arrows: the open menu, not the history, gets Up and Down."""
        return True

    def menu_rows(self, text: str, commands: Sequence[str]) -> list[str]:
        """The rows the menu shows for ``text``, filtered by prefix (the documents are silent on it)."""
        matching = [c for c in commands if c.startswith(text)]
        return matching or list(commands)

    def enter_picks(self) -> bool:
        """akan.composer.slash-menu-enter-picks: Enter on the open menu chooses a row."""
        return True

    def pick(self, row: str) -> Literal["run", "insert"]:
        """akan.composer.slash-menu-enter-picks: Enter chooses the highlighted row; the reference runs it
        (whether it runs or is inserted is open)."""
        return "run"

    def complete(self, text: str, row: str) -> str:
        """akan.composer.slash-menu-tab-completes: the highlighted name replaces ``text``."""
        return row

    def escape(self, menu_open: bool) -> Literal["menu", "panel"]:
        """akan.composer.escape-closes-menu-then-panel: the menu first, the panel on the next press."""
        return "menu" if menu_open else "panel"


class ChatUi:
    """The panel and its composer over a session: what the user types and presses, and what is drawn."""

    def __init__(
        self,
        panel: ChatPanel,
        policy: ComposerPolicy,
        panel_policy: PanelPolicy,
        *,
        send: Callable[[str], None],
        commands: Callable[[], list[str]],
        transcript: Callable[[], Sequence[Message]],
        emit: Callable[..., None],
    ) -> None:
        self.panel, self.policy, self.panel_policy = panel, policy, panel_policy
        self._send, self._commands, self._transcript, self._emit = send, commands, transcript, emit
        self.open = panel_policy.starts_open(panel)
        self.text, self.caret_line = "", 0
        self.walk: int | None = None
        self.draft = ""
        self.menu_dismissed = False
        self.highlight = 0
        self.keyboard = 0
        #: What was sent from this composer since the page opened.
        self.typed: list[str] = []

    # -- state -------------------------------------------------------------------------------------

    def _lines(self) -> int:
        return self.text.count("\n") + 1

    def menu_open(self) -> bool:
        typing_a_name = self.text.startswith("/") and not any(c.isspace() for c in self.text)
        return typing_a_name and not self.menu_dismissed

    def _menu_rows(self) -> list[str]:
        return self.policy.menu_rows(self.text, self._commands())

    def _set_text(self, text: str, caret_line: int | None = None) -> None:
        if text != self.text:
            self.menu_dismissed, self.highlight = False, 0
        self.text = text
        self.caret_line = self._lines() - 1 if caret_line is None else min(caret_line, self._lines() - 1)

    def _report(self, key: str | None, **extra: Any) -> None:
        rows, scrolls = self.policy.rows(self.text)
        menu = None
        if self.menu_open():
            menu_rows = self._menu_rows()
            menu = {"rows": menu_rows, "highlighted": menu_rows[self.highlight % len(menu_rows)]}
        self._emit(
            "composer", key=key, text=self.text, caret_line=self.caret_line, rows=rows, scrolls=scrolls,
            menu=menu, panel_open=self.open, **extra,
        )

    def _set_open(self, is_open: bool) -> None:
        """Open or close the panel; a controlled panel asks the app through ``onOpenChange``.

        akan.panel.controlled-open: the app's handler is taken to follow the request.
        """
        if is_open != self.open:
            self._emit("open_change", open=is_open, controlled=self.panel.open is not None)
            self.open = is_open

    # -- steps -------------------------------------------------------------------------------------

    def _stock(self) -> None:
        if self.panel.agent_chat:
            raise ValueError("the composer belongs to the app's AgentChat replacement; no stock keys")

    def type(self, text: str, caret_line: int | None = None) -> None:
        """The user types: the composer now holds ``text`` with the caret on ``caret_line`` (default last)."""
        self._stock()
        self.walk = None
        self._set_text(text, caret_line)
        self._report(None)

    def press(self, key: Key) -> None:
        """One key press in the composer (or, for Cmd/Ctrl+L, anywhere on the page)."""
        self._stock()
        if key in ("Cmd+L", "Ctrl+L"):
            captured = self.panel_policy.captures_shortcut(self.panel)
            if captured:
                self._set_open(True)
            self._report(key, captured=captured)
            return
        extra: dict[str, Any] = {}
        menu = self.menu_open()
        if key in ("Enter", "Shift+Enter"):
            extra = self._enter(key == "Shift+Enter", menu)
        elif key in ("ArrowUp", "ArrowDown"):
            self._arrow(key, menu)
        elif key == "Tab":
            if menu:
                rows = self._menu_rows()
                self._set_text(self.policy.complete(self.text, rows[self.highlight % len(rows)]))
        elif key == "Escape":
            if self.policy.escape(menu) == "menu":
                self.menu_dismissed = True
            else:
                self._set_open(False)
        self._report(key, **extra)

    def _enter(self, shift: bool, menu: bool) -> dict[str, Any]:
        if menu and not shift and self.policy.enter_picks():
            rows = self._menu_rows()
            row = rows[self.highlight % len(rows)]
            how = self.policy.pick(row)
            if how == "run":
                self._set_text("")
                self._send(row)
            else:
                self._set_text(row + " ")
            return {"picked": row}
        if self.policy.enter(shift) == "newline":
            self._set_text(self.text + "\n")
            return {}
        text = self.text
        if text.strip():
            self.walk, self.draft = None, ""
            self._set_text("")
            self.typed.append(text)
            self._send(text)
        return {}

    def _arrow(self, key: str, menu: bool) -> None:
        if menu and self.policy.menu_takes_arrows():
            self.highlight += 1 if key == "ArrowDown" else -1
            return
        if not self.policy.walks(key, self.caret_line, self._lines()):
            self.caret_line += -1 if key == "ArrowUp" else 1
            return
        history = self.policy.history(self._transcript(), self.typed)
        if key == "ArrowUp":
            if not history:
                return
            if self.walk is None:
                self.draft, self.walk = self.text, len(history) - 1
            else:
                self.walk = max(0, self.walk - 1)
            self._set_text(history[self.walk])
        elif self.walk is not None:
            self.walk += 1
            if self.walk >= len(history):
                self.walk = None
                self._set_text(self.policy.bottom_of_walk(self.draft))
            else:
                self._set_text(history[self.walk])

    def viewport(self, width: int | None, keyboard: int | None) -> None:
        """The viewport changes: its width, or the on-screen keyboard's height (0: hidden)."""
        if width is not None:
            self.panel = replace(self.panel, width=width)
        if keyboard is not None:
            self.keyboard = keyboard
        self._emit(
            "viewport", width=self.panel.width, keyboard=self.keyboard,
            layout=self.panel_policy.layout(self.panel.width), lift=self.panel_policy.lift(self.keyboard),
        )

    def render(self) -> dict[str, Any]:
        return self.panel_policy.render(self.panel, self._transcript(), self.open, self.keyboard)
