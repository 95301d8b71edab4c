// Plays one llmz scenario on the real llmz and returns its record.
//
// Theory of operation: `setup` becomes the host (tools, exits, chat, hooks, model limits, session options)
// once; the scripted model is a `_CustomModelClient` that lives for the whole scenario. `steps` then drive
// one `Session`: append, execute (worker or chat), save_and_restore (a JSON round trip through
// toJSON/fromJSON), compact, summarize. Each step's observable outcome is recorded in the vocabulary of
// spec/protocol/records/llmz.md, which the Python reference produces too. Anything in the scenario this
// bridge has no mapping for raises CannotExpress (answered as a skip that names it), never a silent pass.
import { Session, ThinkSignal, execute } from 'llmz'

import { CannotExpress, NotSettled, StepImpossible } from './errors.mjs'
import { checkScenario } from './vocabulary.mjs'
import { HOST_CALL_STEPS, cloneTools, playHostCall } from './host-calls.mjs'
import { buildChat, buildExits, buildObjects, buildTools } from './host.mjs'
import { ScriptedModelClient } from './model-client.mjs'
import { llmzModelRef } from './models.mjs'
import { inLlmz, inLlmzSync } from './meter.mjs'
import { Recorder } from './recorder.mjs'
import { DeliveryQueue } from './deliveries.mjs'
import { probe } from './probes.mjs'
import { ExecutionObserver, IterationNames, completeCompaction, errorFields, nativeMessage, sessionState } from './observe.mjs'

/** Capability flags the bridge declares (scenarios may `require` them); the reference declares none for llmz yet. */
export const CAPABILITIES = []

export async function playScenario(scenario) {
  if (scenario.system !== 'llmz') throw new CannotExpress(`scenarios of system ${JSON.stringify(scenario.system)}`)
  checkScenario(scenario)
  const setup = scenario.setup ?? {}
  const recorder = new Recorder()
  const state = {
    scenario,
    setup,
    recorder,
    deliveries: new DeliveryQueue(recorder),
    controller: null,
    observer: null,
    executions: 0,
    names: new IterationNames(),
    iterationIds: new Map(), // `${execution}:${index}` -> llmz's iteration id (prune, requestMessages)
    client: new ScriptedModelClient({ script: scenario.script ?? [], recorder, models: modelLimits(setup) }),
  }
  // What tool and chat handlers need from the run in progress.
  const host = {
    recorder,
    deliveries: state.deliveries,
    cancel: (reason) => state.controller?.abort(new Error(reason)),
    pending: (name, input) => state.observer?.pending(name, input),
    signalling: (name, spec) => state.observer?.signalling(name, spec),
    iteration: () => state.observer?.index ?? 0,
    probe: (spec) => probeSession(state, spec),
    definitions: new Map(),
  }
  state.definitions = host.definitions
  try {
    state.tools = cloneTools(buildTools(setup.tools ?? [], host), setup.tool_clones)
    state.exits = buildExits(setup.exits ?? [])
    state.chat = buildChat(setup.chat ?? {}, host)
    state.objects = buildObjects(setup.objects ?? [])
    state.session = inLlmzSync(() => new Session(sessionOptions(setup)))
  } catch (error) {
    // llmz validates definitions in their constructors (reserved component names, compaction ratios,
    // ...), which throw to the host: there is then nothing for the steps to drive, so the record ends
    // with that failure.
    if (error instanceof CannotExpress) throw error
    recorder.emit('error', errorFields(error)) // no iteration, no step: a configuration failure
    return recorder.toJSON()
  }
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
      return append(state, step)
    case 'execute':
      return run(state, step, index)
    case 'save_and_restore':
      return saveAndRestore(state, step, index)
    case 'compact':
    case 'summarize':
      return summarizeOrCompact(state, step)
    case 'tamper_accessors':
      return tamperAccessors(state)
    case 'request_messages':
      return requestMessages(state, step, index)
    case 'prune':
      return prune(state, step, index)
    case 'probe':
      state.recorder.emit('probe', probe(state, step))
      return undefined
    default:
      if (Object.hasOwn(HOST_CALL_STEPS, step.op)) return playHostCall(state, step)
      throw new CannotExpress(`step ${index} op ${JSON.stringify(step.op)}`)
  }
}

