// Plays one llmz scenario on the real llmz and returns its record.
//
// Theory of operation: `setup` becomes the host (tools, exits, chat, hooks, model limits, session options)
// once; the scripted model is a `_CustomModelClient` that lives for the whole scenario. `steps` then drive
// one `Session`: append, execute (worker or chat), save_and_restore (a JSON round trip through
// toJSON/fromJSON), compact, summarize. Each step's observable outcome is recorded in the vocabulary of
// spec/protocol/records/llmz.md, which the Python reference produces too. Anything in the scenario this
// bridge has no mapping for raises CannotExpress (answered as a skip that names it), never a silent pass.
import { DefaultExit, ListenExit, Session, execute } from 'llmz'

import { CannotExpress } from './errors.mjs'
import { buildChat, buildExits, buildTools } from './host.mjs'
import { ScriptedModelClient } from './model-client.mjs'
import { llmzModelRef } from './models.mjs'
import { Recorder } from './recorder.mjs'
import { describeError, recordExecution, sessionState } from './observe.mjs'

/** Capability flags the bridge declares (scenarios may `require` them). */
export const CAPABILITIES = ['llmz.chat', 'llmz.worker', 'llmz.persistence', 'llmz.compaction']

const SETUP_FIELDS = ['tools', 'exits', 'chat', 'hooks', 'models', 'compaction', 'options']
const OPTION_FIELDS = ['loop', 'timeout', 'require_chat_response', 'max_tokens', 'tool_result_max_tokens']

export async function playScenario(scenario) {
  if (scenario.system !== 'llmz') throw new CannotExpress(`scenarios of system ${JSON.stringify(scenario.system)}`)
  const setup = scenario.setup ?? {}
  rejectUnknown(setup, SETUP_FIELDS, 'setup')
  const recorder = new Recorder()
  const state = {
    scenario,
    setup,
    recorder,
    controller: null,
    client: new ScriptedModelClient({ script: scenario.script ?? [], recorder, models: modelLimits(setup) }),
  }
  state.tools = buildTools(setup.tools ?? [], recorder, (reason) => state.controller?.abort(new Error(reason)))
  state.exits = buildExits(setup.exits ?? [])
  state.chat = buildChat(setup.chat ?? {}, recorder)
  state.session = new Session(sessionOptions(setup))
  for (const [index, step] of (scenario.steps ?? []).entries()) {
    await playStep(state, step, index)
  }
  // llmz reports the failed call as GENERATION_FAILED and carries on; the suite's rule is stricter: a
  // script that runs out fails the case itself, exactly as with the reference.
  if (state.client.exhausted) throw state.client.exhausted
  recorder.final = sessionState(state.session)
  return recorder.toJSON()
}

async function playStep(state, step, index) {
  switch (step.op) {
    case 'append':
      return append(state, step, index)
    case 'execute':
      return run(state, step, index)
    case 'save_and_restore':
      return saveAndRestore(state, step, index)
    case 'compact':
    case 'summarize':
      return summarizeOrCompact(state, step, index)
    default:
      throw new CannotExpress(`step ${index} op ${JSON.stringify(step.op)}`)
  }
}

function append(state, step, index) {
  const messages = step.messages.map((message) => {
    const out = {}
    for (const [key, value] of Object.entries(message)) if (value !== undefined) out[key] = value
    return out
  })
  try {
    state.session.append(messages)
    state.recorder.emit('append', { step: index, accepted: messages.length })
  } catch (error) {
    state.recorder.emit('append', { step: index, accepted: 0, error: describeError(error) })
  }
}

async function run(state, step, index) {
  const options = { ...(state.setup.options ?? {}), ...(step.options ?? {}) }
  rejectUnknown(options, OPTION_FIELDS, `step ${index} options`)
  const exits = selectExits(state, step, index)
  const controller = new AbortController()
  state.controller = controller
  const hooks = buildHooks(state.setup.hooks ?? {}, state.recorder)
  let result
  try {
    result = await execute({
      client: state.client,
      session: state.session,
      instructions: step.instructions ?? '',
      tools: state.tools,
      ...(exits === undefined ? {} : { exits }),
      ...(step.mode === 'chat' ? { chat: state.chat } : {}),
      model: modelIds(state.setup),
      signal: controller.signal,
      options: executeOptions(options),
      ...hooks,
    })
  } catch (error) {
    // execute() throws only for failures before any iteration (configuration); record them as its outcome.
    state.recorder.emit('execute', { step: index, mode: step.mode, status: 'error', error: describeError(error) })
    return
  } finally {
    state.controller = null
  }
  recordExecution(state.recorder, result, { step: index, mode: step.mode })
}

