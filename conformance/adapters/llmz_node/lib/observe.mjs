// Turning what llmz exposes after a step (ExecutionResult, iterations, Session) into record fields.
//
// Only observable, stable facts go in: status words, exit names and outputs, error codes and criticality,
// transcript contents. Generated ids (session_…, iteration_…) and wall-clock timestamps stay out, so two
// runs of one scenario give identical records.
import { isLLMzError } from 'llmz'

/** An error as recorded: its llmz code (when it has one), criticality, and readable message. */
export function describeError(error) {
  if (error === null || error === undefined) return null
  const out = { code: isLLMzError(error) ? error.code : null, critical: Boolean(error.critical) }
  if (!out.code) out.name = error.name ?? 'Error'
  out.message = String(error.message ?? error)
  if (error.phase !== undefined) out.phase = error.phase
  if (error.cause && isLLMzError(error.cause)) out.cause = describeError(error.cause)
  return out
}

export function recordExecution(recorder, result, { step, mode }) {
  for (const iteration of result.iterations ?? []) {
    recorder.emit('iteration', {
      step,
      status: iterationStatus(iteration),
      exception: describeError(iteration.exception ?? null),
      errors: (iteration.errors ?? []).map((error) => (isLLMzError(error) ? error.code : (error?.name ?? 'Error'))),
    })
  }
  const outcome = { step, mode, status: result.status }
  if (result.status === 'success') {
    outcome.exit = result.result?.exit?.name ?? exitName(result)
    outcome.output = result.output
  } else if (result.error !== undefined) {
    outcome.error = describeError(result.error)
  }
  recorder.emit('execute', outcome)
}

function exitName(result) {
  return result.toJSON?.().exit ?? null
}

function iterationStatus(iteration) {
  const status = iteration.status
  return typeof status === 'string' ? status : (status?.type ?? null)
}

/** The session's end state: lifecycle status and the retained conversation (transcript view). */
export function sessionState(session) {
  return {
    session_status: session.status,
    transcript: session.transcript.map(transcriptEntry),
    pending: session.pendingMessages.length,
    variables: safeVariables(session),
  }
}

function transcriptEntry(message) {
  const out = { role: message.role }
  for (const key of ['content', 'name', 'payload', 'type']) if (message[key] !== undefined) out[key] = message[key]
  return out
}

function safeVariables(session) {
  try {
    return JSON.parse(JSON.stringify(session.memory.variables ?? {}))
  } catch {
    return null
  }
}
