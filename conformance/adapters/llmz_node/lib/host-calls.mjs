// The host-API probe steps (conformance/scenario/llmz_host.py) on the real llmz.
//
// Each probe calls the documented host-side API itself (inspect, createInspector, component.render,
// toJSON, DefaultComponents, the package's exports) and records what it answered as one `probe` event
// (spec/protocol/records/llmz.md). Nothing here interprets llmz's answer beyond what the event reports.
import * as llmz from 'llmz'
import { DefaultComponents, createInspector, inspect } from 'llmz'

import { errorFields } from './observe.mjs'
import { count } from './tokenizer.mjs'

const CHANGED = 'changed'

export async function playHostCall(state, step) {
  switch (step.op) {
    case 'inspect':
      return inspectValue(state, step)
    case 'render':
      return render(state, step)
    case 'api_surface':
      return apiSurface(state, step)
    case 'definition_json':
      return definitionJson(state, step)
    case 'default_components':
      return defaultComponents(state)
    case 'result_contents':
      return resultContents(state)
    default:
      throw new Error(`not a probe step: ${step.op}`)
  }
}

export const HOST_CALL_STEPS = {
  inspect: 'InspectStep',
  render: 'RenderStep',
  api_surface: 'ApiSurfaceStep',
  definition_json: 'DefinitionJsonStep',
  default_components: 'DefaultComponentsStep',
  result_contents: 'ResultContentsStep',
}

function inspectValue(state, step) {
  let text
  try {
    if (step.via === 'inspect') {
      text = inspect(step.value, undefined, { tokens: step.max_tokens, ...(step.compact == null ? {} : { compact: step.compact }) })
    } else {
      const options = { purpose: step.purpose, maxTokens: step.max_tokens }
      if (step.preserve != null) options.preserve = step.preserve
      text = createInspector(undefined)(step.value, options)
    }
  } catch (error) {
    state.recorder.emit('host_call', { step: 'inspect', error: { code: errorFields(error).code } })
    return
  }
  state.recorder.emit('host_call', { step: 'inspect', text, tokens: count(text) })
}

function change(value) {
  if (Array.isArray(value)) value.push({ [CHANGED]: true })
  else if (value !== null && typeof value === 'object') value[CHANGED] = true
}

function render(state, step) {
  const found = state.definitions.get(step.component)
  if (!found) throw new Error(`steps: render.component ${step.component} is not in setup.chat.components`)
  const given = structuredClone(step.props)
  let rendered
  try {
    rendered = found.render(given)
  } catch (error) {
    state.recorder.emit('host_call', { step: 'render', component: step.component, error: { code: errorFields(error).code } })
    return
  }
  if (step.change_input ?? true) change(given)
  if (step.change_rendered ?? true) {
    try {
      change(rendered.props)
    } catch {
      // frozen: the runtime refused the change, which is what the rule asks
    }
  }
  state.recorder.emit('host_call', {
    step: 'render', component: step.component, props: structuredClone(rendered.props),
    handler_bound: found.definition.handler !== undefined,
  })
}

function apiSurface(state, step) {
  const exposed = (name) => name.split('.').reduce((owner, key) => (owner == null ? undefined : owner[key]), llmz) !== undefined
  const present = step.names.filter(exposed)
  const absent = step.names.filter((name) => !present.includes(name))
  state.recorder.emit('host_call', { step: 'api_surface', present, absent })
}

function definitionJson(state, step) {
  const [list, name] = step.tool != null ? [state.tools, step.tool] : [state.exits, step.exit]
  const definition = list.find((item) => item.name === name)
  if (!definition) throw new Error(`steps: definition_json names ${name}, which setup does not define`)
  state.recorder.emit('host_call', { step: 'definition_json', json: JSON.parse(JSON.stringify(definition.toJSON())) })
}

function defaultComponents(state) {
  const defaults = Object.values(DefaultComponents)
  const bound = defaults.map((component) => component.withHandler(() => {}))
  state.recorder.emit('host_call', {
    step: 'default_components',
    definitions: defaults.length,
    bound: defaults.filter((component) => component.handler !== undefined).length,
    unbound_after_with_handler: bound.filter((component) => component.handler === undefined).length,
  })
}

/** The documented parts of the last ExecutionResult: status, tokens (provider usage), diagnostics(). */
function resultContents(state) {
  const result = state.lastResult
  if (!result) throw new Error('steps: result_contents needs an earlier execute step')
  const tokens = result.tokens ?? {}
  let diagnostics = false
  try {
    diagnostics = typeof result.diagnostics === 'function' && result.diagnostics() != null
  } catch {
    diagnostics = false
  }
  state.recorder.emit('host_call', {
    step: 'result_contents',
    outcome: result.status,
    usage: { input_tokens: tokens.input ?? 0, output_tokens: tokens.output ?? 0 },
    diagnostics,
  })
}

/** `setup.tool_clones`: each named tool is replaced by `tool.clone({ name })`. */
export function cloneTools(tools, clones) {
  const byName = new Map((clones ?? []).map((clone) => [clone.of, clone.name]))
  for (const of of byName.keys()) {
    if (!tools.some((tool) => tool.name === of)) throw new Error(`setup.tool_clones: ${of} is not in setup.tools`)
  }
  return tools.map((tool) => (byName.has(tool.name) ? tool.clone({ name: byName.get(tool.name) }) : tool))
}
