"""Mutants of the chat's own surface rules: store classes, LLM settings, the transcript's costs, speech, the
panel and the composer."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any, Literal

from reference.akan import llm
from reference.akan.composer import ComposerPolicy
from reference.akan.declarations import Declarations
from reference.akan.model import Adaptor, ChatPanel, Message, Store
from reference.akan.panel import PanelPolicy
from reference.akan.rows import Estimate, TranscriptView
from reference.akan.speech import SpeechPolicy
from variants import Mutant
from variants.mutants.akan.common import mutant


class _StoreMethodsPublished(Declarations):
    """Every method of every store class is offered as a tool of the same name."""

    def store_tools(self, stores: Sequence[Store]) -> list[dict[str, Any]]:
        return [
            {
                "name": method,
                "description": f"{store.name}.{method}",
                "parameters": {"type": "object", "properties": {}, "required": []},
            }
            for store in stores
            for method in store.methods
        ]


def _key_from_environment(adaptor: Adaptor) -> Adaptor:
    """Falls back to any ``*_API_KEY`` environment variable when setLlm gave no key."""
    resolved = llm.role_option(adaptor)
    found = any(name.endswith("API_KEY") and value for name, value in adaptor.environment.items())
    return resolved if resolved.api_key else replace(resolved, api_key=found)


def _object_form_only(adaptor: Adaptor) -> Adaptor:
    """Ignores a function given to setLlm: only the object form configures the role."""
    return adaptor


class _HeaderCountsLastExchange(TranscriptView):
    def tokens(self, transcript: Sequence[Message], estimate: Estimate) -> int:
        return estimate(list(transcript[-2:]))


class _RowShowsConversationTokens(TranscriptView):
    """Every row shows the running total instead of its own cost."""

    def tool_rows(self, transcript: Sequence[Message], estimate: Estimate) -> list[dict[str, Any]]:
        total = estimate(list(transcript))
        return [{**row, "tokens": total} for row in super().tool_rows(transcript, estimate)]


class _RowOpensPreview(TranscriptView):
    def opened(self, content: str) -> str:
        return content[:200] + ("..." if len(content) > 200 else "")


class _ShiftEnterSends(ComposerPolicy):
    def enter(self, shift: bool) -> Literal["send", "newline"]:
        return "send"


class _GrowsWithoutLimit(ComposerPolicy):
    def rows(self, text: str) -> tuple[int, bool]:
        return text.count("\n") + 1, False


class _HistoryTypedOnly(ComposerPolicy):
    """Only what was typed since the page opened can be walked to."""

    def history(self, transcript: Sequence[Message], typed: Sequence[str]) -> list[str]:
        return list(typed)


class _ArrowsAlwaysWalk(ComposerPolicy):
    def walks(self, key: str, caret_line: int, lines: int) -> bool:
        return True


class _DraftLostOnWalk(ComposerPolicy):
    def bottom_of_walk(self, draft: str) -> str:
        return ""


class _HistoryOverMenu(ComposerPolicy):
    def menu_takes_arrows(self) -> bool:
        return False


class _EnterIgnoresMenu(ComposerPolicy):
    def enter_picks(self) -> bool:
        return False


class _TabInsertsTab(ComposerPolicy):
    def complete(self, text: str, row: str) -> str:
        return text + "\t"


class _EscapeClosesPanel(ComposerPolicy):
    def escape(self, menu_open: bool) -> Literal["menu", "panel"]:
        return "panel"


class _AlwaysCard(PanelPolicy):
    def layout(self, width: int) -> str:
        return "card"


class _NoLift(PanelPolicy):
    def lift(self, keyboard_height: int) -> int:
        return 0


class _LiftedAtRest(PanelPolicy):
    """The panel keeps a small lift even when no keyboard is shown."""

    def lift(self, keyboard_height: int) -> int:
        return max(keyboard_height, 24)


class _ControlledOpenIgnored(PanelPolicy):
    def starts_open(self, panel: ChatPanel) -> bool:
        return panel.initially_open


class _LauncherAlwaysDrawn(PanelPolicy):
    def launcher_drawn(self, panel: ChatPanel) -> bool:
        return True


class _LauncherClassOnPanel(PanelPolicy):
    def panel_classes(self, panel: ChatPanel) -> list[str]:
        extra = [panel.launcher_class_name] if panel.launcher_class_name else []
        return [*super().panel_classes(panel), *extra]


class _IntroIgnored(PanelPolicy):
    def empty_state(self, panel: ChatPanel) -> str:
        return super().empty_state(replace(panel, intro=None))


class _HeaderReplacesBuiltins(PanelPolicy):
    def header(self, panel: ChatPanel) -> list[str]:
        return list(panel.header) or super().header(panel)


class _OverrideTakesWholePanel(PanelPolicy):
    def parts(self, panel: ChatPanel) -> dict[str, dict[str, Any]]:
        parts = super().parts(panel)
        if panel.overrides:
            return {slot: {"drawn_by": "override", "wraps": None} for slot in parts}
        return parts


class _DefaultsNotExported(PanelPolicy):
    def parts(self, panel: ChatPanel) -> dict[str, dict[str, Any]]:
        return {slot: {**part, "wraps": None} for slot, part in super().parts(panel).items()}


class _AgentChatKeepsDuties(PanelPolicy):
    def duties(self, panel: ChatPanel) -> list[str]:
        return super().duties(replace(panel, agent_chat=False))


class _CodeWithoutLanguage(PanelPolicy):
    def code_blocks(self, transcript: Sequence[Message]) -> list[dict[str, Any]]:
        return [{**block, "language": None} for block in super().code_blocks(transcript)]


class _PersistOnByDefault(PanelPolicy):
    def storage(self, panel: ChatPanel) -> Literal["session", "local"] | None:
        return super().storage(panel) or "session"


class _LocalStorageIgnored(PanelPolicy):
    def storage(self, panel: ChatPanel) -> Literal["session", "local"] | None:
        return "session" if panel.persist else None


class _PersistAlwaysLocal(PanelPolicy):
    def storage(self, panel: ChatPanel) -> Literal["session", "local"] | None:
        return "local" if panel.persist else None


class _ShortcutAlwaysCaptured(PanelPolicy):
    def captures_shortcut(self, panel: ChatPanel) -> bool:
        return True


class _ShortcutNeverCaptured(PanelPolicy):
    def captures_shortcut(self, panel: ChatPanel) -> bool:
        return False


class _OwnSessionOutlivesChat(PanelPolicy):
    def ends_on_unmount(self, panel: ChatPanel) -> bool:
        return False


class _ProvidedSessionEnded(PanelPolicy):
    def ends_on_unmount(self, panel: ChatPanel) -> bool:
        return True


def _function_needs_model_and_host(adaptor: Adaptor) -> Adaptor:
    """A setLlm function's settings count only when it names both a model and a host."""
    taken = llm.role_option(adaptor)
    if adaptor.option_function is None:
        return taken
    option = adaptor.option_function({"env": dict(adaptor.environment)})
    return taken if option.model and option.host else replace(taken, settings=adaptor.settings)


