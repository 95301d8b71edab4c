// The host application a scenario's `setup` describes, built from real llmz objects.
//
// Tools get declarative handlers (returns / returns_input / throws / think_signal / hangs / cancels, with
// an optional run of initial failures); exits, components and the chat text handler are built from their
// JSON Schemas and handler modes. Everything a handler does is recorded through the recorder, so the
// record shows what the host observed, not what llmz claims happened.
import { Chat, Component, Exit, ThinkSignal, Tool } from 'llmz'

import { CannotExpress } from './errors.mjs'
import { toZui } from './schema.mjs'

const BEHAVIOURS = ['returns', 'returns_input', 'throws', 'think_signal', 'hangs', 'cancels']

/**
 * Builds the tools of `setup.tools`. `cancel(reason)` aborts the execute that is running (the `cancels`
 * behaviour is the host pressing Stop from inside a handler).
 */
export function buildTools(specs, recorder, cancel) {
  return specs.map((spec) => {
    const behaviour = spec.behaviour ?? {}
    const main = BEHAVIOURS.filter((name) => Object.hasOwn(behaviour, name))
    if (main.length !== 1) throw new CannotExpress(`tool ${spec.name} with behaviours ${JSON.stringify(main)}`)
    const failFirst = behaviour.fail_first ?? 0
    const retries = spec.retries ?? 0
    let calls = 0
    const handler = async (input) => {
      calls += 1
      recorder.emit('tool_call', { name: spec.name, input, attempt: calls })
      if (calls <= failFirst) throw new Error(behaviour.fail_message ?? 'temporary failure')
      return perform(spec.name, main[0], behaviour, input, cancel)
    }
    return new Tool({
      name: spec.name,
      description: spec.description || undefined,
      input: toZui(spec.input ?? { type: 'object' }, `tool ${spec.name} input`),
      ...(spec.output ? { output: toZui(spec.output, `tool ${spec.name} output`) } : {}),
      handler,
      retry: ({ attempt }) => attempt <= retries,
    })
  })
}

async function perform(name, kind, behaviour, input, cancel) {
  switch (kind) {
    case 'returns':
      return structuredClone(behaviour.returns)
    case 'returns_input':
      return input
    case 'throws':
      throw new Error(behaviour.throws)
    case 'think_signal': {
      // In llmz 1.0.1 only a thrown signal pauses; a returned one is treated as the tool's value. The
      // scenario says which the handler does, and the bridge does exactly that.
      const spec = behaviour.think_signal
      const signal = new ThinkSignal(spec.reason, spec.context ?? undefined)
      if (spec.via === 'throw') throw signal
      return signal
    }
    case 'hangs':
      return new Promise(() => {})
    case 'cancels':
      cancel(behaviour.cancels)
      return new Promise(() => {})
    default:
      throw new CannotExpress(`tool ${name} behaviour ${kind}`)
  }
}

/**
 * The exits of `setup.exits`. llmz 1.0.1 refuses an Exit without a description, while the scenario
 * format allows one; the exit's name then stands in as its description.
 */
export function buildExits(specs) {
  return specs.map(
    (spec) =>
      new Exit({
        name: spec.name,
        description: spec.description || spec.name,
        ...(spec.schema ? { schema: toZui(spec.schema, `exit ${spec.name} schema`) } : {}),
      }),
  )
}

/** The `Chat` of `setup.chat`: its text handler and components record each delivery they acknowledge. */
export function buildChat(spec, recorder) {
  const components = (spec.components ?? []).map((component) => buildComponent(component, recorder))
  const textMode = spec.text_handler ?? 'ok'
  const response = textMode === 'none' ? {} : { handler: deliveryHandler(textMode, recorder, 'text', null) }
  return new Chat({ components, response })
}

function buildComponent(spec, recorder) {
  const mode = spec.handler ?? 'ok'
  return new Component({
    name: spec.name,
    description: spec.description || spec.name,
    props: toZui(spec.props ?? { type: 'object' }, `component ${spec.name} props`),
    ...(mode === 'none' ? {} : { handler: deliveryHandler(mode, recorder, 'component', spec.name) }),
  })
}

function deliveryHandler(mode, recorder, kind, name) {
  return (payload) => {
    const fields = kind === 'text' ? { kind, text: payload } : { kind, name, props: payload }
    if (mode === 'fail') {
      recorder.emit('delivery', { ...fields, ok: false })
      throw new Error(`the ${kind === 'text' ? 'text' : name} handler failed (scripted)`)
    }
    recorder.emit('delivery', { ...fields, ok: true })
  }
}
