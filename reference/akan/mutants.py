"""Deliberately broken variants of the akan reference, one rule flipped in each.

Each patch replaces one policy (or one constant a policy reads at call time) for the duration of a run;
``tests/test_akan_mutants.py`` proves that for every rule listed, some case pinning it fails and names it.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import AbstractContextManager, ExitStack, contextmanager
from typing import Any
from unittest import mock

from conformance.scenario.akan import Accepts, Form, FormField, StateKey, UiComponent
from reference.akan import (
    attachments,
    builtins,
    ceilings,
    commands,
    compaction,
    declarations,
    forms,
    placement,
    read_screen,
    state_read,
    ui_components,
)
from reference.akan.commands import Command
from reference.akan.html_tree import Element, parse_html
from reference.akan.page import Page
from reference.akan.session import ChatSession
from reference.akan.wire import Message, on_wire
from reference.mutants import Mutant


def _nominal_cut(roles: Sequence[str], keep: int) -> int | None:
    """Keeps exactly the newest ``keep`` wire messages, wherever that lands: on a tool result too."""
    wire = [index for index, role in enumerate(roles) if role != "local"]
    if keep == 0:
        return len(roles) if wire else None
    return wire[len(wire) - keep] if len(wire) > keep else None


def _everything_on_wire(transcript: list[Message]) -> list[Message]:
    """Posts local messages as well, as if a note were something the assistant had said."""
    return list(transcript)


def _inclusive_threshold(estimate: int, at: int, held_at: int | None) -> bool:
    if at == 0 or estimate < at:
        return False
    return held_at is None or estimate > held_at + at


def _zero_is_a_threshold(estimate: int, at: int, held_at: int | None) -> bool:
    return estimate > at and (held_at is None or estimate > held_at + at)


_summary_request = compaction.summary_request


def _summary_with_tools(messages: list[Message]) -> dict[str, object]:
    return {**_summary_request(messages), "tools": [], "screen": ""}


def _summary_left_as_user(message: Message, accepts: Accepts) -> Message:
    """Maps a summary like any other user message, so the provider reads the notes as a question."""
    plain = {key: value for key, value in message.items() if key != "summary"}
    return attachments.provider_message(plain, accepts)


def _persist_everything(message: Message) -> Message:
    return dict(message)


def _erasing_sanitize(transcript: list[Message]) -> list[Message]:
    """Repairs a hole by deleting the calls that have no result, and any orphaned result."""
    answered = {m.get("tool_call_id") for m in transcript if m.get("role") == "tool"}
    called = {c["id"] for m in transcript for c in m.get("tool_calls") or []}
    out: list[Message] = []
    for message in transcript:
        if message.get("role") == "tool" and message.get("tool_call_id") not in called:
            continue
        calls = [c for c in message.get("tool_calls") or [] if c["id"] in answered]
        if message.get("tool_calls") is not None:
            message = {**message, "tool_calls": calls} if calls else {
                k: v for k, v in message.items() if k != "tool_calls"}
        out.append(message)
    return out


def _no_sanitize(transcript: list[Message]) -> list[Message]:
    return list(transcript)


def _window_only(transcript: list[Message], newest: int) -> list[Message]:
    return transcript[max(0, len(transcript) - newest) :] if newest else []


def _prompt_first(self: ChatSession, command: Command) -> bool:
    """Looks the name up among the app's prompts before the chat's own commands."""
    if self._prompt(command):
        return True
    return _builtin_command(self, command)


_builtin_command = ChatSession._command


def _menu_with_every_prompt(prompt_names: Sequence[str]) -> list[str]:
    return [f"/{name}" for name in (*commands.BUILTINS, *prompt_names)]


def _retry_everything(self: ChatSession) -> None:
    """Replays the whole trailing run of user messages, appending it again after the answer is dropped."""
    end = len(self.transcript)
    while end and self.transcript[end - 1]["role"] != "user":
        end -= 1
    start = end
    while start and self.transcript[start - 1]["role"] == "user":
        start -= 1
    self.transcript = self.transcript[:end] + [dict(m) for m in self.transcript[start:end]]
    self._run()


@contextmanager
def _patch_all(*patches: AbstractContextManager[object]) -> Iterator[None]:
    with ExitStack() as stack:
        for patch in patches:
            stack.enter_context(patch)
        yield


def _split_on_spaces(text: str) -> tuple[str, ...]:
    return tuple(text.split())


def _copy_conversation_only(self: ChatSession) -> None:
    self.recorder.emit("export", messages=on_wire(self.transcript))


def _new_without_abort(self: ChatSession) -> None:
    self.transcript, self.held_at = [], None


def _context_with_values(self: Page) -> dict[str, object]:
    return {**_page_context(self), "keys": {k: v.value for k, v in self.setup.state.items()}}


_page_context = Page.context
_arg_schema = declarations.arg_schema


def _every_declaration(tools: Sequence[Any]) -> list[dict[str, Any]]:
    """One entry per declaration: falsy names, undescribable arguments and shared repeats included."""
    return [{"name": t.name, "description": t.description, "parameters": {}} for t in tools]


def _describe_anything(arg: Any) -> dict[str, Any] | None:
    return _arg_schema(arg) or {}


_agent_view = state_read.agent_view


def _secrets_in_the_clear(entry: StateKey) -> tuple[Any, str | None]:
    return _agent_view(entry.model_copy(update={"secret": []}))


def _every_named_key(state: dict[str, StateKey]) -> dict[str, StateKey]:
    return {name: entry for name, entry in state.items() if name}


def _visual_kept(entry: StateKey) -> tuple[Any, str | None]:
    return _agent_view(entry.model_copy(update={"visual": []}))


def _visual_as_secret(entry: StateKey) -> tuple[Any, str | None]:
    return _agent_view(entry.model_copy(update={"secret": [*entry.secret, *entry.visual], "visual": []}))


MUTANTS: list[Mutant] = [
    Mutant(
        "akan-cut-on-tool",
        ("akan.compaction.cut.never-on-tool", "akan.compaction.cut.prefers-user",
         "akan.compaction.cut.assistant-when-no-user"),
        lambda: mock.patch("reference.akan.session.choose_cut", _nominal_cut),
        "the cut keeps exactly `keep` messages even when that opens the kept part on a tool result",
    ),
    Mutant(
        "akan-local-on-wire",
        ("akan.local.withheld-from-wire",),
        lambda: mock.patch("reference.akan.session.on_wire", _everything_on_wire),
        "local messages are posted (and exported) like any other",
    ),
    Mutant(
        "akan-file-ceiling-off-by-one",
        ("akan.attachments.ceiling.per-file",),
        lambda: mock.patch.object(ceilings, "FILE_MAX_BYTES", ceilings.FILE_MAX_BYTES - 1),
        "a file of exactly 4 MB is refused",
    ),
    Mutant(
        "akan-message-bytes-unchecked",
        ("akan.attachments.ceiling.per-message-bytes",),
        lambda: mock.patch.object(ceilings, "MESSAGE_MAX_BYTES", 10**12),
        "the 8 MB per-message ceiling is never applied",
    ),
    Mutant(
        "akan-six-files",
        ("akan.attachments.ceiling.per-message-files",),
        lambda: mock.patch.object(ceilings, "MESSAGE_MAX_FILES", 6),
        "a sixth file is accepted",
    ),
    Mutant(
        "akan-duplicates-allowed",
        ("akan.attachments.duplicate-refused",),
        lambda: mock.patch.object(ceilings, "_same_file", lambda a, b: False),
        "the same file can be attached twice",
    ),
    Mutant(
        "akan-threshold-inclusive",
        ("akan.compaction.threshold.past",),
        lambda: mock.patch.object(compaction, "should_compact", _inclusive_threshold),
        "an estimate equal to compact.at already compacts",
    ),
    Mutant(
        "akan-at-zero-compacts",
        ("akan.compaction.disabled-at-zero",),
        lambda: mock.patch.object(compaction, "should_compact", _zero_is_a_threshold),
        "compact.at = 0 is treated as a threshold of zero tokens",
    ),
    Mutant(
        "akan-default-24576",
        ("akan.compaction.threshold.default",),
        lambda: mock.patch.object(compaction, "DEFAULT_AT_TOKENS", 24_576),
        "the default threshold is read as 24 x 1024",
    ),
    Mutant(
        "akan-three-chars-per-token",
        ("akan.compaction.estimate.four-chars-per-token",),
        lambda: mock.patch("reference.akan.wire.CHARS_PER_TOKEN", 3),
        "the estimate divides by three",
    ),
    Mutant(
        "akan-no-shrink-retried",
        ("akan.compaction.no-shrink.held",),
        lambda: mock.patch.object(compaction, "hold_after", lambda before, after: None),
        "an unhelpful summary is retried on the very next request",
    ),
    Mutant(
        "akan-unbounded-digest",
        ("akan.compaction.summarizer.bounded-digest",),
        lambda: mock.patch.multiple(compaction, DIGEST_MAX_CHARS=10**9, DIGEST_MESSAGE_CHARS=10**9),
        "the summarizer is handed the transcript whole",
    ),
    Mutant(
        "akan-summarizer-with-tools",
        ("akan.compaction.summarizer.no-tools-no-screen",),
        lambda: mock.patch.object(compaction, "summary_request", _summary_with_tools),
        "the summarizing request carries tools and screen context",
    ),
    Mutant(
        "akan-ignores-accepts",
        ("akan.attachments.unreadable-note", "akan.attachments.deepseek-accepts-none"),
        lambda: mock.patch.object(attachments, "_can_read", lambda kind, accepts: True),
        "every attachment is passed to the provider whatever it declares",
    ),
    Mutant(
        "akan-summary-as-user-for-provider",
        ("akan.compaction.summary-as-system-for-provider",),
        lambda: mock.patch("reference.akan.session.provider_message", _summary_left_as_user),
        "the adaptor hands the summary to the provider as a user message",
    ),
    Mutant(
        "akan-persist-keeps-content",
        ("akan.attachments.persist-names-only",),
        lambda: mock.patch("reference.akan.session.persisted", _persist_everything),
        "saving the transcript keeps attachment bytes and text",
    ),
]

MUTANTS += [
    Mutant(
        "akan-sanitize-erases",
        ("akan.sanitize.stopped-calls-answered-not-erased",),
        lambda: mock.patch("reference.akan.session.sanitize", _erasing_sanitize),
        "an unanswered call is deleted from the transcript instead of being answered as stopped",
    ),
    Mutant(
        "akan-request-unsanitized",
        ("akan.sanitize.runs-on-request-assembly", "akan.sanitize.no-unanswered-tool-calls-on-wire"),
        lambda: mock.patch.object(ChatSession, "_sanitize_request", lambda self: None),
        "a turn's request is posted with the stopped calls still unanswered",
    ),
    Mutant(
        "akan-restore-unsanitized",
        ("akan.sanitize.runs-on-restore",),
        lambda: mock.patch.object(ChatSession, "_restore", lambda self, stored: list(stored)),
        "a transcript restored from storage is taken as saved, holes and all",
    ),
    Mutant(
        "akan-cap-unsanitized",
        ("akan.sanitize.runs-on-capped-store",),
        lambda: mock.patch("reference.akan.session.cap", _window_only),
        "a capped store keeps the window as cut, opening on results whose call is gone",
    ),
    Mutant(
        "akan-prompt-wins-collision",
        ("akan.slash.builtin-wins-collision",),
        lambda: _patch_all(
            mock.patch.object(ChatSession, "_command", _prompt_first),
            mock.patch.object(ChatSession, "_dispatch_first", lambda self, command: False),
            mock.patch("reference.akan.session.menu", _menu_with_every_prompt),
        ),
        "an app prompt named like a built-in runs instead of it and is listed twice",
    ),
    Mutant(
        "akan-new-and-copy-after-running-check",
        ("akan.slash.new-and-copy-dispatch-first",),
        lambda: mock.patch.object(ChatSession, "_dispatch_first", lambda self, command: False),
        "/new and /copy are refused mid-turn and taken by an open question card as the answer",
    ),
    Mutant(
        "akan-new-without-abort",
        ("akan.slash.new-aborts-then-waits",),
        lambda: mock.patch.object(ChatSession, "_new", _new_without_abort),
        "/new empties the transcript while the turn it interrupted is still running",
    ),
    Mutant(
        "akan-retry-replays-everything",
        ("akan.slash.retry-replays-trailing-user-message",),
        lambda: mock.patch.object(ChatSession, "_retry", _retry_everything),
        "/retry sends the whole last input again, a prompt's preamble included",
    ),
    Mutant(
        "akan-args-split-on-spaces",
        ("akan.slash.positional-whitespace-args-with-quotes",),
        lambda: mock.patch.object(commands, "split_args", _split_on_spaces),
        "quotes do not group: every word is its own argument",
    ),
    Mutant(
        "akan-copy-without-route-and-time",
        ("akan.slash.copy-includes-route-and-time",),
        lambda: mock.patch.object(ChatSession, "_copy", _copy_conversation_only),
        "the /copy export holds the messages only",
    ),
    Mutant(
        "akan-error-not-folded",
        ("akan.transcript.error-folded-into-text",),
        lambda: mock.patch("reference.akan.session.explained", lambda message: message),
        "a failed turn reaches the provider as an empty assistant message with a stray error field",
    ),
]


# -- built-in tools and readScreen ---------------------------------------------------------------------


def _builtins_beside_hooks(page_tools: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """Lists every built-in even when a page tool took its name, and runs the built-in when called."""
    return [*page_tools, *(dict(tool) for tool in builtins.BUILTIN_TOOLS)]


_run_tool = ChatSession._run_tool


def _builtin_first(self: ChatSession, tool: object, name: str, arguments: dict[str, object]) -> str:
    if name in builtins.BUILTIN_NAMES:
        return self.page.run_builtin(name, dict(arguments))
    return _run_tool(self, tool, name, arguments)  # type: ignore[arg-type]


def _with_wait(page_tools: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    return [*_offered(page_tools), {"name": "wait", "description": "Wait until a store key changes."}]


_offered = builtins.offered
_control = read_screen._control
_walk = read_screen._Renderer.walk
_render = read_screen.render
_resolve = read_screen.resolve


def _control_with_password(control: Element, labels: dict[str, str]) -> str:
    if control.attrs.get("type", "").lower() == "password":
        return f"[password {control.attrs.get('name', '')}: {control.attrs.get('value', '')}]"
    return _control(control, labels)


def _walk_into_chat_ui(self: read_screen._Renderer, node: Element | str) -> None:
    if isinstance(node, Element) and "data-agent-ui" in node.attrs:
        for child in node.children:
            _walk(self, child)
        return
    _walk(self, node)


def _render_without_skipping(root: Element, scope: Element | None = None, *, skip: bool) -> object:
    return _render(root, scope, skip=False)


def _loose_resolve(root: Element, name: str) -> Element | None:
    """Applies the heading tolerance to every kind of name."""
    for element in root.elements():
        values = [element.attrs.get(a) for a in read_screen.EXACT_ATTRIBUTES]
        if element.visible() and any(v and read_screen.slug(v) == read_screen.slug(name) for v in values):
            return element
    return _resolve(root, name)


def _section_to_the_end(root: Element, heading: Element) -> list[read_screen.Line]:
    whole = read_screen.render(root, skip=False)
    return whole.lines[whole.heading_at[id(heading)] :]


MUTANTS += [
    Mutant(
        "akan-builtin-beats-hook-tool",
        ("akan.builtin.hook-tool-shadows-builtin",),
        lambda: _patch_all(
            mock.patch.object(builtins, "offered", _builtins_beside_hooks),
            mock.patch.object(ChatSession, "_run_tool", _builtin_first),
        ),
        "a page tool named like a built-in is listed twice and calls run the built-in",
    ),
    Mutant(
        "akan-wait-builtin",
        ("akan.builtin.no-general-wait",),
        lambda: mock.patch.object(builtins, "offered", _with_wait),
        "a general-purpose wait tool is offered on every screen",
    ),
    Mutant(
        "akan-navigate-anywhere",
        ("akan.builtin.navigate-internal-only",),
        lambda: mock.patch.object(builtins, "is_internal", lambda path: True),
        "navigate follows any address, external ones included",
    ),
    Mutant(
        "akan-unmasked-state",
        ("akan.builtin.read-state-one-masked-key", "akan.state.read-masked-by-declared-model"),
        lambda: mock.patch("reference.akan.page.agent_view", lambda entry: (entry.value, None)),
        "readState returns masked fields in the clear",
    ),
    Mutant(
        "akan-reads-password",
        ("akan.builtin.read-screen-never-reads-password",),
        lambda: mock.patch.object(read_screen, "_control", _control_with_password),
        "readScreen prints a password field's value",
    ),
    Mutant(
        "akan-reads-chat-ui",
        ("akan.builtin.read-screen-skips-chat-ui",),
        lambda: mock.patch.object(read_screen._Renderer, "walk", _walk_into_chat_ui),
        "readScreen reads the chat panel as part of the page",
    ),
    Mutant(
        "akan-no-disabled-marker",
        ("akan.builtin.read-screen-compact-text", "akan.form.read-screen-marks-disabled"),
        lambda: mock.patch.object(read_screen, "disabled_marker", lambda element: ""),
        "disabled controls and buttons read like enabled ones",
    ),
    Mutant(
        "akan-hidden-resolves",
        ("akan.readscreen.hidden-never-resolves",),
        lambda: mock.patch.object(read_screen, "_eligible", lambda element: True),
        "a hidden element can be named as a section or highlight target",
    ),
    Mutant(
        "akan-heading-exact",
        ("akan.readscreen.heading-match-letters-digits",),
        lambda: mock.patch.object(read_screen, "slug", lambda text: text),
        "a heading resolves only by its exact text, so a slug misses it",
    ),
    Mutant(
        "akan-loose-everything",
        ("akan.readscreen.exact-match-for-non-headings",),
        lambda: mock.patch.object(read_screen, "resolve", _loose_resolve),
        "scope, id and annotation names match on letters and digits like headings",
    ),
    Mutant(
        "akan-section-to-the-end",
        ("akan.readscreen.heading-section-extent",),
        lambda: mock.patch.object(read_screen, "_heading_section", _section_to_the_end),
        "a heading section runs to the end of the page",
    ),
    Mutant(
        "akan-no-read-limit",
        ("akan.readscreen.character-limit", "akan.readscreen.truncated-read-lists-remaining-headings"),
        lambda: mock.patch.object(read_screen, "MAX_CHARS", 10**9),
        "readScreen returns the whole page however long",
    ),
    Mutant(
        "akan-no-skip-marker",
        ("akan.readscreen.skip-marker",),
        lambda: mock.patch.object(read_screen, "render", _render_without_skipping),
        "skipped regions are read in full by the default read",
    ),
]

MUTANTS += [
    Mutant(
        "akan-max-turns-ignored",
        ("akan.builtin.max-turns-bound",),
        lambda: mock.patch.object(ChatSession, "max_turns", lambda self: 10**6),
        "the loop keeps posting however many turns it has taken",
    ),
    Mutant(
        "akan-zone-reads-whole-page",
        ("akan.zone.read-screen-limited-to-container",),
        lambda: mock.patch.object(Page, "screen_root", lambda self: parse_html(self.setup.html or "")),
        "a zone agent's readScreen reads the whole page",
    ),
    Mutant(
        "akan-key-values-in-context",
        ("akan.state.subscribed-key-listed-and-read-on-demand",),
        lambda: mock.patch.object(Page, "context", _context_with_values),
        "each turn's context carries the subscribed keys' values instead of their names",
    ),
]

MUTANTS += [
    Mutant(
        "akan-off-values-run",
        ("akan.tool.enum-of-refuses-off-values", "akan.tool.one-of-render-values"),
        lambda: mock.patch("reference.akan.session.call_refusal", lambda tool, arguments: None),
        "a value outside an argument's enum reaches the tool body",
    ),
    Mutant(
        "akan-enum-always-string",
        ("akan.tool.enum-of-argument",),
        lambda: mock.patch.object(declarations, "scalar_type", lambda values: "string"),
        "an enum of numbers is published as strings",
    ),
    Mutant(
        "akan-every-declaration-published",
        ("akan.tool.falsy-name-declares-without-publishing", "akan.tool.shared-merges-repeats"),
        lambda: mock.patch("reference.akan.session.page_entries", _every_declaration),
        "every st.tool declaration reaches the model, nameless and repeated ones included",
    ),
    Mutant(
        "akan-undescribable-published",
        ("akan.tool.undescribable-arg-withdraws-tool",),
        lambda: mock.patch.object(declarations, "arg_schema", _describe_anything),
        "a tool with an argument no schema describes is published with an empty schema for it",
    ),
]

MUTANTS += [
    Mutant(
        "akan-agent-false-readable",
        ("akan.state.agent-false-keeps-key-off",),
        lambda: mock.patch("reference.akan.page.readable", _every_named_key),
        "a key subscribed with { agent: false } is listed and readable",
    ),
    Mutant(
        "akan-secrets-read-without-mask",
        ("akan.state.masked-model-refused-without-mask",),
        lambda: mock.patch("reference.akan.page.agent_view", _secrets_in_the_clear),
        "hidden and secret fields are read out when no mask model is named",
    ),
    Mutant(
        "akan-visual-fields-kept",
        ("akan.state.visual-field-stripped-from-agent-reads",),
        lambda: mock.patch("reference.akan.page.agent_view", _visual_kept),
        "field.visual fields reach the agent",
    ),
    Mutant(
        "akan-visual-fields-refuse",
        ("akan.state.visual-field-never-refused",),
        lambda: mock.patch("reference.akan.page.agent_view", _visual_as_secret),
        "a populated field.visual field makes the read be refused like a secret",
    ),
]


# -- forms ---------------------------------------------------------------------------------------------

_form_tools = forms.tools
_form_fill = forms.fill
_form_transform = forms.transform


def _controls_including(*, inline: bool, disabled: bool) -> Any:
    def controls(form: Form) -> dict[str, FormField]:
        return {
            forms.setter_name(form, field): field
            for field in form.fields
            if field.kind == "plain" and field.control is not None and field.flag is None
            and (inline or field.control.on_change == "reference")
            and (disabled or not field.control.disabled)
        }
    return controls


def _fill_per_subscriber(form: Form | None) -> list[dict[str, Any]]:
    entries = _form_tools(form)
    extra = [e for e in entries if form is not None and e["name"] == forms.fill_name(form)]
    return entries + extra * max(0, (form.subscriptions if form else 0) - 1)


def _fill_despite_agent_false(form: Form | None) -> list[dict[str, Any]]:
    return _form_tools(form.model_copy(update={"agent": True}) if form else None)


def _fill_raw(form: Form, patch: dict[str, Any]) -> tuple[dict[str, Any], str | None]:
    writes, refused = _form_fill(form, patch)
    return (dict(patch) if refused is None else writes), refused


def _fill_replaces(form: Form, patch: dict[str, Any]) -> tuple[dict[str, Any], str | None]:
    writes, refused = _form_fill(form, patch)
    if refused is not None:
        return writes, refused
    return {**{f.name: None for f in forms.fill_fields(form)}, **writes}, None


def _fill_anything(form: Form, patch: dict[str, Any]) -> tuple[dict[str, Any], str | None]:
    return dict(patch), None


def _no_default_phone(field: FormField, value: Any) -> Any:
    if field.control is not None and field.control.transform is None:
        return value
    return _form_transform(field, value)


def _transform_whole(field: FormField, value: Any) -> Any:
    if isinstance(value, list):
        return forms.format_phone("".join(str(v) for v in value))
    return forms.format_phone("") if value is None else _form_transform(field, value)


MUTANTS += [
    Mutant(
        "akan-inline-arrow-publishes",
        ("akan.form.inline-arrow-publishes-nothing",),
        lambda: mock.patch.object(forms, "controls", _controls_including(inline=True, disabled=False)),
        "a control with an inline onChange publishes the setter it wraps",
    ),
    Mutant(
        "akan-disabled-control-publishes",
        ("akan.form.disabled-control-publishes-nothing", "akan.form.disabled-field-refused-by-fill"),
        lambda: mock.patch.object(forms, "controls", _controls_including(inline=False, disabled=True)),
        "a disabled control keeps its tool, and fill writes its field",
    ),
    Mutant(
        "akan-fill-per-subscriber",
        ("akan.form.fill-tool-registered-shared",),
        lambda: mock.patch.object(forms, "tools", _fill_per_subscriber),
        "each component subscribing the form registers its own fill tool",
    ),
    Mutant(
        "akan-fill-despite-agent-false",
        ("akan.form.agent-false-withholds-fill-tool",),
        lambda: mock.patch.object(forms, "tools", _fill_despite_agent_false),
        "{ agent: false } on the form subscription is ignored",
    ),
    Mutant(
        "akan-fill-raw-setter",
        ("akan.form.fill-writes-through-control-tool", "akan.form.phone-default-transform"),
        lambda: mock.patch.object(forms, "fill", _fill_raw),
        "the patch tool writes plain fields with the raw setter, skipping the control's transform",
    ),
    Mutant(
        "akan-fill-replaces-form",
        ("akan.form.fill-is-a-patch",),
        lambda: mock.patch.object(forms, "fill", _fill_replaces),
        "fields the patch leaves out are cleared",
    ),
    Mutant(
        "akan-fill-writes-anything",
        ("akan.form.fill-refuses-offscreen-plain-field",
         "akan.form.fill-excludes-relation-base-hidden-secret"),
        lambda: mock.patch.object(forms, "fill", _fill_anything),
        "the patch tool writes any field it is given",
    ),
    Mutant(
        "akan-no-default-phone-transform",
        ("akan.form.transform-applies-to-agent-writes",),
        lambda: mock.patch.object(forms, "transform", _no_default_phone),
        "a phone control with no transform prop stores the agent's digits as typed",
    ),
    Mutant(
        "akan-transform-whole-value",
        ("akan.form.transform-per-element-and-null",),
        lambda: mock.patch.object(forms, "transform", _transform_whole),
        "a list is transformed as one value and a cleared field is transformed too",
    ),
]

_operations = forms.operations
_apply = forms.apply


def _ops_variant(*, primitive_rows: bool = False, any_list_moves: bool = False, add_or_sub: bool = False,
                 drop: str = "") -> Any:
    def operations(form: Form) -> dict[str, tuple[str, FormField]]:
        ops = {name: entry for name, entry in _operations(form).items() if entry[0] != drop}
        for name, field in forms.controls(form).items():
            suffix = name.removeprefix("set")
            if primitive_rows and isinstance(field.value, list):
                ops.setdefault(f"add{suffix}", ("add", field))
                ops.setdefault(f"sub{suffix}", ("sub", field))
            if any_list_moves and isinstance(field.value, list):
                ops.setdefault(f"move{suffix}", ("move", field))
            if add_or_sub and field.kind == "rows":
                ops[f"addOrSub{suffix}"] = ("add", field)
        return ops
    return operations


def _sub_one_at_a_time(op: str, field: FormField, current: Any, arguments: dict[str, Any]) -> Any:
    if op != "sub":
        return _apply(op, field, current, arguments)
    rows = list(current or [])
    for position in arguments.get("positions") or []:
        if 0 <= position < len(rows):
            rows.pop(position)
    return rows, None


def _move_with_transform(op: str, field: FormField, current: Any, arguments: dict[str, Any]) -> Any:
    value, refused = _apply(op, field, current, arguments)
    return (forms.transform(field, value) if op == "move" and refused is None else value), refused


MUTANTS += [
    Mutant(
        "akan-no-add-sub",
        ("akan.form.embedded-array-add-sub",),
        lambda: mock.patch.object(forms, "operations", _ops_variant(drop="add")),
        "an array of embedded rows publishes only its whole-array setter",
    ),
    Mutant(
        "akan-sub-one-at-a-time",
        ("akan.form.add-sub-take-lists-atomically",),
        lambda: mock.patch.object(forms, "apply", _sub_one_at_a_time),
        "sub removes listed positions one by one, each shifting the next",
    ),
    Mutant(
        "akan-add-takes-position",
        ("akan.form.add-appends-only",),
        lambda: mock.patch.dict(forms._OP_PARAMS, {"add": lambda field: forms._params(
            {"rows": {"type": "array"}, "at": {"type": "integer"}})}),
        "add publishes an insert position",
    ),
    Mutant(
        "akan-primitive-arrays-add-sub",
        ("akan.form.primitive-arrays-setter-only",),
        lambda: mock.patch.object(forms, "operations", _ops_variant(primitive_rows=True)),
        "an array of primitives gets add and sub too",
    ),
    Mutant(
        "akan-add-or-sub-published",
        ("akan.form.add-or-sub-never-published",),
        lambda: mock.patch.object(forms, "operations", _ops_variant(add_or_sub=True)),
        "the generated addOrSub action is offered to the agent",
    ),
    Mutant(
        "akan-no-move",
        ("akan.form.draggable-list-publishes-move",),
        lambda: mock.patch.object(forms, "operations", _ops_variant(drop="move")),
        "a DraggableList publishes no reorder tool",
    ),
    Mutant(
        "akan-move-transforms",
        ("akan.form.move-is-whole-array-write-without-transform",),
        lambda: mock.patch.object(forms, "apply", _move_with_transform),
        "moving an entry runs the control's transform over the array",
    ),
    Mutant(
        "akan-every-list-moves",
        ("akan.form.move-only-from-sortable-control",),
        lambda: mock.patch.object(forms, "operations", _ops_variant(any_list_moves=True)),
        "any list field publishes a reorder tool",
    ),
]


def _unmount_keys_only(self: ChatSession, tools: list[str], state: list[str]) -> None:
    self.page.unmount_readers(state)


MUTANTS += [
    Mutant(
        "akan-clash-silent",
        ("akan.tool.duplicate-name-warns",),
        lambda: mock.patch("reference.akan.session.clashes", lambda tools: {}),
        "two unshared registrations of one name go unreported",
    ),
    Mutant(
        "akan-keys-outlive-readers",
        ("akan.surface.key-readable-while-reader-mounted",),
        lambda: mock.patch.object(Page, "unmount_readers", lambda self, keys: None),
        "a key stays readable after the last component reading it unmounts",
    ),
    Mutant(
        "akan-tools-outlive-components",
        ("akan.surface.declaration-is-the-surface",),
        lambda: mock.patch.object(ChatSession, "unmount", _unmount_keys_only),
        "a tool stays offered after the component declaring it unmounts",
    ),
]


# -- akanjs/ui components ------------------------------------------------------------------------------

_component_tools = ui_components.component_tools
_ui_tools = Page.ui_tools


def _component_variant(variant: str) -> Any:
    def component_tools(component: UiComponent, is_open: bool) -> list[dict[str, Any]]:
        kind, namespace = component.type, component.namespace
        if variant == "unnamed-publish" and kind in ("Tab", "Dialog", "Dropdown") and not namespace:
            return _component_tools(component.model_copy(update={"namespace": "X"}), is_open)
        if variant == "bare-suffix" and kind in ("Tab", "Dialog", "Dropdown") and namespace:
            return [{**t, "name": t["name"].replace(f"In{namespace}", namespace)}
                    for t in _component_tools(component, is_open)]
        if variant == "sure-always" and kind == "Model.SureToRemove":
            return _component_tools(component.model_copy(update={"type_name_to_remove": False}), is_open)
        if variant == "modal-always" and kind.endswith("Modal"):
            return _component_tools(component, True)
        if variant == "new-needs-namespace" and kind in ("Model.New", "Model.NewWrapper") and not namespace:
            return []
        if variant == "new-ignores-namespace" and kind in ("Model.New", "Model.NewWrapper"):
            return _component_tools(component.model_copy(update={"namespace": None}), is_open)
        return _component_tools(component, is_open)
    return component_tools


def _tools_per_row(components: Sequence[UiComponent], open_flags: Sequence[bool]) -> list[dict[str, Any]]:
    return [t for c, o in zip(components, open_flags, strict=True) for t in _component_tools(c, o)]


def _frozen_ui_tools(self: Page) -> list[dict[str, Any]]:
    """Takes the components' tools once, when first asked, and offers that list for the whole run."""
    frozen: list[dict[str, Any]] | None = getattr(self, "_frozen_ui", None)
    if frozen is None:
        frozen = _ui_tools(self)
        self._frozen_ui = frozen  # type: ignore[attr-defined]
    return frozen