MUTANTS: list[Mutant] = [
    mutant(
        "akan-store-methods-published",
        "akan.surface.no-derivation-from-store-class",
        "a store class's methods are offered as tools without any declaration",
        declarations=_StoreMethodsPublished(),
    ),
    mutant(
        "akan-llm-key-from-environment",
        "akan.llm.configured-in-option-ts-not-env",
        "an API key in the server's environment is used when setLlm gave none",
        role_option=_key_from_environment,
    ),
    mutant(
        "akan-set-llm-object-form-only",
        "akan.llm.set-llm-forms",
        "setLlm given a function configures nothing",
        role_option=_object_form_only,
    ),
    mutant(
        "akan-set-llm-function-needs-model-and-host",
        "akan.llm.set-llm-forms",
        "a setLlm function that returns a model without a host configures no model",
        role_option=_function_needs_model_and_host,
    ),
    mutant(
        "akan-header-counts-last-exchange",
        "akan.transcript.header-shows-conversation-tokens",
        "the header counts only the latest exchange",
        transcript_view=_HeaderCountsLastExchange(),
    ),
    mutant(
        "akan-row-shows-conversation-tokens",
        "akan.transcript.tool-row-shows-own-tokens",
        "each tool row shows the conversation's total",
        transcript_view=_RowShowsConversationTokens(),
    ),
    mutant(
        "akan-row-opens-preview",
        "akan.transcript.tool-row-opens-result",
        "an opened tool row shows a 200-character preview",
        transcript_view=_RowOpensPreview(),
    ),
    mutant(
        "akan-shift-enter-sends",
        "akan.composer.enter-sends-shift-enter-newline",
        "Shift+Enter sends like Enter",
        composer=_ShiftEnterSends(),
    ),
    mutant(
        "akan-composer-grows-without-limit",
        "akan.composer.grows-then-scrolls",
        "the composer grows with every line and never scrolls",
        composer=_GrowsWithoutLimit(),
    ),
    mutant(
        "akan-history-typed-only",
        "akan.composer.history-seeded-from-transcript",
        "the arrows walk only what was typed since the page opened",
        composer=_HistoryTypedOnly(),
    ),
    mutant(
        "akan-arrows-always-walk",
        "akan.composer.history-arrows-at-edge-lines",
        "Up and Down walk the history from any line",
        composer=_ArrowsAlwaysWalk(),
    ),
    mutant(
        "akan-draft-lost-on-walk",
        "akan.composer.history-restores-draft",
        "walking back down ends on an empty composer",
        composer=_DraftLostOnWalk(),
    ),
    mutant(
        "akan-history-over-menu",
        "akan.composer.slash-menu-takes-arrows",
        "the arrows walk the history while the / menu is open",
        composer=_HistoryOverMenu(),
    ),
    mutant(
        "akan-enter-ignores-menu",
        "akan.composer.slash-menu-enter-picks",
        "Enter on the open menu sends the typed text",
        composer=_EnterIgnoresMenu(),
    ),
    mutant(
        "akan-tab-inserts-tab",
        "akan.composer.slash-menu-tab-completes",
        "Tab on the open menu types a tab character",
        composer=_TabInsertsTab(),
    ),
    mutant(
        "akan-escape-closes-panel-first",
        "akan.composer.escape-closes-menu-then-panel",
        "the first Escape closes the panel with the menu open",
        composer=_EscapeClosesPanel(),
    ),
    mutant(
        "akan-panel-always-card",
        "akan.composer.phone-full-screen",
        "the panel is a card on a phone too",
        panel=_AlwaysCard(),
    ),
    mutant(
        "akan-panel-no-lift",
        "akan.composer.lifts-above-keyboard",
        "the panel stays put under the on-screen keyboard",
        panel=_NoLift(),
    ),
    mutant(
        "akan-panel-lifted-at-rest",
        "akan.composer.lifts-above-keyboard",
        "the panel stays raised a little with no on-screen keyboard shown",
        panel=_LiftedAtRest(),
    ),
    mutant(
        "akan-controlled-open-ignored",
        "akan.panel.controlled-open",
        "the panel opens as it likes whatever the app's open prop says",
        panel=_ControlledOpenIgnored(),
    ),
    mutant(
        "akan-launcher-always-drawn",
        "akan.panel.controlled-open",
        "launcher={false} still draws the chat's launcher",
        panel=_LauncherAlwaysDrawn(),
    ),
    mutant(
        "akan-launcher-class-on-panel",
        "akan.panel.class-name-targets",
        "launcherClassName reaches the panel too",
        panel=_LauncherClassOnPanel(),
    ),
    mutant(
        "akan-intro-ignored",
        "akan.panel.intro-replaces-empty-state",
        "the empty transcript shows the stock line whatever intro says",
        panel=_IntroIgnored(),
    ),
    mutant(
        "akan-header-replaces-builtins",
        "akan.panel.header-adds-controls",
        "header's controls replace clear and close",
        panel=_HeaderReplacesBuiltins(),
    ),
    mutant(
        "akan-override-takes-whole-panel",
        "akan.panel.slots-replace-one-part",
        "overriding one slot replaces every part",
        panel=_OverrideTakesWholePanel(),
    ),
    mutant(
        "akan-defaults-not-exported",
        "akan.panel.defaults-exported",
        "no default is exported, so a replacement cannot wrap one",
        panel=_DefaultsNotExported(),
    ),
    mutant(
        "akan-agent-chat-keeps-duties",
        "akan.panel.agent-chat-replaces-whole-panel",
        "under an AgentChat replacement the chat still runs its slash commands and approval gate",
        panel=_AgentChatKeepsDuties(),
    ),
    mutant(
        "akan-code-without-language",
        "akan.panel.code-slot-gets-language",
        "AgentCode is not told the fence's language",
        panel=_CodeWithoutLanguage(),
    ),
    mutant(
        "akan-persist-on-by-default",
        "akan.mount.persist-default-off",
        "the transcript is kept in sessionStorage without the persist prop",
        panel=_PersistOnByDefault(),
    ),
    mutant(
        "akan-local-storage-ignored",
        "akan.mount.persist-storage-choice",
        "{ storage: local } still keeps the transcript in sessionStorage",
        panel=_LocalStorageIgnored(),
    ),
    mutant(
        "akan-persist-always-local",
        "akan.mount.persist-storage-choice",
        "persist keeps the transcript in localStorage even without { storage: local }",
        panel=_PersistAlwaysLocal(),
    ),
    mutant(
        "akan-shortcut-always-captured",
        "akan.mount.launcher-shortcut",
        "shortcut={false} still takes Cmd/Ctrl+L from the browser",
        panel=_ShortcutAlwaysCaptured(),
    ),
    mutant(
        "akan-shortcut-never-captured",
        "akan.mount.launcher-shortcut",
        "the launcher leaves Cmd/Ctrl+L to the browser even by default",
        panel=_ShortcutNeverCaptured(),
    ),
    mutant(
        "akan-own-session-outlives-chat",
        "akan.mount.own-session-ends-on-unmount",
        "a session the chat made keeps running after the chat unmounts",
        panel=_OwnSessionOutlivesChat(),
    ),
    mutant(
        "akan-provided-session-ended",
        "akan.mount.provided-session-outlives-chat",
        "unmounting a chat ends a session its provider owns",
        panel=_ProvidedSessionEnded(),
    ),
    mutant(
        "akan-speak-not-cancellable",
        "akan.speech.voice-engine-contract",
        "a speak call in progress cannot be cancelled by Stop",
        speech=SpeechPolicy(cut_off_by=frozenset({"mic"})),
    ),
]
