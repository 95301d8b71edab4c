"""Plays an akan case on the reference's ``ChatSession`` and returns its record.

The translation is one way: the scenario vocabulary (``conformance.scenario.akan``) becomes the reference's
own Python values (``reference.akan``), declarative behaviours become callables (a tool's fixed ``returns``
or generated ``filler_chars`` become its body; the reader's suffix rules become the app's reader), and each
step becomes one call on the session. The record is what the session's recorder saw.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from conformance.players import capabilities
from conformance.players.common import ProviderFactory, given, scripted_provider
from conformance.scenario import akan as vocab
from conformance.scenario.akan import AkanCase
from conformance.scenario.invalid import raw
from reference.akan import model
from reference.akan.policies import DEFAULT_POLICIES, AkanPolicies
from reference.akan.session import ChatSession
from reference.akan.wire import json_text
from reference.clock import parse_duration_ms
from reference.providers.scripted import ScriptExhausted
from reference.record import Recorder

#: Capability flags this reference declares for akan (scenarios may `require` them).
CAPABILITIES: tuple[str, ...] = capabilities.AKAN

PolicyChange = Callable[[AkanPolicies], AkanPolicies]


def play(
    scenario: AkanCase, provider: ProviderFactory = scripted_provider, policies: PolicyChange | None = None
) -> dict[str, Any]:
    """Run the steps in order; the record is returned even when the script runs out.

    A model call beyond the script ends the run with a ``script_exhausted`` event rather than an exception,
    so the expectations are still judged and a failure names the rule whose behaviour made the extra call.
    """
    recorder = Recorder()
    session = session_for(
        scenario.setup,
        provider(scenario.script, recorder),
        recorder,
        DEFAULT_POLICIES if policies is None else policies(DEFAULT_POLICIES),
    )
    try:
        for step in scenario.steps:
            _step(session, step)
    except ScriptExhausted as exhausted:
        recorder.emit("script_exhausted", call=exhausted.call, message=str(exhausted))
    recorder.final = session.state().to_dict()
    return recorder.to_dict()


def session_for(
    setup: vocab.Setup, provider: Any, recorder: Recorder, policies: AkanPolicies = DEFAULT_POLICIES
) -> ChatSession:
    """The session a scenario's ``setup`` describes."""
    return ChatSession(
        page_of(setup),
        provider,
        compaction=model.Compaction(at=setup.compact.at, keep=setup.compact.keep),
        adaptor=adaptor_of(setup.provider, setup.env),
        reader=reader_of(setup.reader),
        prompts=[_prompt(p) for p in setup.prompts],
        relay=relay_of(setup.relay),
        dictionary=setup.dictionary,
        voice=(
            model.Voice(setup.voice.available, **given(sentence_ms=setup.voice.sentence_ms))
            if setup.voice
            else None
        ),
        max_turns=setup.max_turns,
        stored=stored_at_open(setup),
        panel=panel_of(setup.panel),
        policies=policies,
        recorder=recorder,
        observe=setup.observe,
    )


def _step(session: ChatSession, step: vocab.Step) -> None:
    if isinstance(step, vocab.AttachStep):
        for file in step.files:
            session.attach(file_of(file))
    elif isinstance(step, vocab.SendStep):
        session.send(step.text + vocab.filler(step.filler_chars))
    elif isinstance(step, vocab.NoteStep):
        session.note(step.text)
    elif isinstance(step, vocab.ReportStep):
        session.report(step.message)
    elif isinstance(step, vocab.PersistStep):
        session.persist(step.cap)
    elif isinstance(step, vocab.ReloadStep):
        session.reload()
    elif isinstance(step, vocab.StopStep):
        session.stop()
    elif isinstance(step, vocab.UnmountStep):
        session.unmount(step.tools, step.state, step.guides)
    elif isinstance(step, vocab.ClickStep):
        session.click(step.tool, step.arguments)
    elif isinstance(step, vocab.RenderStep):
        session.render()
    elif isinstance(step, vocab.MicStep):
        session.mic(step.heard)
    elif isinstance(step, vocab.SendDraftStep):
        session.send_draft(step.edit)
    elif isinstance(step, vocab.TypeStep):
        session.type(step.text, step.caret_line)
    elif isinstance(step, vocab.KeyStep):
        session.press(step.key)
    elif isinstance(step, vocab.ViewportStep):
        session.viewport(step.width, step.keyboard)
    elif isinstance(step, vocab.ReopenStep):
        session.reopen()
    elif isinstance(step, vocab.UnmountChatStep):
        session.unmount_chat()
    elif isinstance(step, vocab.OpenRowStep):
        session.open_row(step.id)
    elif isinstance(step, vocab.AdvanceStep):
        session.advance(parse_duration_ms(step.by))


