// The host application a scenario's `setup` describes, built from real llmz objects.
//
// Tools get declarative handlers (returns / returns_input / throws / think_signal / hangs / cancels, with
// an optional run of initial failures or cancellations); exits, components and the chat text handler are
// built from their JSON Schemas and handler modes. Everything a handler does is recorded through the
// recorder, so the record shows what the host observed, not what llmz claims happened.
import { Chat, Component, Exit, ObjectInstance, ThinkSignal, Tool, truncate } from 'llmz'

import { CannotExpress } from './errors.mjs'
import { scenarioModelId } from './models.mjs'
import { toZui, withEffects } from './schema.mjs'

const BEHAVIOURS = ['returns', 'returns_input', 'throws', 'think_signal', 'hangs', 'cancels', 'session_probe']

/**
 * Builds the tools of `setup.tools`. `host.cancel(reason)` aborts the execute that is running (the
 * `cancels` behaviour is the host pressing Stop from inside a handler); `host.pending(name, input)` records
 * a call that will never settle (llmz never traces those); `host.probe(spec)` uses the session from inside
 * the handler while the run holds it.
 */
export function buildTools(specs, host) {
  return specs.map((spec) => {
    if (spec.handler === 'missing') return toolWithoutHandler(spec)
    const behaviour = spec.behaviour ?? {}
    const main = BEHAVIOURS.filter((name) => Object.hasOwn(behaviour, name))
    if (main.length !== 1) throw new CannotExpress(`tool ${spec.name} with behaviours ${JSON.stringify(main)}`)
    const failFirst = behaviour.fail_first ?? 0
    const cancelFirst = behaviour.cancel_first ?? 0
    const retries = spec.retries ?? 0
    let calls = 0
    const handler = async (input) => {
      calls += 1
      if (calls <= failFirst) throw new Error(behaviour.fail_message ?? 'temporary failure')
      if (calls <= cancelFirst) {
        return perform(spec.name, 'cancels', { cancels: behaviour.cancel_reason ?? 'cancelled' }, input, host.cancel)
      }
      if (main[0] === 'hangs') host.pending(spec.name, input)
      if (main[0] === 'think_signal') host.signalling(spec.name, behaviour.think_signal)
      if (main[0] === 'session_probe') return host.probe(behaviour.session_probe)
      return perform(spec.name, main[0], behaviour, input, host.cancel)
    }
    return new Tool({
      name: spec.name,
      description: spec.description || undefined,
      input: withEffects(toZui(spec.input ?? { type: 'object' }, `tool ${spec.name} input`), spec.input_effects),
      ...(spec.output || spec.output_effects?.length
        ? { output: withEffects(toZui(spec.output ?? {}, `tool ${spec.name} output`), spec.output_effects) }
        : {}),
      handler,
      retry: ({ attempt }) => attempt <= retries,
    })
  })
}

/** `handler: missing`: a Tool defined with no handler at all (llmz.errors.invalid-tool); llmz decides. */
function toolWithoutHandler(spec) {
  return new Tool({
    name: spec.name,
    description: spec.description || undefined,
    input: withEffects(toZui(spec.input ?? { type: 'object' }, `tool ${spec.name} input`), spec.input_effects),
  })
}

/** `truncate({value, maxTokens, preserve})` when the behaviour sets a display budget, else the value. */
function displayBudget(behaviour, value) {
  const spec = behaviour.truncate
  if (!spec) return value
  // preserve is passed only when the scenario gives it: omitted, llmz's own default applies
  // (llmz.inspection.truncate-options, llmz.inspection.preserve-modes#open_question).
  return truncate({ value, maxTokens: spec.max_tokens, ...(spec.preserve == null ? {} : { preserve: spec.preserve }) })
}

