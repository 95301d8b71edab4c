// Turning what llmz exposes while it runs (hooks, traces, results, the Session) into record events.
//
// The vocabulary is the one the Python reference writes (spec/protocol/records/llmz.md): `tool_call`,
// `delivery`, `hook`, `error`, `iteration`, `exit`, `result`, `compaction`, plus the model traffic the
// scripted client records. llmz reports iterations through `onIterationStart` / `onIterationEnd`, tool calls
// through `tool_call` traces, and the run through its ExecutionResult; each is translated here, in the
// order it happens. Only observable, stable facts go in: generated ids and wall-clock times stay out.
import { ThinkSignal, createInspector, isLLMzError } from 'llmz'

const defaultInspector = createInspector()

/** Error code -> exported class name, from the llmz error catalogue (used when an error lacks `name`). */
export const CLASS_BY_CODE = {
  INVALID_CODE: 'InvalidCodeError', EXECUTION_FAILED: 'CodeExecutionError', UNKNOWN_TOOL: 'UnknownToolError',
  INVALID_TOOL_INPUT: 'ToolInputError', TOOL_EXECUTION_FAILED: 'ToolExecutionError',
  RESERVED_IDENTIFIER: 'ReservedIdentifierError', INVALID_ASSIGNMENT: 'AssignmentError',
  INVALID_OBJECT_PROPERTY: 'ObjectPropertyError', UNKNOWN_EXIT: 'UnknownExitError',
  INVALID_EXIT_INPUT: 'ExitInputError', UNKNOWN_COMPONENT: 'UnknownComponentError',
  INVALID_COMPONENT_INPUT: 'ComponentInputError', INVALID_NATIVE_CALL: 'NativeProtocolError',
  HOST_OPERATION_FAILED: 'HostOperationError', DELIVERY_FAILED: 'DeliveryError', HOOK_FAILED: 'HookError',
  INVALID_MEMORY_VALUE: 'MemoryValueError', ITERATION_LIMIT: 'LoopExceededError',
  GENERATION_FAILED: 'CognitiveError', TOKEN_OVERFLOW: 'TokenOverflowError', COMPACTION_FAILED: 'CompactionError',
  MEMORY_CAPACITY: 'MemoryCapacityError', EXECUTION_ABORTED: 'ExecutionAbortedError', INVALID_TOOL: 'InvalidToolError',
  INVALID_OBJECT: 'InvalidObjectError', INVALID_EXIT: 'InvalidExitError', INVALID_COMPONENT: 'InvalidComponentError',
  INVALID_CONFIG: 'InvalidConfigurationError', INVALID_MESSAGE: 'InvalidMessageError', INVALID_EVENT: 'InvalidEventError',
  INVALID_SESSION: 'InvalidSessionError', SESSION_STATE: 'SessionStateError', CODE_FORMATTING_FAILED: 'CodeFormattingError',
  INTERNAL_ERROR: 'InternalError',
}

/** The fields of an `error` event: code, class, recoverable, message (+ phase/tokens/limit when known). */
export function errorFields(error) {
  // llmz 1.0.1 ends an iteration whose generated code hit a typed host failure (unknown exit, invalid tool
  // input, ...) with an EXECUTION_FAILED wrapper that keeps the typed failure as its `cause` (ERRORS.md:
  // "the original typed cause"); the record names the failure itself, as the reference does.
  if (isLLMzError(error) && error.code === 'EXECUTION_FAILED' && isLLMzError(error.cause)) error = error.cause
  const code = isLLMzError(error) ? error.code : 'INTERNAL_ERROR'
  const out = {
    code,
    class: CLASS_BY_CODE[code] ?? error?.name ?? 'Error',
    recoverable: isLLMzError(error) ? !error.critical : false,
    message: String(error?.message ?? error),
  }
  for (const key of ['phase', 'tokens', 'limit', 'identifier', 'kind', 'source']) {
    if (error?.[key] !== undefined && error?.[key] !== null) out[key] = error[key]
  }
  if (typeof error?.toolName === 'string') out.tool = error.toolName
  if (Array.isArray(error?.availableTools)) out.available = [...error.availableTools]
  if (Array.isArray(error?.unavailable)) out.unavailable = error.unavailable.map((entry) => entry?.name ?? entry)
  if (typeof error?.cause?.status === 'number') out.status = error.cause.status // a provider's HTTP status
  return out
}