# -- setup -> the reference's values ------------------------------------------------------------------------


def page_of(setup: vocab.Setup) -> model.Page:
    return model.Page(
        route=setup.route,
        screen=vocab.expand_fillers(setup.screen),
        html=vocab.expand_fillers(setup.html) if setup.html is not None else None,
        tools=[tool_of(tool) for tool in setup.tools],
        state={name: _state_key(key) for name, key in setup.state.items()},
        local_state=[
            model.LocalState(api=s.api, name=s.name, value=s.value, set=s.set, zone=s.zone)
            for s in setup.local_state
        ],
        guides=[model.Guide(text=g.text, layout=g.layout, zone=g.zone) for g in setup.guides],
        form=_form(setup.form) if setup.form is not None else None,
        components=[
            model.UiComponent(
                type=c.type,
                namespace=c.namespace,
                type_name_to_remove=c.type_name_to_remove,
                open=c.open,
                model=c.model,
                confirm_close=c.confirm_close,
                on_cancel=c.on_cancel,
            )
            for c in setup.components
        ],
        zone=setup.zone,
        stores=[model.Store(name=st.name, methods=st.methods, fields=st.fields) for st in setup.stores],
        module_docs=setup.module_docs,
        store_actions=setup.store_actions,
    )


def tool_of(tool: vocab.PageTool) -> model.PageTool:
    """A declared tool whose body answers every call with the scenario's fixed result."""
    return model.PageTool(
        name=tool.name,
        run=_fixed_result(tool.returns, tool.filler_chars),
        description=tool.description,
        args=[
            model.ToolArg(
                a.name, values=a.values, one_of=a.one_of, later_one_of=a.later_one_of, **given(type=a.type)
            )
            for a in tool.args
        ],
        zone=tool.zone,
        shared=tool.shared,
        settles=tool.settles,
        asks=tool.asks,
        route=tool.route,
        html_after=vocab.expand_fillers(tool.html_after) if tool.html_after is not None else None,
        on_abort=tool.on_abort,
        chain=tool.chain,
    )


def _fixed_result(returns: Any, filler_chars: int) -> model.ToolBody:
    """``filler_chars`` > 0: that many generated characters as the result text; else ``returns`` as JSON."""
    if filler_chars:
        text = vocab.filler(filler_chars)
        return lambda arguments: text
    encoded = json_text(returns)
    return lambda arguments: encoded


def _state_key(key: vocab.StateKey) -> model.StateKey:
    return model.StateKey(
        value=key.value, agent=key.agent, secret=key.secret, mask=key.mask, visual=key.visual, zone=key.zone
    )


def _form(form: vocab.Form) -> model.Form:
    return model.Form(
        model=form.model,
        **given(subscriptions=form.subscriptions),
        agent=form.agent,
        fields=[
            model.FormField(
                name=f.name,
                kind=f.kind,
                flag=f.flag,
                value=f.value,
                control=None
                if f.control is None
                else model.FormControl(
                    type=f.control.type,
                    on_change=f.control.on_change,
                    disabled=f.control.disabled,
                    transform=f.control.transform,
                ),
                options=[model.RelationOption(o.id, o.label) for o in f.options],
            )
            for f in form.fields
        ],
        post_sets=[model.PostSet(p.name, p.appends_to, p.shape) for p in form.post_sets],
    )