async function perform(name, kind, behaviour, input, cancel) {
  switch (kind) {
    case 'returns':
      return displayBudget(behaviour, structuredClone(behaviour.returns))
    case 'returns_input':
      return displayBudget(behaviour, input)
    case 'throws':
      throw new Error(behaviour.throws)
    case 'think_signal': {
      // In llmz 1.0.1 only a thrown signal pauses; a returned one is treated as the tool's value. The
      // scenario says which the handler does, and the bridge does exactly that.
      const spec = behaviour.think_signal
      const context = spec.context === undefined || spec.context === null ? undefined : structuredClone(spec.context)
      const signal = new ThinkSignal(spec.reason, context === undefined ? undefined : displayBudget(behaviour, context))
      if (spec.via === 'throw') throw signal
      return signal
    }
    case 'hangs':
      return new Promise(() => {})
    case 'cancels':
      // The host presses Stop from inside the handler, which then returns normally: llmz 1.0.1 does not
      // race a pending tool promise against its abort signal, so a handler that kept hanging would hang
      // the run (that case is `hangs`).
      cancel(behaviour.cancels)
      return null
    default:
      throw new CannotExpress(`tool ${name} behaviour ${kind}`)
  }
}

/**
 * The exits of `setup.exits`. An exit without a description is handed to llmz without one, as the
 * scenario wrote it (llmz 1.0.1 refuses it; the documents make the description optional).
 */
export function buildExits(specs) {
  return specs.map(
    (spec) =>
      new Exit({
        name: spec.name,
        ...(spec.description ? { description: spec.description } : {}),
        ...(spec.schema || spec.effects?.length
          ? { schema: withEffects(toZui(spec.schema ?? {}, `exit ${spec.name} schema`), spec.effects) }
          : {}),
      }),
  )
}

/**
 * The `Chat` of `setup.chat`: its text handler and components record each delivery they acknowledge;
 * `host.deliveries` (a DeliveryQueue) also records each component send when it is queued.
 */
export function buildChat(spec, host) {
  const components = (spec.components ?? []).map((component) => buildComponent(component, host))
  const textMode = spec.text_handler ?? 'ok'
  // `response: {form: preset}` is the bare preset name (no handler, no onDelta); `form: object` adds
  // preset and instructions to the object (llmz.components.response-options).
  if (spec.response?.form === 'preset') return new Chat({ components, response: spec.response.preset })
  // Options of the previous Chat API, handed over as written (llmz.migration.handlers-moved,
  // llmz.migration.input-via-session): llmz may refuse them or ignore them.
  const legacy = {}
  if (spec.legacy?.transcript?.length) legacy.transcript = structuredClone(spec.legacy.transcript)
  if (spec.legacy?.handler) {
    if (textMode !== 'none') legacy.handler = deliveryHandler(textMode, host, 'text', null)
    const onMessageDelta = previewHandler(spec.on_delta ?? 'none', host)
    if (onMessageDelta) legacy.onMessageDelta = onMessageDelta
    return new Chat({ components, ...legacy, response: spec.response?.preset ? { preset: spec.response.preset } : {} })
  }
  if (Object.keys(legacy).length) return new Chat({ components, ...legacy, response: legacyFreeResponse(spec, textMode, host) })
  const response = textMode === 'none' ? {} : { handler: deliveryHandler(textMode, host, 'text', null) }
  if (spec.response?.preset != null) response.preset = spec.response.preset
  if (spec.response?.instructions != null) response.instructions = spec.response.instructions
  const onDelta = previewHandler(spec.on_delta ?? 'none', host)
  return new Chat({ components, response: onDelta ? { ...response, onDelta } : response })
}

/** `response` of a chat that also carries a legacy transcript: as usual. */
function legacyFreeResponse(spec, textMode, host) {
  const response = textMode === 'none' ? {} : { handler: deliveryHandler(textMode, host, 'text', null) }
  if (spec.response?.preset != null) response.preset = spec.response.preset
  if (spec.response?.instructions != null) response.instructions = spec.response.instructions
  const onDelta = previewHandler(spec.on_delta ?? 'none', host)
  return onDelta ? { ...response, onDelta } : response
}