/** Append inputs as llmz takes them: the scenario's absent fields (null) are left out. */
function appendable(messages) {
  return messages.map((message) => {
    const out = {}
    for (const [key, value] of Object.entries(message)) if (value !== undefined && value !== null) out[key] = value
    return out
  })
}

function append(state, step) {
  const batch = appendable(step.messages)
  if (step.non_json) putNonJson(batch[0], step.non_json)
  try {
    state.session.append(step.single ? batch[0] : batch)
  } catch (error) {
    state.recorder.emit('error', { step: 'append', ...errorFields(error) })
  }
  if (step.mutate_after) for (const message of batch) change(message)
}

const CHANGED_TEXT = 'changed after append'

/** What `append.mutate_after` and `tamper_accessors` do to one message object the caller holds. */
function change(message) {
  if (!message || typeof message !== 'object') return
  if (typeof message.content === 'string') message.content = CHANGED_TEXT
  else if (Array.isArray(message.content)) {
    for (const part of message.content) if (part && part.type === 'text') part.text = CHANGED_TEXT
  }
  if (message.payload && typeof message.payload === 'object' && !Array.isArray(message.payload)) {
    message.payload.changed = true
  }
}

/** Read the three accessors and change what they returned (llmz.sessions.accessors-return-copies). */
function tamperAccessors(state) {
  const session = state.session
  for (const view of [session.transcript, session.messages, session.pendingMessages]) {
    for (const message of view) change(message)
    view.push({ role: 'user', content: CHANGED_TEXT })
  }
}

/**
 * `setup.tools`, or a getter when some tool has `from_iteration` above 1: llmz evaluates it for every
 * iteration, and it counts this execute's model calls so far to know which iteration that is.
 */
function toolsFor(state) {
  const specs = state.setup.tools ?? []
  if (specs.every((spec) => (spec.from_iteration ?? 1) === 1)) return state.tools
  const firstCall = state.client.calls
  return () => {
    const iteration = state.client.calls - firstCall + 1
    return state.tools.filter((_, at) => (specs[at].from_iteration ?? 1) <= iteration)
  }
}

async function run(state, step, index) {
  const options = { ...(state.setup.options ?? {}), ...(step.options ?? {}) }
  const exits = selectExits(state, step, index)
  const controller = new AbortController()
  state.executions += 1
  const hooks = state.setup.hooks ?? {}
  const observer = new ExecutionObserver(state.recorder, state.executions, () => state.session, state.names, inspectHook(hooks), state.deliveries)
  const firstEvent = state.recorder.events.length
  state.controller = controller
  state.observer = observer
  state.client.onResponse = unhandledText(state, step, observer)
  let result
  try {
    result = await settleWithin(settleBoundMs(options, step), controller, inLlmz(() => execute({
      client: state.client,
      ...(step.session === 'omitted' ? {} : { session: state.session }),
      instructions: step.instructions ?? '',
      tools: toolsFor(state),
      ...(state.objects.length ? { objects: state.objects } : {}),
      ...(exits === undefined ? {} : { exits }),
      ...(step.mode === 'chat' ? { chat: state.chat } : {}),
      // a removed option, handed over as written (llmz.migration.input-via-session)
      ...(step.legacy?.messages ? { messages: structuredClone(step.legacy.messages) } : {}),
      model: modelIds(state.setup),
      signal: controller.signal,
      options: executeOptions(options),
      ...trackIterations(observerHooks(hooks, observer, state.client), state, observer),
      ...exitHook(hooks, observer),
      ...toolHooks(hooks, observer),
      ...requestHook(hooks, observer, state.client),
    })))
  } catch (error) {
    if (error instanceof NotSettled) throw error
    observer.failed(error) // execute() throws only for failures before any iteration (configuration)
    return
  } finally {
    state.controller = null
    state.observer = null
    state.client.onResponse = null
  }
  // Without a session llmz creates one; later steps use it (llmz.sessions.fresh-session-when-omitted).
  if (step.session === 'omitted') state.session = result.session
  state.lastResult = result
  observer.finished(result)
  completeCompaction(state.recorder.events.slice(firstEvent), state.session, state.names, { duringTurn: true })
}