/**
 * Watches one `execute` call: numbers its iterations from 1, records each iteration's end (its error,
 * status and exit) as llmz settles it, and each tool call as llmz traces it.
 */
export class ExecutionObserver {
  /** @param {() => import('llmz').Session} session the session being executed (for its last message) */
  constructor(recorder, execution, session, names = null, onInspect = undefined, deliveries = null) {
    this.recorder = recorder
    this.execution = execution
    this.session = session
    this.names = names
    this.onInspect = onInspect // the scenario's own onInspect hook, if any
    this.recordInspect = Boolean(onInspect?.record) // record each call llmz makes as a `hook` event
    this.inspector = onInspect ? createInspector(onInspect) : defaultInspector
    this.deliveries = deliveries // the DeliveryQueue of the scenario: sends still queued at the end were skipped
    this.index = 0
    this.signals = []
    this.#resetIteration()
  }

  #resetIteration() {
    this.result = null // the last value llmz previewed as an iteration result, with its options
    this.lastSignal = null
    this.errorLine = null // the guest line a program failed on, from llmz's trace
  }

  hooks() {
    return {
      onIterationStart: (iteration) => {
        this.index += 1
        this.#resetIteration()
        this.names?.name(iteration?.id)
      },
      onIterationEnd: (iteration) => this.#iterationEnded(iteration),
      onTrace: ({ trace }) => this.#traced(trace),
      onInspect: (event) => {
        if (event.purpose === 'result') this.result = { ...event }
        // `on_inspect.record`: each call llmz makes (not the bridge's own previews for `inspection` events)
        if (this.recordInspect) {
          this.recorder.emit('hook', {
            iteration: this.index, name: 'onInspect', purpose: event.purpose ?? null, identity: this.names.identity(event.identity),
          })
        }
        // Without a scenario hook, llmz's own formatter stays in charge of what the model sees.
        return this.onInspect ? this.onInspect(event) : undefined
      },
    }
  }

  /** A handler that will never settle: llmz will never trace it, so the host records it as pending. */
  pending(name, input) {
    this.recorder.emit('tool_call', { iteration: this.index, name, input, pending: true })
  }

  /** A handler is about to produce a ThinkSignal (`via` return or throw) with this reason and context. */
  signalling(name, spec) {
    this.signals.push({ name, reason: spec.reason, context: spec.context ?? null, via: spec.via ?? 'return' })
  }

  #traced(trace) {
    this.deliveries?.traced(trace)
    if (trace?.type === 'code_execution_exception' && Array.isArray(trace.position)) this.errorLine = trace.position[0]
    if (trace?.type !== 'tool_call') return
    const event = { iteration: this.index, name: trace.tool_name, input: trace.input ?? null }
    const index = this.signals.findIndex((signal) => signal.name === trace.tool_name)
    const signal = index >= 0 ? this.signals.splice(index, 1)[0] : null
    if (!trace.success) {
      const error = trace.error
      event.error = { code: isLLMzError(error) ? error.code : 'TOOL_EXECUTION_FAILED', message: String(error?.message ?? error) }
    } else if (ThinkSignal.is(trace.output)) {
      Object.assign(event, this.#signalOutcome(signal ?? { name: trace.tool_name, reason: trace.output.reason, context: trace.output.context ?? null, via: 'return' }))
    } else {
      event.output = trace.output === undefined ? null : trace.output // as onAfterTool left it
    }
    this.recorder.emit('tool_call', event)
  }

  /**
   * The record of a signalling call, in the reference's terms: llmz 1.0.1 honours only a thrown signal
   * (it pauses the program), which is recorded with the context as output and `signal: {reason}`; a
   * returned signal is just data to 1.0.1, recorded as the `{reason, context}` it carries.
   */
  #signalOutcome(signal) {
    if (signal.via === 'throw') {
      this.lastSignal = signal
      return { output: signal.context, signal: { reason: signal.reason } }
    }
    return { output: { reason: signal.reason, context: signal.context } }
  }

  /** `inspection` events for what the next request previews: a signal's context, or an inspect() value. */
  #inspections(status, iteration) {
    if (!this.result) return
    const preview = this.inspector(this.result.value, {
      purpose: 'result', maxTokens: this.result.maxTokens, preserve: this.result.preserve, compact: this.result.compact,
    })
    if (status === 'thinking_requested') {
      const reason = iteration.status.thinking_requested?.reason ?? this.lastSignal?.reason ?? null
      this.recorder.emit('inspection', {
        iteration: this.index, kind: 'forced', tool: this.lastSignal?.name ?? null, line: signalLine(this.session()), reason, preview,
      })
    } else if (status === 'continued' && /<result>\ninspect\(\) result\n/.test(lastContent(this.session()))) {
      this.recorder.emit('inspection', { iteration: this.index, kind: 'explicit', preview })
    }
  }

  #iteration(iteration) {
    const status = iteration.status?.type ?? iteration.status
    const exception = iteration.exception ?? null
    if (exception) return { status: isLLMzError(exception) && !exception.critical ? 'recoverable_error' : 'critical_error', exception }
    if (status === 'thinking_requested') {
      // A tool's ThinkSignal interrupts the program; a returned inspect() value merely continues the loop.
      return { status: iteration.status.thinking_requested?.interrupted ? 'thinking_requested' : 'continued', exception }
    }
    return { status, exception }
  }

  #iterationEnded(iteration) {
    this.deliveries?.skipRemaining(this.index)
    const { status, exception } = this.#iteration(iteration)
    this.#inspections(status, iteration)
    if (exception) {
      const fields = errorFields(exception)
      if (fields.code === 'EXECUTION_FAILED' && this.errorLine !== null) fields.line = this.errorLine
      this.recorder.emit('error', { iteration: this.index, ...fields })
    }
    const event = { execution: this.execution, index: this.index, status }
    if (exception) event.error_code = errorFields(exception).code
    // Every failure llmz observed in the iteration, caught ones included (ThinkSignals are not errors).
    const seen = (iteration.errors ?? []).filter((error) => !ThinkSignal.is(error)).map((error) => errorFields(error).code)
    if (seen.length) event.errors = seen
    this.recorder.emit('iteration', event)
    if (status === 'exit_success') {
      const exit = iteration.status.exit_success
      this.recorder.emit('exit', { name: exit.exit_name, payload: exit.return_value === undefined ? null : exit.return_value })
    }
  }

  /** The run's outcome, after its last iteration (a run-level failure such as ITERATION_LIMIT first). */
  finished(result) {
    const tokens = runTokens(result)
    if (result.status === 'success') {
      const name = result.toJSON?.().exit ?? null
      this.recorder.emit('result', { execution: this.execution, status: 'success', exit: name, ...tokens })
      return
    }
    const error = result.error
    const last = result.iterations?.at(-1)
    if (error && error !== last?.exception) {
      // A run-level failure llmz also files under the last iteration (ITERATION_LIMIT) is recorded there.
      const filed = (last?.errors ?? []).includes(error)
      this.recorder.emit('error', { ...(filed ? { iteration: this.index } : {}), ...errorFields(error) })
    }
    this.recorder.emit('result', { execution: this.execution, status: 'error', error_code: errorFields(error).code, ...tokens })
  }

  /** execute() itself threw (configuration failures before any iteration). */
  failed(error) {
    this.recorder.emit('error', errorFields(error))
    this.recorder.emit('result', { execution: this.execution, status: 'error', error_code: errorFields(error).code })
  }
}

