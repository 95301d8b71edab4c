// Typed failures of the bridge itself (not of llmz).

/** A scenario feature the bridge cannot map onto llmz 1.0.1: the case is answered as a skip, naming it. */
export class CannotExpress extends Error {
  constructor(what) {
    super(`the llmz-node bridge cannot express ${what}`)
    this.name = 'CannotExpress'
  }
}

/** A step the scenario asks for cannot be taken on this run (a tamper with nothing to break): the case
 * errors with this message instead of the failure being recorded as llmz's. */
export class StepImpossible extends Error {
  constructor(message) {
    super(message)
    this.name = 'StepImpossible'
  }
}

/** The scripted model ran out of entries: the runtime made more calls than the scenario scripted. */
export class ScriptExhausted extends Error {
  constructor(call) {
    super(`the script has no response for call ${call}`)
    this.name = 'ScriptExhausted'
    this.call = call
  }
}

/** A scripted provider failure (HTTP status, optional retry-after seconds). */
export class ProviderFailure extends Error {
  constructor(status, message, retryAfter) {
    super(`provider failed with HTTP ${status}: ${message}`)
    this.name = 'ProviderFailure'
    this.status = status
    if (retryAfter !== undefined && retryAfter !== null) this.retryAfter = retryAfter
  }
}

/** An execute that neither completed nor failed within its bound (give_up_after, or its timeout plus grace). */
export class NotSettled extends Error {
  constructor(boundMs) {
    super(`llmz's execute() did not settle within ${boundMs} ms (the step's give_up_after, else options.timeout plus grace): the run hangs`)
    this.name = 'NotSettled'
  }
}

/** A scripted stream whose transport failed partway (`stream_break`). */
export class StreamBroken extends Error {
  constructor(message) {
    super(message)
    this.name = 'StreamBroken'
  }
}

/** A scripted stream whose first chunk did not come within the request's `maxTimeToFirstToken`. */
export class FirstTokenLate extends Error {
  constructor(limitMs) {
    super(`no first token within maxTimeToFirstToken (${limitMs} ms)`)
    this.name = 'FirstTokenLate'
  }
}