/** How long an execute may take before the bridge gives up on it: its JavaScript timeout plus grace, capped. */
const SETTLE_GRACE_MS = 2000
/** Below the harness's default 30 s per case, so the case fails with this reason instead of a kill. */
const MAX_SETTLE_MS = 10000

/**
 * The give-up limit of one execute: the step's own `give_up_after` when the scenario sets one (a scenario
 * about a timeout lowers it so a runtime that ignores the timeout costs the run only that long), else the
 * JavaScript timeout plus grace; never above MAX_SETTLE_MS.
 */
function settleBoundMs(options, step) {
  if (step.give_up_after != null) return Math.min(durationMs(step.give_up_after), MAX_SETTLE_MS)
  const timeout = options.timeout != null ? durationMs(options.timeout) : MAX_SETTLE_MS
  return Math.min(timeout + SETTLE_GRACE_MS, MAX_SETTLE_MS)
}

/**
 * `execute` must settle within `bound` ms; otherwise the case fails as an error naming the bound. llmz
 * 1.0.1's `options.timeout` is an interrupt deadline inside QuickJS, so it never fires while the program
 * awaits a host promise that does not settle; the bridge reports that instead of hanging the harness. Only
 * after the verdict is decided is the run aborted, to release what llmz holds.
 */
async function settleWithin(bound, controller, running) {
  let timer
  const expired = new Promise((_resolve, reject) => {
    timer = setTimeout(() => reject(new NotSettled(bound)), bound)
  })
  try {
    return await Promise.race([running, expired])
  } catch (error) {
    if (error instanceof NotSettled) controller.abort(error)
    throw error
  } finally {
    clearTimeout(timer)
  }
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

/**
 * `onBeforeTool` and `onAfterTool` per tool: substitute the input the handler gets; substitute the
 * successful output, reject it (the hook throws, which llmz reports as a hook failure of that call), or
 * abort the run through the hook's controller. `onBeforeExecution` substitutes the program that runs.
 */
function toolHooks(spec, observer) {
  const before = new Map((spec.before_tool ?? []).map((hook) => [hook.tool, hook]))
  const after = new Map((spec.after_tool ?? []).map((hook) => [hook.tool, hook]))
  const ran = (name, tool) => observer.recorder.emit('hook', { iteration: observer.index, name, tool })
  const hooks = {}
  if (before.size) {
    hooks.onBeforeTool = async ({ tool }) => {
      const hook = before.get(tool.name)
      if (!hook) return undefined
      ran('onBeforeTool', tool.name)
      return { input: structuredClone(hook.replace_input ?? null) }
    }
  }
  if (after.size) {
    hooks.onAfterTool = async ({ tool, controller }) => {
      const hook = after.get(tool.name)
      if (!hook) return undefined
      ran('onAfterTool', tool.name)
      if (Object.hasOwn(hook, 'reject')) throw new Error(hook.reject)
      if (Object.hasOwn(hook, 'think_signal')) throw new ThinkSignal(hook.think_signal)
      if (Object.hasOwn(hook, 'abort')) {
        controller.abort(new Error(hook.abort)) // the hook's own abort controller stops the run
        return undefined
      }
      return { output: structuredClone(hook.replace_output ?? null) }
    }
  }
  if (typeof spec.before_execution === 'string') {
    hooks.onBeforeExecution = async () => {
      observer.recorder.emit('hook', { iteration: observer.index, name: 'onBeforeExecution' })
      return { code: spec.before_execution }
    }
  }
  return hooks
}

/**
 * `onBeforeRequest`: the request's messages with the scenario's messages added at the end, for requests
 * from model call `from_call` on (calls are numbered over the whole scenario, summaries included).
 */
function requestHook(spec, observer, client) {
  const extra = spec.before_request?.append ?? []
  const mutate = Boolean(spec.before_request?.mutate)
  if (!extra.length && !mutate) return {}
  const fromCall = spec.before_request.from_call ?? 1
  return {
    onBeforeRequest: ({ messages }) => {
      if (client.calls + 1 < fromCall) return undefined
      if (mutate) mutateInPlace(messages)
      if (!extra.length) return undefined
      observer.recorder.emit('hook', { iteration: observer.index, name: 'onBeforeRequest' })
      return { messages: [...messages, ...extra.map((message) => ({ role: message.role, content: message.content }))] }
    },
  }
}

/** `before_request.mutate`: rewrite every `content` and `code` string the hook was handed, in place. */
function mutateInPlace(value) {
  if (Array.isArray(value)) {
    for (const item of value) mutateInPlace(item)
  } else if (value !== null && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) {
      if ((key === 'content' || key === 'code') && typeof item === 'string') value[key] = 'changed by onBeforeRequest'
      else mutateInPlace(item)
    }
  }
}