/** `result.tokens` ({input, output, total}) as the record's `tokens` ({input_tokens, output_tokens}). */
function runTokens(result) {
  const tokens = result.tokens
  if (!tokens || typeof tokens.input !== 'number' || typeof tokens.output !== 'number') return {}
  return { tokens: { input_tokens: tokens.input, output_tokens: tokens.output } }
}

/**
 * The program line a thrown ThinkSignal interrupted. llmz 1.0.1 writes `line: 0` into its `think_signal`
 * trace whatever the line, but the paused report it gives the model marks the site in its source excerpt
 * (`> 004 | ...`); that mark is the line. Null when the report shows no site.
 */
function signalLine(session) {
  const trace = /<stack_trace>\n([\s\S]*?)<\/stack_trace>/.exec(lastContent(session))
  const site = trace && /^> (\d+) \|/m.exec(trace[1])
  return site ? Number(site[1]) : null
}

function lastContent(session) {
  const content = session?.messages?.at(-1)?.content
  return typeof content === 'string' ? content : ''
}

/**
 * Stable names for llmz's iteration ids (ULIDs): `iteration_1`, `iteration_2`, ... in the order the
 * scenario's iterations started, the way the reference numbers them for the whole session.
 */
export class IterationNames {
  constructor() {
    this.byId = new Map()
    this.discarded = new Set()
  }