def _menus_never_hidden(self: Page) -> set[str]:
    return {c.namespace or "" for c in self.setup.components if c.type == "Dropdown"}


def _component_mutant(name: str, rule: str, variant: str, description: str) -> Mutant:
    return Mutant(
        name, (rule,),
        lambda: mock.patch.object(ui_components, "component_tools", _component_variant(variant)),
        description,
    )


MUTANTS += [
    _component_mutant("akan-unnamed-repeatables-publish", "akan.ui.repeatable-components-need-namespace",
                      "unnamed-publish", "a Tab, Dialog or Dropdown without a namespace publishes its tools"),
    _component_mutant("akan-namespace-without-in", "akan.ui.namespace-suffixes-tool-name", "bare-suffix",
                      "the namespace is appended without In (switchTabDetail)"),
    _component_mutant("akan-sure-to-remove-always", "akan.ui.sure-to-remove-type-name-publishes-nothing",
                      "sure-always", "SureToRemove publishes remove even behind a typed-name gate"),
    _component_mutant("akan-modal-verbs-always", "akan.ui.modal-verbs-only-while-open", "modal-always",
                      "a closed modal still offers its verbs"),
    _component_mutant("akan-new-needs-namespace", "akan.ui.new-wrapper-publishes-new",
                      "new-needs-namespace", "Model.NewWrapper publishes nothing without a namespace"),
    _component_mutant("akan-new-ignores-namespace", "akan.ui.new-wrapper-namespace-suffix",
                      "new-ignores-namespace", "two create triggers both answer to new"),
    Mutant(
        "akan-row-verbs-per-row",
        ("akan.ui.row-wrappers-publish-verbs",),
        lambda: mock.patch.object(ui_components, "tools", _tools_per_row),
        "every row's wrapper is offered as its own tool",
    ),
    Mutant(
        "akan-no-dropdown-state",
        ("akan.ui.dropdown-tools-and-state",),
        lambda: mock.patch.object(ui_components, "state_keys", lambda components: []),
        "a named dropdown publishes no dropdownIn state",
    ),
    Mutant(
        "akan-closed-menu-read",
        ("akan.ui.closed-menu-text-not-read",),
        lambda: mock.patch.object(Page, "_open_dropdowns", _menus_never_hidden),
        "readScreen reads a closed dropdown's items",
    ),
    Mutant(
        "akan-catalogue-frozen-per-run",
        ("akan.ui.catalogue-reread-after-opening-tool",),
        lambda: mock.patch.object(Page, "ui_tools", _frozen_ui_tools),
        "tools a call made appear are never offered, the list being taken once",
    ),
]


# -- zones and guides ----------------------------------------------------------------------------------

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