def adaptor_of(provider: vocab.Provider, env: dict[str, str] | None = None) -> model.Adaptor:
    fails: dict[int, model.ErrorKey | None] = {}
    for answer in provider.answers:  # the first answer for a turn is the one given
        if answer.turn not in fails:
            fails[answer.turn] = (
                None if answer.returns == "null" else model.ErrorKey(str(answer.key), dict(answer.values))
            )
    settings = provider.settings
    return model.Adaptor(
        **given(name=provider.name),
        settings=model.LlmSettings(settings.model, settings.host) if settings is not None else None,
        accepts=(
            model.Accepts(provider.accepts.image, provider.accepts.document)
            if provider.accepts is not None
            else None
        ),
        api_key=provider.api_key and provider.from_options is None,
        on_delta=provider.on_delta,
        fails=fails,
        option_function=_option_function(provider.from_options),
        environment=dict(env or {}),
    )


def _option_function(names: vocab.OptionFunction | None) -> model.LlmOptionFunction | None:
    """The app's ``setLlm((options) => ...)``: each setting read from ``options.env`` under its name."""
    if names is None:
        return None

    def read(options: Mapping[str, Any]) -> model.LlmOption:
        env = options.get("env", {})
        return model.LlmOption(
            api_key=env.get(names.api_key) if names.api_key else None,
            model=env.get(names.model) if names.model else None,
            host=env.get(names.host) if names.host else None,
        )

    return read


def file_of(file: vocab.File) -> model.File:
    return model.File(name=file.name, size=file.size, text=file.text, data=file.data, **given(type=file.type))


def reader_of(rules: list[vocab.ReaderRule] | None) -> model.Reader | None:
    """The app's reader: the first rule whose suffix ends the file's name answers (null: the built-in)."""
    if rules is None:
        return None

    def read(file: model.File) -> model.ReaderResult | None:
        rule = next((rule for rule in rules if file.name.endswith(rule.suffix)), None)
        if rule is None or rule.result is None:
            return None
        return model.ReaderResult(rule.result.kind, rule.result.text, rule.result.data)

    return read


def _prompt(prompt: vocab.Prompt) -> model.Prompt:
    return model.Prompt(
        name=prompt.name,
        params=prompt.params,
        allowed=prompt.allowed,
        desc=prompt.desc,
        messages=[
            model.PromptMessage(m.text, [file_of(image) for image in m.images]) for m in prompt.messages
        ],
    )


def relay_of(relay: vocab.Relay | None) -> model.Relay | None:
    if relay is None:
        return None
    return model.Relay(
        access=relay.access if relay.app_called else model.UNSET,
        library_access=relay.library_access,
        served=relay.served,
        caller=model.Caller(relay.caller.signed_in, relay.caller.roles),
        accept=relay.accept,
    )


def panel_of(panel: vocab.Panel | None) -> model.ChatPanel | None:
    if panel is None:
        return None
    return model.ChatPanel(
        open=panel.open,
        initially_open=panel.initially_open,
        launcher=panel.launcher,
        class_name=panel.class_name,
        launcher_class_name=panel.launcher_class_name,
        panel_class_name=panel.panel_class_name,
        intro=panel.intro,
        header=list(panel.header),
        overrides={slot: o.wraps_default for slot, o in panel.overrides.items()},
        shortcut=panel.shortcut,
        width=panel.width,
        persist=panel.persist is not None,
        storage=panel.persist.storage if panel.persist is not None else None,
        session=panel.session,
        agent_chat=panel.agent_chat,
    )


def stored_at_open(setup: vocab.Setup) -> list[model.Message]:
    """What web storage holds when the page opens, exactly as written: a transcript written invalid on
    purpose (a result before its call) is stored as it is, for the restore to deal with."""
    stored: list[model.Message] = []
    for item in raw(setup.stored) or []:
        message = item.model_dump(exclude_none=True) if hasattr(item, "model_dump") else dict(item)
        stored.append({key: value for key, value in message.items() if value is not None})
    return stored