/**
 * `onInspect` as the scenario describes it: leave the preview to llmz (`default`), replace it, throw, or
 * mutate the value it was handed (clear it and mark it `mutated`) and leave the preview to llmz; with
 * `when`, only for values whose JSON text contains it. With
 * `record`, the observer also records each call llmz makes, with its purpose and identity.
 */
function inspectHook(spec) {
  const hook = spec.on_inspect
  if (!hook) return undefined
  const onInspect = (event) => {
    // `when`: act only on a value whose JSON text contains it; any other value keeps the default preview
    if (hook.when != null && !(JSON.stringify(event.value) ?? '').includes(hook.when)) return undefined
    switch (hook.action) {
      case 'replace':
        return hook.text ?? ''
      case 'throw':
        throw new Error(hook.text ?? '')
      case 'mutate': {
        const value = event.value
        if (value && typeof value === 'object') {
          for (const key of Object.keys(value)) delete value[key]
          value.mutated = true
        }
        return undefined
      }
      default:
        return undefined
    }
  }
  onInspect.record = hook.record === true // the observer records each call llmz makes (on_inspect.record)
  return onInspect
}

/**
 * The observer hooks llmz calls (`onIterationStart`, `onIterationEnd`, `onTrace`): the bridge's own
 * observer always listens; a scenario may add one that records that it ran or throws an ordinary Error.
 * llmz calls `onTrace` for every trace it records (model calls, code execution, tool calls, ...), so each
 * such `hook` event also names the trace type.
 */
function observerHooks(spec, observer, client) {
  const own = observer.hooks()
  const base = { ...own, onTrace: (event) => { client.traced(event?.trace); return own.onTrace(event) } }
  const wrap = (name, key, inner) => (event, ...rest) => {
    const result = inner(event, ...rest)
    const mode = spec[key] ?? 'none'
    if (mode === 'none') return result
    const fields = { iteration: observer.index, name }
    if (key === 'on_trace') fields.trace = event?.trace?.type ?? null
    if (mode === 'throw') fields.threw = true
    observer.recorder.emit('hook', fields)
    if (mode === 'throw') throw new Error(`the ${name} observer failed (scripted)`)
    // an iteration change in the previous API's shape (llmz.migration.iteration-start-no-mutation)
    if (key === 'on_iteration_start' && spec.iteration_start_returns != null) {
      return { ...(result ?? {}), instructions: spec.iteration_start_returns }
    }
    return result
  }
  return {
    ...base,
    onIterationStart: wrap('onIterationStart', 'on_iteration_start', base.onIterationStart),
    onIterationEnd: wrap('onIterationEnd', 'on_iteration_end', base.onIterationEnd),
    onTrace: wrap('onTrace', 'on_trace', base.onTrace),
  }
}

/**
 * A handler using the session while its own run holds it; the answer says what happened, as the
 * scenario vocabulary defines it (`{ok: true}`, `{error: <code>}`, or the status string).
 */
