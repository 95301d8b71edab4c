"""Every choice the llmz runtime makes that a variant may make differently, in one frozen object.

The runtime reads these decisions only through the ``Policies`` it was given (``Session(policies=...)``;
``execute`` and the standalone operations use their session's). Each field points at the one place a rule
is implemented, a pure function or a constant in the module that owns that rule and cites its id; nothing
here decides anything itself. ``DEFAULT_POLICIES`` is the reference: llmz 1.0.2 as the documents describe
it, and the reference's own readings where they leave a choice open.

A variant of the runtime (``variants``: mutants that break one rule, permitted variants that make another
allowed choice) is ``dataclasses.replace(DEFAULT_POLICIES, <field>=...)``, handed to the runtime through
its API. Nothing in the runtime is patched, and no function exists here only to be replaced.

Functions that are composed of other decisions take those decisions as arguments (for instance
``choose_cut`` takes ``protected``); the runtime passes this object's choices, so replacing one decision
changes it everywhere it is used.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from reference.llmz import (
    budget,
    compaction,
    config,
    containment,
    conversation,
    definitions,
    diagnostics,
    effects,
    errors,
    failures,
    feedback,
    guard,
    host_api,
    inspector,
    kernel,
    memory,
    preview,
    prompt,
    pruning,
    request_hook,
    restore,
    signals,
    streaming,
    tokens,
    transcription,
    typescript,
)
from reference.llmz import settle as settlement
from reference.llmz.api import Component, Exit, Tool, Truncated
from reference.llmz.errors import LlmzError
from reference.llmz.reports import Display
from reference.providers.model import Usage


def unwrap_truncated(result: Truncated) -> tuple[Any, Display]:
    """What a ``truncate()`` wrapper leaves: the program gets the whole value and only previews use the
    budget (llmz.inspection.truncate-keeps-data, llmz.inspection.truncate-overrides-budget)."""
    return result.value, (result.max_tokens, result.preserve)  # type: ignore[return-value]


def fresh_program(new_code: str, previous_code: str | None, first_of_execute: bool) -> str:
    """The program an iteration runs: only the model's new one. A program stopped part-way (by a forced
    inspection, or before the session was saved) is never resumed or replayed
    (llmz.error-recovery.think-signal-continue, llmz.persistence.no-paused-stack)."""
    return new_code


def new_session(policies: Policies) -> Any:
    """The session ``execute`` creates when it is given none: a fresh one of its own
    (llmz.sessions.fresh-session-when-omitted). Imported here, not at the top: the session module reads
    its decisions from this one."""
    from reference.llmz.session import Session

    return Session(policies=policies)


def handler_attempts(call: Callable[[], Any], tool: Tool) -> Any:
    """How often a tool handler is called: once, and again after a failure while the tool's ``retries``
    last, never after a cancellation (``reference.llmz.host.IterationHost.with_retries``;
    llmz.errors.tool-execution-failed, llmz.errors.critical-stops). Imported here, not at the top: the host
    module reads its decisions from this one."""
    from reference.llmz.host import IterationHost

    return IterationHost.with_retries(call, tool)


@dataclass(frozen=True)
class Policies:
    """The decisions of the llmz runtime (see the module docstring). Grouped by the rules they serve."""

    # -- chat guard (reference.llmz.guard) ---------------------------------------------------------------
    is_blank: Callable[[str | None], bool] = guard.is_blank
    speaker_after_input: Callable[[guard.Speaker, str, object], guard.Speaker] = guard.speaker_after_input
    speaker_after_delivery: Callable[[guard.Speaker, guard.DeliveryStatus, bool], guard.Speaker] = (
        guard.speaker_after_delivery
    )
    may_listen: Callable[[guard.Speaker, bool], bool] = guard.may_listen
    guard_applies: Callable[[str, str], bool] = guard.guard_applies
    restored_speaker: Callable[[object], guard.Speaker] = guard.restored_speaker
    skip_sends_after_failed_delivery: bool = guard.SKIP_SENDS_AFTER_FAILED_DELIVERY
    caught_delivery_failure_fails: bool = False
    """Whether a failed delivery the program caught still fails the iteration: not in the reference
    (llmz.errors.delivery-failed#open_question)."""

    # -- how an iteration ends (reference.llmz.settle, .signals) -------------------------------------------
    settle: Callable[[settlement.Happenings], settlement.Decision] = settlement.settle
    stops_run: Callable[[str], bool] = settlement.stops_run
    signal_honoured: Callable[[str], bool] = signals.honoured
    signals_interrupt_program: bool = signals.INTERRUPTS_PROGRAM
    reported_signals: Callable[[Sequence[Any]], list[Any]] = signals.reported
    code_to_run: Callable[[str, str | None, bool], str] = fresh_program

    # -- configuration (reference.llmz.config, .definitions, .containment, .kernel) ------------------------
    iterations_allowed: Callable[[int], int] = config.iterations_allowed
    """llmz.configuration.loop-bounds-iterations: how many model iterations ``options.loop`` allows."""
    listen_exit: Exit = config.LISTEN_EXIT
    available_exits: Callable[[Sequence[Exit] | None, bool, Exit], dict[str, Exit]] = config.available_exits
    """llmz.exits.default-exit, llmz.exits.empty-exits-none, llmz.exits.chat-listen-exit: the exits a run
    may complete through, from the configured ones and whether it is a chat."""
    getters_each_iteration: bool = True
    """llmz.tools.dynamic-getters: a tools getter is evaluated again for every iteration."""
    fallback_sequence: Callable[[list[Any]], list[list[Any]]] = config.fallback_sequence
    configuration_problem: Callable[..., LlmzError | None] = definitions.configuration_problem
    result_budget_problem: Callable[[object], LlmzError | None] = definitions.result_budget_problem
    tool_handler_problem: Callable[[config.RunConfig], LlmzError | None] = definitions.handler_problem
    """llmz.errors.invalid-tool: a tool without a handler is refused before any iteration."""
    is_identifier: Callable[[object], bool] = definitions.is_identifier
    javascript_budget: Callable[[int | None], float | None] = containment.javascript_budget
    kernel_definition: str = kernel.DEFINITION

    # -- naming failures (reference.llmz.failures, .typescript) ---------------------------------------------
    classify_failure: Callable[..., LlmzError] = failures.classify_failure
    """The typed error of a program that threw; a typed host error the program rethrew keeps its code
    (llmz.errors.vm-restores-typed)."""
    reserved_declaration: Callable[[str], LlmzError | None] = failures.reserved_declaration
    missing_callable: Callable[[dict[str, Any], str], str | None] = failures.missing_callable
    unawaited_problem: Callable[[list[str]], LlmzError | None] = failures.unawaited_problem
    memory_value_problem: Callable[[list[str]], LlmzError | None] = failures.memory_value_problem
    memory_errors_fail_iteration: bool = True
    """Whether values memory cannot keep fail the iteration (recoverably); the other reading lists them and
    completes it (llmz.errors.invalid-memory-value#open_question)."""
    heap_exhausted: Callable[[dict[str, Any] | None], LlmzError | None] = failures.heap_exhausted
    timeout_error: Callable[[int | None], LlmzError] = failures.timeout_error
    output_overflow: Callable[[Any], LlmzError] = failures.output_overflow
    iteration_errors: Callable[[list[LlmzError], LlmzError | None], list[str]] = failures.iteration_errors
    stream_contents: Callable[[list[str]], list[str]] = failures.stream_contents
    # Broken streams (llmz.streaming.*; reference/llmz/streaming.py, read in execute._one_call)
    dispatch_while_streaming: bool = streaming.DISPATCH_WHILE_STREAMING
    # maxTimeToFirstToken (llmz.configuration.streaming-options; read in execute._one_call)
    first_token_late: Callable[[float | None, float | None, float], bool] = streaming.first_token_late
    first_token_limit_unit_ms: float = streaming.FIRST_TOKEN_LIMIT_UNIT_MS
    late_first_token_falls_back: bool = streaming.LATE_FIRST_TOKEN_FALLS_BACK
    # Audio for a model without native audio support (llmz.configuration.transcription-model; read in
    # execute._transcribe_audio)
    transcriber: Callable[[str | None, Sequence[Any]], str | None] = transcription.transcriber
    may_restart: Callable[[bool, bool, bool], bool] = streaming.may_restart
    restart_event: Callable[[int, int, Any, Any, str], dict[str, Any]] = streaming.restart_event
    tell_consumer_of_restart: bool = True
    retract_before_replacement: bool = True
    failed_retraction_stops: bool = True
    report_interruption: bool = True
    schema_shape: Callable[[Any], str] = typescript.ts_type
    schema_issues: Callable[[dict[str, Any] | None, Any], list[tuple[str, str]]] = typescript.schema_issues
    effect_rules: effects.EffectRules = effects.DEFAULT_RULES
    """How schema effects run on the four input surfaces (reference.llmz.effects)."""
    run_output_effects: bool = False
    """llmz.tools.output-effects-never-run: a handler's result is passed on without its schema's effects."""
    handler_attempts: Callable[[Callable[[], Any], Tool], Any] = handler_attempts
    """llmz.errors.tool-execution-failed, llmz.errors.critical-stops: which handler outcomes the tool's
    retries cover (failures only)."""

    # -- hooks (reference.llmz.request_hook, .inspector) -----------------------------------------------------
    before_tool_replaces_input: bool = True
    """llmz.hooks.before-tool-replaces-input: the handler gets what onBeforeTool returned."""
    hook_signals_honoured: bool = False
    """llmz.think-signal.handler-only: a ThinkSignal thrown by onAfterTool is not a signal; the hook failed
    (HOOK_FAILED, the reference's reading of the open question)."""
    request_messages_copied: bool = request_hook.COPY_MESSAGES
    measure_hook_replacements: bool = request_hook.MEASURE_REPLACEMENTS
    snapshot: Callable[[Any], Any] = inspector.snapshot
    inspect_event: Callable[[Any, str, Mapping[str, Any] | None], inspector.InspectEvent] = (
        inspector.inspect_event
    )
    """llmz.inspection.on-inspect-context: what onInspect is told about a preview (purpose, identity)."""
    custom_preview: Callable[[Any, int, preview.Preserve, inspector.Preview], str] = inspector.bounded_custom

    # -- memory (reference.llmz.memory) --------------------------------------------------------------------
    current_return: memory.ReturnRule = memory.current_return
    default_memory_limit: int = memory.DEFAULT_MAX_BYTES
    """llmz.memory.default-limit: the memory limit of a session created without maxBytes."""
    memory_fits: memory.Limit = memory.fits
    record_result: Callable[[memory.Memory, str, bool, Any, bool, memory.Limit], bool] = (
        memory.Memory.add_record
    )
    """llmz.errors.memory-capacity, llmz.memory.limit-scope: keep a program's result record, False when it
    does not fit (the capacity error then names it)."""
    store_variables: Callable[[memory.Memory, dict[str, dict[str, Any]], memory.Limit], memory.Capture] = (
        memory.Memory.store
    )
    drop_iterations: Callable[[memory.Memory, list[str]], None] = memory.Memory.drop_iterations
    memory_snapshot: Callable[[memory.Memory], dict[str, Any]] = memory.Memory.to_json

    # -- sessions (reference.llmz.conversation) --------------------------------------------------------------
    event_preview_tokens: int = conversation.EVENT_PREVIEW_TOKENS
    event_role: str = conversation.EVENT_ROLE
    render_event: Callable[[str, str], str] = conversation.render_event
    render_summary: Callable[[str], str] = conversation.render_summary
    session_when_omitted: Callable[[Policies], Any] = new_session
    """What ``execute`` runs on when it is given no session (llmz.sessions.fresh-session-when-omitted)."""
    append_batch: Callable[[object], list[dict[str, Any]]] = conversation.append_batch
    """llmz.sessions.append-accepted-shapes: a single message or an array of them."""
    convenience_parts: Callable[[str, list[dict[str, Any]], bool], list[dict[str, Any]]] = (
        conversation.convenience_parts
    )
    """llmz.sessions.attachments-become-parts, llmz.sessions.voice-label: convenience input as parts."""
    convenience_on_native: Callable[[dict[str, Any]], LlmzError | None] = conversation.convenience_on_native
    """llmz.sessions.no-convenience-on-native-multipart: attachments or modality on a native multipart."""
    copy_input: Callable[[list[dict[str, Any]]], list[dict[str, Any]]] = snapshot
    """llmz.sessions.input-copied: append keeps its own copy of the batch, taken before anything is stored."""
    detach: Callable[[Any], Any] = snapshot
    """llmz.sessions.accessors-return-copies: what transcript, messages and pendingMessages hand out."""
    running_turn_takes_input: bool = False
    """Input appended while a run holds the session waits for the next turn
    (llmz.sessions.input-during-turn-queued, llmz.sessions.events-during-run-wait)."""
    busy_problem: Callable[[bool, str], LlmzError | None] = conversation.busy_problem
    known_format_version: Callable[[object], bool] = conversation.known_format_version
    session_state: Callable[[Any], Any] = lambda state: state
    """What ``Session.from_json`` reads: the given state as it is, never something converted from another
    kind of data such as a saved result (llmz.migration.result-not-state)."""
    restore_checks: tuple[restore.Check, ...] = restore.CHECKS
    """llmz.persistence.restore-checks-*: what a snapshot must satisfy before it is restored."""
    compacted_earlier: Callable[[list[dict[str, Any]], int, dict[str, Any]], list[dict[str, Any]]] = (
        conversation.compacted_earlier
    )

    # -- the token budget (reference.llmz.budget, .tokens) ---------------------------------------------------
    check_max_tokens: Callable[[object], int | None] = budget.check_max_tokens
    effective_limits: budget.Limits = budget.effective_limits
    planned_reserve: budget.Reserve = budget.planned_reserve
    input_fits: Callable[[budget.Window, int], bool] = budget.fits
    measure: tokens.Measure = tokens.DEFAULT_MEASURE
    run_tokens: Callable[[Sequence[Usage]], dict[str, int]] = budget.run_tokens
    """llmz.budget.result-tokens.provider-usage: how a run's provider usage adds up to ``result.tokens``."""

    # -- compaction (reference.llmz.compaction) --------------------------------------------------------------
    compaction_controls: Callable[[dict[str, Any] | None], compaction.Controls | None] = (
        compaction.session_controls
    )
    should_compact: Callable[[int, int, float], bool] = compaction.should_compact
    group_history: Callable[..., list[compaction.Group]] = compaction.group_history
    """llmz.compaction.retains, llmz.compaction.keep-recent-iterations: the droppable groups automatic
    compaction cuts between (an iteration, with the input it answers, is one group)."""
    protected_start: Callable[[Sequence[compaction.Group], int], int] = compaction.protected_start
    choose_cut: Callable[..., compaction.Cut | None] = compaction.choose_cut
    retained_history: Callable[[Sequence[compaction.Group], compaction.Cut, str], list[dict[str, Any]]] = (
        compaction.retained_history
    )
    discarded_iterations: Callable[[Sequence[compaction.Group], compaction.Cut], list[str]] = (
        compaction.discarded_iterations
    )
    segment_end: Callable[[Sequence[int], int, int], int] = compaction.segment_end
    summary_room: Callable[[int, int, int, int], int] = compaction.summary_room
    """llmz.compaction.max-summary-tokens: the summary's allowance from (limit, input budget, ceiling, what
    the kept request measures)."""
    summary_failure_fallback: str | None = None
    """What replaces a summary that failed: nothing, compaction fails and the history stays
    (llmz.compaction.failure-keeps-history, llmz.errors.compaction-failed)."""
    commit_compaction_before_hooks: bool = False
    """A prepared compaction is committed only once the final request is known to fit
    (llmz.compaction.commit-after-fit)."""

    # -- pruning, request previews, explicit summarization (reference.llmz.pruning) --------------------------
    prune_selection: Callable[[Sequence[str], Iterable[str]], set[str]] = pruning.keep_listed
    """llmz.compaction.prune: which iterations of the compactable history a pruning keeps."""
    prune_keeps_inputs: bool = False
    prune_spares_current_turn: bool = True
    """llmz.compaction.prune: an unfinished turn keeps its start after a pruning (it is never compactable)."""
    callback_after_restore: bool = True
    """llmz.compaction.controls-persist: a summarize callback passed to ``fromJSON`` is used."""
    """llmz.compaction.prune (open): whether the pruned turns' inputs stay; the reference deletes them."""
    preview_applies_retained: bool = True
    """llmz.compaction.request-messages-preview: ``retainedIterationIds`` shapes the preview."""
    preview_is_read_only: bool = True
    """llmz.compaction.request-messages-preview: previewing a pruning does not change the session."""
    memory_overview: Callable[[memory.Memory], str | None] = pruning.memory_overview
    """llmz.sessions.request-messages-overview: the ephemeral overview ``requestMessages()`` adds."""
    place_overview: Callable[[list[dict[str, Any]], str], list[dict[str, Any]]] = pruning.overview_apart
    """llmz.sessions.signed-output-untouched: where the overview goes; never into signed assistant output."""
    overview_ignores_memory_flag: bool = False
    """llmz.sessions.request-messages-without-memory: ``memory: false`` leaves the overview out."""
    honours_abort_signal: bool = True
    """llmz.compaction.signal-cancels: an aborted signal cancels explicit summarize and compact."""
    signal_checked_after_summary: bool = True
    """llmz.compaction.signal-cancels: a signal that fires while the summary is written still cancels."""
    uses_custom_summarizer: bool = True
    """llmz.compaction.custom-summarize: a host ``compaction.summarize`` replaces the summary model call."""
    checks_summary_on_request: bool = True
    """llmz.compaction.custom-summarize: a summary made on request is validated and held to the limit."""
    context_categories: Callable[[int, int, int], dict[str, int]] = pruning.context_categories
    """llmz.budget.context-tokens.categories-sum: an iteration's ``tokens.context`` and its total."""
    payload_as_checked: Callable[[Any], Any] = pruning.as_given
    """llmz.persistence.plain-json-only: what the JSON check of an event payload sees (as given)."""
    context_measured: Callable[[list[Any], list[Any], list[Any]], list[Any]] = pruning.as_sent
    """llmz.budget.context-tokens.after-compaction: which messages ``tokens.context`` measures, given (as
    sent, as fitted before ``onBeforeRequest``, the history before compaction): the request as sent."""

    # -- what the model is shown (reference.llmz.preview, .feedback, .prompt) --------------------------------
    format_value: Callable[[Any], str] = preview.format_value
    cut_preview: preview.Cut = preview.cut
    display_budget_problem: Callable[[object], str | None] = preview.display_budget_problem
    default_result_budget: int = preview.DEFAULT_RESULT_BUDGET
    """llmz.inspection.tool-result-default: the budget when options.toolResultMaxTokens is left out."""
    unwrap_truncated: Callable[[Truncated], tuple[Any, Display]] = unwrap_truncated
    preview_budget: Callable[[Display, int], tuple[int, preview.Preserve]] = feedback.preview_budget
    section: Callable[[str, str], str] = feedback.section
    forced_inspection: Callable[..., str] = feedback.forced_inspection
    reuse_instruction: str = feedback.REUSE_INSTRUCTION
    recovery_note: Callable[[list[str]], str] = feedback.recovery_note
    footers: Callable[[feedback.Footer], str] = feedback.footers
    trace_context_lines: int = feedback.TRACE_CONTEXT_LINES
    worker_guidance: str = prompt.WORKER_GUIDANCE
    chat_guidance: str = prompt.CHAT_GUIDANCE
    system_prompt: Callable[[str, str], str] = prompt.system_prompt
    api_description: Callable[[config.RunConfig], str] = prompt.api_description

    # -- the host-side API (reference.llmz.host_api) ----------------------------------------------------
    inspector_budget: Callable[[object], int] = host_api.inspector_budget
    public_names: frozenset[str] = host_api.PUBLIC_NAMES
    """llmz.api.exports, llmz.migration.no-examples, llmz.migration.truncate-replaces-helpers."""
    render_capture: Callable[[Any], Any] = host_api.capture
    render_runs_effects: bool = True
    """llmz.components.render-parses-once: ``component.render`` runs the props schema's effects."""
    render_view: Callable[[Any], Any] = host_api.capture
    """llmz.components.render-immutable: what render keeps, and what its props hand out."""
    bind_handler: Callable[[Component, Callable[..., Any]], Component] = host_api.with_handler
    clone_tool: Callable[[Tool, str], Tool] = host_api.clone_tool
    definition_json: Callable[[Tool | Exit], dict[str, Any]] = host_api.definition_json
    default_components: tuple[Component, ...] = host_api.DEFAULT_COMPONENTS
    message_metadata: Callable[[int], dict[str, Any]] = host_api.message_metadata
    response_presets: frozenset[str] = host_api.PRESETS
    response_problem: Callable[[str | None, frozenset[str]], LlmzError | None] = host_api.response_problem
    delivered_text: Callable[[str | None, str], Any] = host_api.delivered_text
    run_session: Callable[[Any, Any, Policies], Any] = host_api.run_session
    """llmz.api.session-owns-state: the session a run works on (the chat has no say)."""
    trace_observed: bool = True
    """llmz.hooks.names: onTrace is one of the hooks the runtime calls (after each tool call and delivery)."""
    legacy_options: Callable[[str, Mapping[str, Any]], Mapping[str, Any]] = host_api.legacy_options
    """The migration rules: options of the previous API take no effect."""
    legacy_problem: Callable[[str, Mapping[str, Any]], LlmzError | None] = host_api.legacy_problem
    """Whether removed options are refused instead (a permitted variant; never in the reference)."""
    # -- what the host reads after a run (reference.llmz.diagnostics, .render) -----------------------------
    recognises: Callable[[object, str | None], bool] = diagnostics.recognises
    """The guards' test: shared brand plus code (llmz.errors.is-llmz-error, llmz.errors.guard-brand)."""
    class_guard: Callable[[str, Callable[[object, str | None], bool]], Callable[[object], bool]] = (
        diagnostics.class_guard
    )
    """The detachable ``is`` of one exported class (llmz.errors.class-guard)."""
    is_think_signal: Callable[[object], bool] = diagnostics.is_think_signal
    exported_error: Callable[[str, str, Mapping[str, object]], LlmzError | None] = errors.exported_error
    """What constructing an exported error class gives the host: its catalogue code, criticality and the
    documented fields (llmz.errors.code-formatting-failed, llmz.errors.internal-error)."""
    iteration_fields: Callable[[Mapping[str, Any], Sequence[Mapping[str, Any]]], dict[str, Any]] = (
        diagnostics.iteration_fields
    )
    error_diagnostic: Callable[[LlmzError], dict[str, Any]] = diagnostics.error_diagnostic
    result_diagnostics: Callable[..., dict[str, Any]] = diagnostics.result_diagnostics
    result_summary: Callable[[str, str | None, str | None], dict[str, Any]] = diagnostics.result_summary
    stacktrace: Callable[[LlmzError], str | None] = diagnostics.full_stacktrace
    """``CodeExecutionError.stacktrace`` (llmz.error-recovery.full-stacktrace)."""
    writes_format_version: bool = True
    """Whether ``session.to_json()`` states its format version (llmz.migration.format-versions)."""
    persists_definitions: bool = False
    """Whether ``session.to_json()`` carries the definitions of the last run: never in llmz
    (llmz.tools.definitions-reattached); only a mutant sets it."""
    legacy_result_snapshot: bool = False
    """Whether a result offers the previous API's snapshot: never in llmz (llmz.migration.no-snapshots)."""
    standalone_raises: bool = True
    """Whether a standalone method's failure goes to its caller, even a recoverable code
    (llmz.errors.recoverable-scope)."""

    @property
    def previewer(self) -> preview.Previewer:
        """The native inspector these policies describe (writing, cutting, and counting with ``measure``)."""
        return preview.Previewer(self.format_value, self.cut_preview, self.measure.count_text)


DEFAULT_POLICIES = Policies()
"""The reference's decisions."""