/**
 * `response.onDelta` as the scenario describes it (`observe` / `throw`), recording each preview as a
 * `delta` event. A restart (retraction) is recorded as a `delta` with `restart: true`, the attempt, the
 * models (llmz 1.0.1 names them `fromModel` and `toModel`) and the reason. Random ids are left out.
 */
function previewHandler(mode, host) {
  if (mode === 'none') return undefined
  return (event) => {
    const fields = event.restart
      ? {
          iteration: host.iteration(), restart: true, attempt: event.attempt,
          models: [scenarioModelId(event.fromModel), scenarioModelId(event.toModel)], reason: event.reason,
        }
      : { iteration: host.iteration(), delta: event.delta, content: event.content }
    const throws = mode === 'throw' || (mode === 'throw_on_restart' && event.restart)
    if (throws) fields.threw = true
    host.recorder.emit('delta', fields)
    if (throws) throw new Error('the onDelta consumer failed (scripted)')
  }
}

function buildComponent(spec, host) {
  const mode = spec.handler ?? 'ok'
  const handler = mode === 'none' ? undefined : deliveryHandler(mode, host, 'component', spec.name, spec.report_metadata)
  const viaWithHandler = spec.bind === 'with_handler'
  const definition = new Component({
    name: spec.name,
    description: spec.description || spec.name,
    props: withEffects(toZui(spec.props ?? { type: 'object' }, `component ${spec.name} props`), spec.effects),
    ...(handler && !viaWithHandler ? { handler } : {}),
    // a removed option, handed over as written (llmz.components.no-aliases-or-metadata)
    ...(spec.aliases ? { aliases: [...spec.aliases] } : {}),
  })
  // The definition as the setup gives it, for the `render` probe (llmz.components.with-handler): its own
  // render, before the delivery-recording wrapper below is put on the registered component.
  host.definitions?.set(spec.name, { definition, render: definition.render.bind(definition) })
  const component = handler && viaWithHandler ? definition.withHandler(handler) : definition
  // llmz renders a send when the program makes it and queues its delivery (lib/deliveries.mjs): the
  // queue is recorded here, so a send that never reaches its handler still shows as skipped.
  const render = component.render.bind(component)
  component.render = (props) => {
    const rendered = render(props)
    host.deliveries.queued(host.iteration(), spec.name, structuredClone(rendered.props), mode !== 'none')
    return rendered
  }
  return component
}

/** A handler that records the delivery llmz hands it: `delivered`, or `failed` when scripted to throw. */
function deliveryHandler(mode, host, kind, component, reportMetadata = false) {
  return (content, metadata) => {
    if (reportMetadata) {
      const id = metadata?.id
      host.recorder.emit('host_call', {
        step: 'component_handler', component, metadata_id: typeof id === 'string' && id.length > 0,
      })
    }
    if (component) host.deliveries.reached(component)
    const entry = { iteration: host.iteration(), kind, content, status: mode === 'fail' ? 'failed' : 'delivered' }
    if (component) entry.component = component
    host.recorder.emit('delivery', entry)
    if (mode === 'fail') throw new Error(`the ${component ? `chat.${component}` : 'response'} handler failed (scripted)`)
  }
}

/**
 * The objects of `setup.objects`: host-backed globals whose properties the program reads and, where
 * writable, assigns (through the property's schema). Initial values are handed over as they are.
 */
export function buildObjects(specs) {
  return specs.map(
    (spec) =>
      new ObjectInstance({
        name: spec.name,
        ...(spec.description ? { description: spec.description } : {}),
        properties: (spec.properties ?? []).map((property) => ({
          name: property.name,
          value: structuredClone(property.value ?? null),
          writable: Boolean(property.writable),
          ...(property.schema || property.effects?.length
            ? { type: withEffects(toZui(property.schema ?? {}, `object ${spec.name}.${property.name}`), property.effects) }
            : {}),
        })),
      }),
  )
}