async function probeSession(state, spec) {
  const outcome = async (operation) => {
    try {
      await operation()
      return { ok: true }
    } catch (error) {
      return { error: errorFields(error).code }
    }
  }
  switch (spec.op) {
    case 'status':
      return state.session.status
    case 'to_json':
      return outcome(() => state.session.toJSON())
    case 'append':
      return outcome(() => state.session.append(appendable(spec.messages ?? [])))
    case 'compact':
      return outcome(() => state.session.compact({ client: state.client }))
    case 'summarize':
      return outcome(() => state.session.summarize({ client: state.client }))
    case 'execute':
      return outcome(async () => {
        // execute() reports most failures in its result rather than throwing.
        const result = await execute({ client: state.client, session: state.session, instructions: '', model: modelIds(state.setup) })
        if (result.status === 'error') throw result.error
      })
    default: // unreachable: checkScenario refused any other op before the run started
      return { error: `unknown probe ${spec.op}` }
  }
}

/**
 * Chat text reaches the host only through `response.handler`. With none bound, llmz keeps the text in
 * history and calls nobody, so the host records the attempt itself as `unhandled` (blank text is not an
 * attempt to say anything).
 */
function unhandledText(state, step, observer) {
  const chat = state.setup.chat ?? {}
  const noHandler = (chat.text_handler ?? 'ok') === 'none' || chat.response?.form === 'preset'
  if (step.mode !== 'chat' || !noHandler) return null
  return (entry) => {
    const text = entry.text ?? ''
    if (!text.trim()) return
    state.recorder.emit('delivery', { iteration: observer.index, kind: 'text', content: text, status: 'unhandled' })
  }
}

/** `onExit` as the scenario's hooks describe it: absent, accepting, or rejecting the completion. */
function exitHook(spec, observer) {
  const mode = spec.on_exit ?? 'none'
  if (mode === 'none') return {}
  return {
    onExit: (result) => {
      observer.recorder.emit('hook', { name: 'onExit', exit: result.exit.name, iteration: observer.index })
      if (mode === 'reject') throw new Error(`onExit rejected the ${JSON.stringify(result.exit.name)} completion`)
    },
  }
}

/**
 * Break an llmz 1.0.1 snapshot (`version: 3`: history `groups` of messages, each iteration group with its
 * `iteration` record and encoded `result`, an object result being `['object', [[name, encoding], ...]]`;
 * `memory.maxBytes`) as `save_and_restore.tamper` asks.
 */
function tamper(encoded, how) {
  const groups = encoded.groups
  const calls = groups.flatMap((group) => group.messages.filter((message) => message.toolCalls?.length))
  if (how === 'drop_tool_result') {
    const newest = calls.at(-1).toolCalls[0].id
    for (const group of groups) group.messages = group.messages.filter((m) => m.toolResultCallId !== newest)
  } else if (how === 'duplicate_call_id') {
    const oldest = calls[0].toolCalls[0].id
    const newest = calls.at(-1).toolCalls[0].id
    calls.at(-1).toolCalls[0].id = oldest
    for (const group of groups) for (const m of group.messages) if (m.toolResultCallId === newest) m.toolResultCallId = oldest
  } else if (how === 'reverse_iterations') {
    const [first, second] = groups.flatMap((group, i) => (group.iteration ? [i] : []))
    ;[groups[first], groups[second]] = [groups[second], groups[first]]
  } else if (how === 'malformed_result') {
    keptResult(groups, how).iteration.result = ['not-an-encoding']
  } else if (how === 'malformed_property') {
    // An object result is ['object', [[name, encoding], ...]]: the last property's encoding is broken.
    const result = keptResult(groups, how).iteration.result
    if (result?.[0] !== 'object' || !result[1]?.length) {
      throw new StepImpossible(`steps: save_and_restore.tamper ${how} needs the oldest kept result to be an object with a property`)
    }
    result[1].at(-1)[1] = ['not-an-encoding']
  } else if (how === 'over_capacity') {
    encoded.memory.maxBytes = 1
  } else {
    throw new CannotExpress(`save_and_restore.tamper ${JSON.stringify(how)}`)
  }
}