function selectExits(state, step, index) {
  if (step.mode !== 'worker' && step.mode !== 'chat') throw new CannotExpress(`execute mode ${JSON.stringify(step.mode)}`)
  if (step.exits === undefined || step.exits === null) return state.exits.length ? state.exits : undefined
  return step.exits.map((name) => {
    const exit = state.exits.find((candidate) => candidate.name === name)
    if (!exit) throw new Error(`step ${index}: exit ${JSON.stringify(name)} is not in setup.exits`)
    return exit
  })
}

function buildHooks(spec, recorder) {
  const onExit = spec.on_exit ?? 'none'
  if (onExit === 'none') return {}
  return {
    onExit: (result) => {
      recorder.emit('on_exit', { exit: result.exit.name, output: result.result, verdict: onExit })
      if (onExit === 'reject') throw new Error(`the host rejected exit ${result.exit.name} (scripted)`)
    },
  }
}

async function saveAndRestore(state, step, index) {
  let encoded
  try {
    encoded = JSON.parse(JSON.stringify(state.session.toJSON()))
    if (step.drop_delivery_tracking) dropDeliveryTracking(encoded, index)
    state.session = Session.fromJSON(encoded, compactionOption(state.setup))
    state.recorder.emit('save_and_restore', { step: index, ok: true })
  } catch (error) {
    state.recorder.emit('save_and_restore', { step: index, ok: false, error: describeError(error) })
  }
}

/** llmz 1.0.1 snapshots carry no delivery tracking (it arrives in 1.0.2), so there is nothing to drop. */
function dropDeliveryTracking(encoded, index) {
  for (const key of ['lastSpeaker', 'delivery', 'deliveries', 'lastParticipant']) {
    if (key in encoded) throw new CannotExpress(`step ${index} drop_delivery_tracking (found ${key} in 1.0.1 state)`)
  }
}

async function summarizeOrCompact(state, step, index) {
  const options = { client: state.client }
  try {
    if (step.op === 'summarize') {
      const summary = await state.session.summarize(options)
      state.recorder.emit('summarize', { step: index, ok: true, summary: summary ?? null })
    } else {
      const keep = step.keep_recent_iterations
      await state.session.compact({ ...options, ...(keep === undefined || keep === null ? {} : { keepRecentIterations: keep }) })
      state.recorder.emit('compact', { step: index, ok: true })
    }
  } catch (error) {
    state.recorder.emit(step.op, { step: index, ok: false, error: describeError(error) })
  }
}

function modelLimits(setup) {
  const models = {}
  for (const model of setup.models ?? []) {
    models[llmzModelRef(model.id)] = { inputTokens: model.input_tokens, outputTokens: model.output_tokens }
  }
  if (!Object.keys(models).length) models[llmzModelRef('scripted')] = { inputTokens: 128000, outputTokens: 16384 }
  return models
}

function modelIds(setup) {
  const ids = (setup.models ?? []).map((model) => llmzModelRef(model.id))
  if (!ids.length) return llmzModelRef('scripted')
  return ids.length === 1 ? ids[0] : ids
}

function compactionOption(setup) {
  if (setup.compaction === false) return { compaction: false }
  const spec = setup.compaction ?? {}
  const compaction = {}
  if (spec.trigger_ratio !== undefined) compaction.triggerRatio = spec.trigger_ratio
  if (spec.target_ratio !== undefined) compaction.targetRatio = spec.target_ratio
  if (spec.keep_recent_iterations !== undefined) compaction.keepRecentIterations = spec.keep_recent_iterations
  if (spec.max_summary_tokens !== undefined) compaction.maxSummaryTokens = spec.max_summary_tokens
  if (spec.model !== undefined && spec.model !== null) compaction.model = spec.model
  return Object.keys(compaction).length ? { compaction } : {}
}

function sessionOptions(setup) {
  return compactionOption(setup)
}

function executeOptions(options) {
  const out = {}
  if (options.loop != null) out.loop = options.loop
  if (options.timeout != null) out.timeout = durationMs(options.timeout)
  if (options.require_chat_response != null) out.requireChatResponse = options.require_chat_response
  if (options.max_tokens != null) out.maxTokens = options.max_tokens
  if (options.tool_result_max_tokens != null) out.toolResultMaxTokens = options.tool_result_max_tokens
  return out
}

const UNITS_MS = { ms: 1, s: 1000, m: 60000, h: 3600000, d: 86400000, w: 604800000 }

/** Milliseconds, or a duration like '30s' (the same spelling reference/clock.py accepts). */
export function durationMs(value) {
  if (typeof value === 'number') return value
  const match = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h|d|w)\s*$/.exec(String(value))
  if (!match) throw new Error(`${JSON.stringify(value)} is not a duration like '30s' or '500ms'`)
  return Math.trunc(Number(match[1]) * UNITS_MS[match[2]])
}

function rejectUnknown(object, known, where) {
  for (const key of Object.keys(object)) {
    if (!known.includes(key)) throw new CannotExpress(`${where}.${key}`)
  }
}

export { DefaultExit, ListenExit }