  name(id) {
    if (id && !this.byId.has(id)) this.byId.set(id, `iteration_${this.byId.size + 1}`)
    return this.byId.get(id)
  }

  /**
   * An identity handed to onInspect, as the record carries it: llmz's generated ids (`id` or a key ending
   * in `Id`, random strings) become stable names (`iteration_1`, `session_1`, ...), wall-clock times
   * (`timestamp`) are left out; everything else as given.
   */
  identity(identity) {
    if (identity === undefined || identity === null) return null
    this.others ??= new Map()
    const out = {}
    for (const [key, value] of Object.entries(identity)) {
      if (value === undefined || key === 'timestamp') continue
      if (!((key === 'id' || key.endsWith('Id')) && typeof value === 'string')) {
        out[key] = value
      } else if (key === 'iterationId' || this.byId.has(value)) {
        out[key] = this.name(value)
      } else {
        const kind = key === 'id' ? 'id' : key.slice(0, -2)
        const seen = [...this.others.keys()].filter((known) => known.startsWith(`${kind}:`)).length
        if (!this.others.has(`${kind}:${value}`)) this.others.set(`${kind}:${value}`, `${kind}_${seen + 1}`)
        out[key] = this.others.get(`${kind}:${value}`)
      }
    }
    return JSON.parse(JSON.stringify(out))
  }
}

/**
 * Completes the `compaction` events a step produced with what the settled session shows: how many
 * earlier messages (before the turn that compacted) were kept after the summary, and which iterations
 * are gone. llmz reports neither, so they are read from `session.toJSON()` once the step is over; with
 * several compactions in one step only the last is completed.
 */
export function completeCompaction(events, session, names, { duringTurn }) {
  const compaction = events.filter((event) => event.type === 'compaction').at(-1)
  if (!compaction) return
  let state
  try {
    state = session.toJSON()
  } catch {
    return
  }
  const earlier = (group) => !group.id.startsWith('summary') && (!duringTurn && !state.activeTurn ? true : group.turn < state.turn)
  compaction.retained = state.groups.filter(earlier).reduce((sum, group) => sum + group.messages.length, 0)
  const present = new Set(state.groups.map((group) => group.iteration?.id ?? group.id))
  const gone = [...names.byId].filter(([id, name]) => !present.has(id) && !names.discarded.has(name)).map(([, name]) => name)
  gone.forEach((name) => names.discarded.add(name))
  compaction.discarded_iterations = gone
}

/** The session's end state, in the reference's field names. */
export function sessionState(session) {
  return {
    status: session.status,
    transcript: session.transcript.map(transcriptEntry),
    messages: session.messages.map(nativeMessage),
    pending: session.pendingMessages.length,
    variables: Object.keys(session.memory?.variables ?? {}).sort(),
  }
}

function transcriptEntry(message) {
  const out = { role: message.role }
  for (const key of ['content', 'name', 'payload']) if (message[key] !== undefined) out[key] = message[key]
  return out
}

/**
 * One native message as recorded: llmz's own fields (role, content, type, toolResultCallId), with each
 * tool call flattened to `{id, name, input}` as the reference stores them.
 */
export function nativeMessage(message) {
  const out = { role: message.role, content: message.content ?? null }
  if (message.type !== undefined) out.type = message.type
  if (Array.isArray(message.toolCalls)) {
    out.toolCalls = message.toolCalls.map((call) => ({
      id: call.id,
      name: call.function?.name ?? call.name,
      input: call.function?.arguments ?? call.input ?? {},
    }))
  }
  if (message.toolResultCallId !== undefined) out.toolResultCallId = message.toolResultCallId
  if (message.continuation !== undefined) out.continuation = message.continuation // signed output's metadata
  return out
}