/** The oldest iteration group whose record holds a result, which the result tampers break. */
function keptResult(groups, how) {
  const group = groups.find((candidate) => candidate.iteration?.hasResult)
  if (!group) throw new StepImpossible(`steps: save_and_restore.tamper ${how} needs an earlier iteration that kept a result`)
  return group
}

async function saveAndRestore(state, step, index) {
  try {
    if (step.from_result && !state.lastResult) throw new CannotExpress('save_and_restore.from_result before any execute')
    const saved = step.from_result ? state.lastResult.toJSON() : state.session.toJSON()
    const encoded = JSON.parse(JSON.stringify(saved))
    if (step.drop_delivery_tracking) dropDeliveryTracking(encoded, index)
    if (step.unknown_version) encoded.version = UNKNOWN_SESSION_VERSION
    if (step.older_version) encoded.version -= 1
    if (step.tamper) tamper(encoded, step.tamper)
    state.session = inLlmzSync(() => Session.fromJSON(encoded, compactionOption(state.setup)))
  } catch (error) {
    if (error instanceof CannotExpress || error instanceof StepImpossible) throw error
    state.recorder.emit('error', { step: 'save_and_restore', ...errorFields(error) })
  }
}

/** A session format version no llmz release has used (1.0.1 writes version 3). */
const UNKNOWN_SESSION_VERSION = 999

/** llmz 1.0.1 snapshots carry no delivery tracking (it arrives in 1.0.2): dropping it is a no-op. */
function dropDeliveryTracking(encoded, index) {
  for (const key of ['delivery', 'lastSpeaker', 'deliveries']) {
    if (key in encoded) throw new CannotExpress(`step ${index} drop_delivery_tracking (found ${key} in the state)`)
  }
}

async function summarizeOrCompact(state, step) {
  const controller = step.signal === 'aborts_during' ? new AbortController() : null
  const options = { client: state.client, ...(controller ? { signal: controller.signal } : abortSignal(step)) }
  // `aborts_during`: the host presses Stop as the summary answer arrives, before the call returns.
  if (controller) state.client.onResponse = () => controller.abort(new Error('cancelled by the host (scripted)'))
  try {
    if (step.op === 'summarize') {
      const summary = await inLlmz(() => state.session.summarize(options))
      state.recorder.emit('summary', { content: summary?.content ?? null })
      return
    }
    const keep = step.keep_recent_iterations
    await inLlmz(() => state.session.compact({ ...options, ...(keep == null ? {} : { keepRecentIterations: keep }) }))
    const first = state.session.transcript[0]
    const event = state.recorder.emit('compaction', { summary: first?.role === 'summary' ? first.content : null })
    completeCompaction([event], state.session, state.names, { duringTurn: false })
  } catch (error) {
    state.recorder.emit('error', { step: step.op, ...errorFields(error) })
  } finally {
    state.client.lastSummary = null // recorded here; not an automatic compaction of the next execute
    if (controller) state.client.onResponse = null
  }
}

