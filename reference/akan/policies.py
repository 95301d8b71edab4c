"""Every decision of the akan chat that an implementation could make differently, in one object.

``ChatSession(..., policies=...)`` reads its decisions only through the ``AkanPolicies`` it is given, so
an alternative reading of an open question, or a deliberately broken rule, is a different policy object
handed to the public API rather than a patch on the runtime. The object only *points at* each rule: the
rule itself is implemented once, in the module named beside its field, which cites its rule id.

Most fields are constants or pure functions. Where the decisions of one area call each other (readScreen's
resolving and rendering, a form's controls and its patch tool, the relay's guards and its admission), the
field is a small frozen policy class instead, so an alternative overrides one method and every decision
that depends on it follows: a broken ``controls`` is what ``operations`` and ``fill`` then see.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from reference.akan import attachments, compaction, digest, explain, llm, sanitize, wire
from reference.akan.attachments import CanRead
from reference.akan.builtins import Builtins, max_turns
from reference.akan.ceilings import Ceilings
from reference.akan.commands import CommandTable, export, retry_transcript
from reference.akan.composer import ComposerPolicy
from reference.akan.cut import choose_cut
from reference.akan.declarations import Declarations, model_text
from reference.akan.forms import FormTools
from reference.akan.local_state import LocalStates
from reference.akan.model import Accepts, Adaptor, ErrorKey, File, Message
from reference.akan.panel import PanelPolicy
from reference.akan.placement import Placement
from reference.akan.relay import RelayPolicy
from reference.akan.rows import TranscriptView
from reference.akan.screen import ScreenReader
from reference.akan.speech import SpeechPolicy
from reference.akan.state_read import StateReader
from reference.akan.ui_components import UiCatalogue

Transcript = list[Message]


@dataclass(frozen=True)
class AkanPolicies:
    """The decisions a ``ChatSession`` runs with; ``DEFAULT_POLICIES`` is the documented behaviour."""

    # -- compaction: reference.akan.compaction, reference.akan.cut, reference.akan.wire ----------------
    default_at_tokens: int = compaction.DEFAULT_AT_TOKENS
    """akan.compaction.threshold.default: ``compact.at`` when the chat sets none."""
    default_keep: int = compaction.DEFAULT_KEEP
    """akan.compaction.summary-replaces-history: ``compact.keep`` when the chat sets none."""
    command_keep: int = compaction.COMMAND_KEEP
    """akan.compaction.command-keeps-nothing: what ``/compact`` keeps beside its summary."""
    chars_per_token: int = wire.CHARS_PER_TOKEN
    """akan.compaction.estimate.four-chars-per-token."""
    should_compact: Callable[[int, int, int | None], bool] = compaction.should_compact
    """akan.compaction.threshold.past, akan.compaction.disabled-at-zero, akan.compaction.no-shrink.held."""
    hold_after: Callable[[int, int], int | None] = compaction.hold_after
    """akan.compaction.no-shrink.held: the hold a summary that shrank nothing leaves."""
    cut: Callable[[Sequence[str], int], int | None] = choose_cut
    """akan.compaction.cut.*: where the summary's part of the transcript ends."""
    digest_max_chars: int = digest.DIGEST_MAX_CHARS
    digest_message_chars: int = digest.DIGEST_MESSAGE_CHARS
    """akan.compaction.summarizer.bounded-digest: the bounds of what the summarizer reads."""
    summary_request: Callable[[Transcript, int, int], dict[str, Any]] = compaction.summary_request
    """akan.compaction.summarizer.no-tools-no-screen."""
    shows_compacting: bool = True
    """akan.compaction.is-compacting: ``isCompacting`` is raised while a summary is written."""
    command_compaction_runs: bool = False
    """akan.compaction.is-compacting#open_question: whether ``/compact`` raises ``isRunning`` as well."""

    # -- the wire: reference.akan.wire, reference.akan.explain, reference.akan.attachments -------------
    on_wire: Callable[[Transcript], Transcript] = wire.on_wire
    """akan.local.withheld-from-wire: the messages a request carries."""
    user_message: Callable[[str, bool], Message] = wire.user_message
    """akan.speech.no-wire-field-for-voice: the message an ask (typed or spoken) adds."""
    explained: Callable[[Message], Message] = explain.explained
    """akan.transcript.error-folded-into-text."""
    provider_message: Callable[[Message, Accepts, CanRead], Message] = attachments.provider_message
    """akan.compaction.summary-as-system-for-provider, akan.attachments.unreadable-note."""
    can_read: Callable[[str, Accepts], bool] = attachments.can_read
    """akan.attachments.accepts-declaration: which attachment kinds an adaptor reads."""

    # -- attachments: reference.akan.ceilings, reference.akan.attachments ------------------------------
    ceilings: Ceilings = field(default_factory=Ceilings)
    """akan.attachments.ceiling.*, akan.attachments.duplicate-refused."""
    persisted: Callable[[Message], Message] = attachments.persisted
    """akan.attachments.persist-names-only: a message as saved to web storage."""
    prompt_message: Callable[[str, Sequence[File]], Message] = attachments.prompt_message
    """akan.attachments.msg-image-same-shape: a prompt's message, images included."""
    unclaimed_file: Literal["kept", "refused"] = "kept"
    """akan.attachments.builtin-read's open question: a file that is neither image nor text and that no
    reader claims is kept as an opaque attachment the provider sees as a note (the reference), or refused
    at the paperclip, naming the file (another reading)."""

    # -- sanitize: reference.akan.sanitize (akan.sanitize.single-function, wherever it runs) -----------
    stopped_result: str = sanitize.STOPPED_RESULT
    """akan.sanitize.stopped-calls-answered-not-erased: the answer a call left without a result gets."""
    sanitize_request: Callable[[Transcript, str], Transcript] = sanitize.sanitize
    """akan.sanitize.runs-on-request-assembly."""
    restore: Callable[[Transcript, str], Transcript] = sanitize.sanitize
    """akan.sanitize.runs-on-restore: a stored transcript as it comes back."""
    cap_store: Callable[[Transcript, int, str], Transcript] = sanitize.cap
    """akan.sanitize.runs-on-capped-store."""
    stop_answers: Callable[[list[dict[str, Any]], str | None], Transcript] = sanitize.left_for_sanitize
    """What Stop writes for the calls it cuts off (akan.builtin.stop-races-running-tool)."""

    # -- slash commands: reference.akan.commands --------------------------------------------------------
    commands: CommandTable = field(default_factory=CommandTable)
    """akan.slash.six-builtins, akan.slash.builtin-wins-collision, akan.slash.new-and-copy-dispatch-first."""
    retry: Callable[[Transcript], Transcript | None] = retry_transcript
    """akan.slash.retry-replays-trailing-user-message."""
    nothing_to_retry: str | None = "There is no message of yours left to retry."
    """The local note of a ``/retry`` with no message of the user's to replay; None writes nothing (the
    documents say neither: akan.slash.six-builtins#open_question)."""
    export: Callable[[str, str, Transcript], dict[str, Any]] = export
    """akan.slash.copy-includes-route-and-time."""
    new_aborts: bool = True
    """akan.slash.new-aborts-then-waits: ``/new`` ends the running turn before emptying the transcript."""
    report_lands_as: Literal["failed-turn", "note"] = "failed-turn"
    """akan.slash.note-and-report: where ``session.report`` writes its failure."""

    # -- the loop and the tools: reference.akan.builtins, declarations, forms, local_state, ui ----------
    max_turns: Callable[[int | None], int] = max_turns
    """akan.builtin.max-turns-bound."""
    builtins: Builtins = field(default_factory=Builtins)
    declarations: Declarations = field(default_factory=Declarations)
    forms: FormTools = field(default_factory=FormTools)
    local_state: LocalStates = field(default_factory=LocalStates)
    ui: UiCatalogue = field(default_factory=UiCatalogue)

    # -- what a turn offers the model: reference.akan.session, reference.akan.page ---------------------
    abort_reaches_tools: bool = True
    """akan.builtin.abort-signal-via-agent-abort: Stop hands a running tool the signal it may honour."""
    stop_cancels_tools: bool = False
    """akan.builtin.abort-signal-via-agent-abort: whether Stop forcibly ends a tool that ignores it."""
    click_runs_handler: bool = True
    """akan.tool.declaration-returns-shared-callable: the callable a person presses runs the tool's body."""
    settles_after_tools: bool = True
    """akan.builtin.settle-after-non-query-tools: the session waits for the screen after every tool that
    is not a query (the reference counts readScreen and readState as the queries)."""
    navigate_awaits_settle: bool = True
    """akan.builtin.navigate-awaits-screen-settle: navigate waits on ``ScreenSettle.wait()`` itself before
    it returns (False: it returns at once and leaves the wait to the session's own after-tool wait)."""
    catalogue_follows_route: bool = True
    """akan.builtin.catalogue-snapshot-per-turn: each turn's tools are those mounted on the route the page
    is on when it starts (False: the route the page opened on, for good)."""
    publishes_store_actions: bool = False
    """akan.tool.st-do-alone-reaches-nobody: whether a store action is a tool by itself."""
    guides_follow_render: bool = True
    """akan.guide.is-a-rendered-component: a guide leaves with its component (False: it is fixed for the
    route, as a page setting would be)."""
    serves_module_docs: bool = False
    """akan.guide.abstract-md-never-served: whether module ``*.abstract.md`` docs ride with the guides."""
    model_text: Callable[[str, Mapping[str, str]], str] = model_text
    """akan.state.model-facing-text-english: a tool description or guide as the model receives it."""

    # -- the surface: reference.akan.placement, state_read, screen --------------------------------------
    placement: Placement = field(default_factory=Placement)
    state: StateReader = field(default_factory=StateReader)
    screen: ScreenReader = field(default_factory=ScreenReader)

    # -- the relay and the adaptor: reference.akan.relay, reference.akan.llm ----------------------------
    relay: RelayPolicy = field(default_factory=RelayPolicy)
    adaptor_error: Callable[[Adaptor, int], ErrorKey | None] = llm.adaptor_error
    """akan.llm.adaptor-null-means-not-configured, akan.llm.adaptor-throw-shows-provider-reason."""
    resolve_error: Callable[[ErrorKey, dict[str, str]], str] = llm.resolve
    """akan.llm.fetch-runner-resolves-error-key."""
    role_option: Callable[[Adaptor], Adaptor] = llm.role_option
    """akan.llm.set-llm-forms, akan.llm.configured-in-option-ts-not-env: what ``setLlm`` gives the role."""
    provider_settings: Callable[[Adaptor], dict[str, str]] = llm.provider_settings
    """akan.llm.settings-belong-to-role."""

    # -- the rendered transcript: reference.akan.rows ----------------------------------------------------
    transcript_view: TranscriptView = field(default_factory=TranscriptView)
    """akan.transcript.header-shows-conversation-tokens, akan.transcript.tool-row-shows-own-tokens,
    akan.transcript.tool-row-opens-result."""

    # -- the panel and its composer: reference.akan.panel, reference.akan.composer ----------------------
    panel: PanelPolicy = field(default_factory=PanelPolicy)
    """akan.panel.*, akan.composer.phone-full-screen, akan.composer.lifts-above-keyboard,
    akan.mount.launcher-shortcut."""
    composer: ComposerPolicy = field(default_factory=ComposerPolicy)
    """akan.composer.* (the keys, the sent-message walk and the ``/`` menu)."""

    # -- speech: reference.akan.speech ------------------------------------------------------------------
    speech: SpeechPolicy = field(default_factory=SpeechPolicy)


DEFAULT_POLICIES = AkanPolicies()
"""The reference's documented behaviour."""