function modelLimits(setup) {
  const models = {}
  for (const model of setup.models ?? []) {
    models[llmzModelRef(model.id)] = {
      inputTokens: model.input_tokens,
      outputTokens: model.output_tokens,
      ...(model.audio != null ? { audio: model.audio } : {}),
    }
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
  if (spec.model !== undefined && spec.model !== null) compaction.model = llmzModelRef(spec.model)
  if (spec.summarize) compaction.summarize = summarizeCallback(spec.summarize)
  return Object.keys(compaction).length ? { compaction } : {}
}

function sessionOptions(setup) {
  const memory = setup.memory ?? {}
  return {
    ...compactionOption(setup),
    ...(memory.variables && Object.keys(memory.variables).length ? { variables: structuredClone(memory.variables) } : {}),
    ...(memory.max_bytes != null ? { maxBytes: memory.max_bytes } : {}),
  }
}

function executeOptions(options) {
  const out = {}
  if (options.loop != null) out.loop = options.loop
  if (options.timeout != null) out.timeout = durationMs(options.timeout)
  if (options.require_chat_response != null) out.requireChatResponse = options.require_chat_response
  if (options.max_tokens != null) out.maxTokens = options.max_tokens
  if (options.tool_result_max_tokens != null) out.toolResultMaxTokens = options.tool_result_max_tokens
  if (options.mid_stream_fallback != null) out.midStreamFallback = options.mid_stream_fallback
  if (options.max_time_to_first_token != null) out.maxTimeToFirstToken = options.max_time_to_first_token
  if (options.transcription_model != null) out.transcriptionModel = llmzModelRef(options.transcription_model)
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

// -- request previews, pruning, explicit-summary signals, non-JSON input, context tokens ---------------

/** `setup.compaction.summarize`: the host's summarize callback, resolving with the scenario's text. */
function summarizeCallback(spec) {
  return async () => spec.returns
}

/** `signal: aborted` on summarize/compact: an abort signal that has already fired. */
function abortSignal(step) {
  if (step.signal == null) return {}
  if (step.signal !== 'aborted') throw new CannotExpress(`${step.op}.signal ${JSON.stringify(step.signal)}`)
  const controller = new AbortController()
  controller.abort(new Error('cancelled by the host (scripted)'))
  return { signal: controller.signal }
}

/** `append.non_json`: a payload that refers to itself, or one holding binary data. */
function putNonJson(message, kind) {
  if (!message?.payload || typeof message.payload !== 'object') throw new CannotExpress('append.non_json without an object payload')
  if (kind === 'cycle') message.payload.self = message.payload
  else if (kind === 'bytes') message.payload.data = new Uint8Array([1, 2, 3])
  else throw new CannotExpress(`append.non_json ${JSON.stringify(kind)}`)
}

/**
 * Remembers llmz's id of each iteration under the record's (execution, index), and, when the scenario
 * asks for it (`setup.record_context_tokens`), copies the iteration's `tokens.context` onto its
 * `iteration` event once llmz has settled it.
 */
function trackIterations(hooks, state, observer) {
  const execution = state.executions
  return {
    ...hooks,
    onIterationStart: (iteration, ...rest) => {
      const result = hooks.onIterationStart(iteration, ...rest)
      if (iteration?.id) state.iterationIds.set(`${execution}:${observer.index}`, iteration.id)
      return result
    },
    onIterationEnd: (iteration, ...rest) => {
      const before = state.recorder.events.length
      const result = hooks.onIterationEnd(iteration, ...rest)
      const context = iteration?.tokens?.context
      if (state.setup.record_context_tokens && context && typeof context === 'object') {
        const event = state.recorder.events.slice(before).find((candidate) => candidate.type === 'iteration')
        if (event) event.tokens = { context: { ...context } }
      }
      return result
    },
  }
}

function iterationIds(state, refs, where) {
  return refs.map((ref) => {
    const id = state.iterationIds.get(`${ref.execution}:${ref.index}`)
    if (!id) throw new Error(`${where}: no iteration ${ref.index} of execution ${ref.execution} ran`)
    return id
  })
}

/** `session.requestMessages(...)`, recorded as a `request_messages` event. */
function requestMessages(state, step, index) {
  const options = {}
  if (step.memory != null) options.memory = step.memory
  if (step.retained_iterations != null) {
    options.retainedIterationIds = iterationIds(state, step.retained_iterations, `step ${index} request_messages`)
  }
  try {
    const messages = state.session.requestMessages(options)
    state.recorder.emit('request_messages', { messages: messages.map(nativeMessage) })
  } catch (error) {
    state.recorder.emit('error', { step: 'request_messages', ...errorFields(error) })
  }
}

/** `session.prune(retainedIterationIds)`. */
function prune(state, step, index) {
  const ids = iterationIds(state, step.retained_iterations, `step ${index} prune`)
  try {
    state.session.prune(ids)
  } catch (error) {
    state.recorder.emit('error', { step: 'prune', ...errorFields(error) })
  }
}
