// The scripted model, seen by llmz as a `_CustomModelClient`.
//
// llmz 1.0.1 exports `_CustomModelClient` (undocumented) so a host can stand in for the model provider.
// Each `generateText` call records the request llmz built (`model_request`), answers with the scenario's
// next script entry for that call (an entry with a `purpose` answers only turn or only summary calls) in
// llmz's native response shape, and records that answer (`model_response`), so the
// wire traffic between llmz and its model is in the record exactly as with the Python reference.
//
// Tool-call ids must be unique across everything a session retains (llmz rejects a reused id with
// SESSION_STATE), so minted ids come from a counter owned by the client, which lives for the whole
// scenario and therefore survives a session's toJSON/fromJSON.
import { _CustomModelClient } from 'llmz'

import { FirstTokenLate, ProviderFailure, ScriptExhausted, StreamBroken } from './errors.mjs'
import { SCRIPTED_PROVIDER, llmzModelRef, scenarioModelId } from './models.mjs'
import { normalizeRequest } from './wire.mjs'

/** How llmz 1.0.1 labels a compaction summary in the native messages it sends. */
const SUMMARY_LABEL = 'Conversation summary:\n'

/**
 * Wait out a scripted first-chunk delay; with a time-to-first-token limit (milliseconds) the delay is
 * waited only up to the limit, and a delay beyond it ends in FirstTokenLate.
 */
async function firstChunkWait(delayMs, limitMs, signal) {
  if (!delayMs) return
  const late = typeof limitMs === 'number' && delayMs > limitMs
  await new Promise((resolve, reject) => {
    const timer = setTimeout(resolve, late ? limitMs : delayMs)
    signal?.addEventListener('abort', () => { clearTimeout(timer); reject(signal.reason ?? new Error('generation aborted')) }, { once: true })
  })
  if (late) throw new FirstTokenLate(limitMs)
}

/** Model limits used when a scenario does not configure them (a large context, a generous output). */
export const DEFAULT_MODEL = { id: 'scripted', inputTokens: 128000, outputTokens: 16384 }

/** The answer allowance the stand-in gives a transcription call (the reference's TRANSCRIPT_MAX_TOKENS). */
const TRANSCRIPT_MAX_TOKENS = 4096

/** What a transcription call is recorded as asking when llmz's request names no transcription model. */
const UNNAMED_TRANSCRIBER = 'client-default'

/** How long a stream waits for a program started from it that does not end (a hanging tool). */
const PROGRAM_WAIT_MS = 1000

export class ScriptedModelClient extends _CustomModelClient {
  /**
   * @param {object} options
   * @param {Array<object>} options.script the scenario's script entries, in call order
   * @param {import('./recorder.mjs').Recorder} options.recorder where requests and responses are recorded
   * @param {Record<string, {inputTokens: number, outputTokens: number}>} [options.models] limits by model id
   */
  constructor({ script, recorder, models = {} }) {
    super()
    this.script = script
    this.recorder = recorder
    this.models = models
    this.calls = 0
    this.used = new Set() // indexes of the script entries already played
    this.minted = 0
    /** Set when llmz asked for more calls than the script holds; the case then fails naming the call. */
    this.exhausted = null
    /** Called with each answered script entry (the player uses it for text no handler will receive). */
    this.onResponse = null
    this.lastSummary = null
    /** Resolves the wait of a stream whose early-started program has ended (see #programTime). */
    this.programEnded = null
  }

  async getModelDetails(model) {
    const limits = this.models[model] ?? this.models['*'] ?? DEFAULT_MODEL
    return {
      id: model,
      name: scenarioModelId(model),
      description: 'scripted model played by the conformance suite',
      tags: [],
      input: { maxTokens: limits.inputTokens, costPer1MTokens: 0 },
      output: { maxTokens: limits.outputTokens, costPer1MTokens: 0 },
      lifecycle: 'production',
    }
  }

  /**
   * One request from llmz. With a fallback list, llmz 1.0.1 hands the whole list to its model client and
   * leaves the fallback to it (Cognitive's job); this client plays the documented behaviour the real one
   * gives: the candidates are tried in list order, each attempt is one scripted call, recorded as the same
   * request naming the candidates still to try, and a provider failure moves on to the next candidate.
   * Only when the last candidate fails does llmz see the failure.
   */
  async generateText(input, options = {}) {
    const candidates = Array.isArray(input.model) && input.model.length > 1 ? [...input.model] : [input.model]
    const purpose = purposeOf(input)
    if (purpose === 'turn') this.#noteCompaction(input)
    if (purpose === 'turn') await this.#transcribeAudio(input, candidates, options)
    for (let start = 0; ; start += 1) {
      const remaining = candidates.slice(start)
      const attempt = remaining.length > 1 ? { ...input, model: remaining } : { ...input, model: remaining[0] }
      try {
        return await this.#answer(attempt, purpose, options)
      } catch (error) {
        if (!(error instanceof ProviderFailure) || remaining.length === 1) throw error
      }
    }
  }

  /**
   * llmz streams a turn when its client has `generateTextStream` (it looks before every turn call). The
   * property is there only while the next turn entry of the script has `chunks`, so exactly the entries the
   * scenario streams arrive as a stream (as with the reference, whose previews are those chunks) and every
   * other call keeps the `generateText` path the rest of the suite was judged on.
   */
  get generateTextStream() {
    const entry = this.#peekEntry('turn')
    return entry?.chunks ? this.#stream : undefined
  }

  /**
   * One streamed turn: each chunk is one `output` piece (llmz turns them into `onDelta` previews), then the
   * tool calls and metadata with `finished`. Failures before the first chunk fall back over the candidates
   * exactly as in `generateText`. A `stream_break` ends the stream after `after` chunks: the tool calls are
   * sent once `calls_after` chunks have arrived (llmz may start the program then), and the transport then
   * fails. Like Cognitive, the client restarts on the next candidate only when the request asks for
   * `midStreamFallback`, announcing it with a restart chunk; otherwise the failure reaches llmz.
   *
   * A `first_chunk_delay_ms` holds the first chunk back for real. llmz 1.0.1 does not time the first
   * token itself: it hands `options.maxTimeToFirstToken` to its client in every streamed request (and
   * only widens its own idle timeout to it). So, as Cognitive's contract in llmz's typings says, this
   * client reads the request's value in milliseconds: a first chunk later than that is given up after
   * that long and the next candidate is asked; with none left the failure reaches llmz. The value is read
   * from the request llmz built, never from the scenario, so llmz dropping the option shows.
   */
  #stream = async function* stream(input, options = {}) {
    const candidates = Array.isArray(input.model) && input.model.length > 1 ? [...input.model] : [input.model]
    const restarts = Boolean(input.options?.midStreamFallback)
    const firstTokenMs = input.options?.maxTimeToFirstToken
    this.#noteCompaction(input)
    await this.#transcribeAudio(input, candidates, options)
    let attempt = 1
    for (let start = 0; ; start += 1) {
      const remaining = candidates.slice(start)
      const asked = remaining.length > 1 ? { ...input, model: remaining } : { ...input, model: remaining[0] }
      let answer
      try {
        answer = await this.#answer(asked, 'turn', options, true)
        await firstChunkWait(answer.entry.first_chunk_delay_ms, firstTokenMs, options.signal)
      } catch (error) {
        const fallsBack = error instanceof ProviderFailure || error instanceof FirstTokenLate
        if (!fallsBack || remaining.length === 1) throw error
        continue
      }
      const { entry, response } = answer
      const broken = entry.stream_break ?? null
      const arrived = broken ? broken.after : entry.chunks.length
      const callsAt = broken?.calls_after ?? null
      for (let index = 0; index <= arrived; index += 1) {
        if (index === callsAt && response.toolCalls.length) {
          yield { toolCalls: response.toolCalls }
          await this.#programTime()
        }
        if (index < arrived && entry.chunks[index]) yield { output: entry.chunks[index] }
      }
      if (!broken) {
        yield { toolCalls: response.toolCalls, metadata: response.metadata, finished: true }
        return
      }
      if (!restarts || remaining.length === 1) throw new StreamBroken(broken.message ?? 'the stream broke')
      attempt += 1
      yield { restart: { attempt, fromModel: remaining[0], toModel: remaining[1], reason: broken.message ?? 'the stream broke' } }
    }
  }

  /**
   * The gap after a stream's tool calls arrived: the rest of the stream comes once the program llmz started
   * early has ended (its `code_execution` trace, passed on through `traced`), as from a provider whose tail
   * is slow; a program that never ends gets PROGRAM_WAIT_MS. Deterministic, unlike a fixed number of ticks:
   * the first program of a process waits for QuickJS to load.
   */
  async #programTime() {
    let timer
    await Promise.race([
      new Promise((resolve) => { this.programEnded = resolve }),
      new Promise((resolve) => { timer = setTimeout(resolve, PROGRAM_WAIT_MS) }),
    ])
    clearTimeout(timer)
    this.programEnded = null
  }

  /** Every trace llmz records in a turn (the player forwards them): a program's end releases the stream. */
  traced(trace) {
    if (trace?.type === 'code_execution') this.programEnded?.()
  }

  /**
   * Audio for a model that cannot take it natively. llmz 1.0.1 does not decide this itself: whenever its
   * request holds an audio part it hands its client `options.transcriptionModel` (its own default when
   * the host gave none) and leaves the transcription to Cognitive. Standing in for Cognitive, this client
   * asks the model the request names (never the scenario's option, so llmz dropping it shows) to
   * transcribe each audio part, once per request, when a candidate model is marked `audio: false`; the
   * call is recorded as a model_request of purpose `transcription`. llmz's turn request is recorded as
   * llmz built it.
   */
  async #transcribeAudio(input, candidates, options) {
    const parts = (input.messages ?? []).flatMap((message) =>
      Array.isArray(message.content) ? message.content.filter((part) => part?.type === 'audio') : [])
    if (!parts.length || candidates.every((ref) => (this.models[ref] ?? this.models['*'])?.audio !== false)) return
    const named = input.options?.transcriptionModel
    for (const part of parts) {
      const asked = {
        model: named ?? UNNAMED_TRANSCRIBER,
        messages: [{ role: 'user', content: [structuredClone(part)] }],
        tools: [],
        maxTokens: TRANSCRIPT_MAX_TOKENS,
      }
      await this.#answer(asked, 'transcription', options)
    }
  }

  async #answer(input, purpose, options, streamed = false) {
    this.calls += 1
    const call = this.calls
    this.recorder.emit('model_request', { call, purpose, ...normalizeRequest(input) })
    if (options.signal?.aborted) throw options.signal.reason ?? new Error('generation aborted')
    const entry = this.#nextEntry(purpose)
    if (entry === undefined) {
      this.exhausted ??= new ScriptExhausted(call)
      throw this.exhausted
    }
    if (entry.failure) {
      this.recorder.emit('model_response', { call, failure: entry.failure })
      throw new ProviderFailure(entry.failure.status, entry.failure.message ?? 'scripted provider failure', entry.failure.retry_after)
    }
    const response = this.#respond(call, entry, purpose, input)
    return streamed ? { entry, response } : response
  }

  #respond(call, entry, purpose, input) {
    const toolCalls = (entry.tool_calls ?? []).map((scripted) => this.#nativeCall(scripted))
    const stopReason = entry.stop_reason ?? (toolCalls.length ? 'tool_calls' : 'stop')
    const usage = { input_tokens: entry.usage?.input_tokens ?? 0, output_tokens: entry.usage?.output_tokens ?? 0 }
    this.recorder.emit('model_response', {
      call,
      text: entry.text ?? '',
      // The scripted calls as the scenario wrote them (as the reference records them): minted ids are
      // llmz-side bookkeeping, visible in the next request's messages.
      tool_calls: (entry.tool_calls ?? []).map(scriptedCall),
      ...(entry.json !== undefined && entry.json !== null ? { json: entry.json } : {}),
      stop_reason: stopReason,
      usage,
      ...(entry.continuation != null ? { continuation: entry.continuation } : {}),
    })
    if (purpose === 'summary') this.lastSummary = entry.text ?? ''
    this.onResponse?.(entry)
    const answered = Array.isArray(input.model) ? input.model[0] : input.model
    return {
      output: entry.json !== undefined && entry.json !== null ? JSON.stringify(entry.json) : (entry.text ?? ''),
      toolCalls,
      // Signed output: provider continuation metadata llmz keeps with the assistant message.
      ...(entry.continuation != null ? { continuation: structuredClone(entry.continuation) } : {}),
      metadata: {
        provider: SCRIPTED_PROVIDER,
        model: answered ?? llmzModelRef(DEFAULT_MODEL.id),
        stopReason,
        usage: { inputTokens: usage.input_tokens, outputTokens: usage.output_tokens, inputCost: 0, outputCost: 0 },
        cost: 0,
        cached: false,
      },
    }
  }

  /** The first unused script entry for a call of this purpose (an entry without `purpose` answers any). */
  #nextEntry(purpose) {
    const index = this.#nextIndex(purpose)
    if (index < 0) return undefined
    this.used.add(index)
    return this.script[index]
  }

  /** The entry the next call of this purpose would take, without taking it. */
  #peekEntry(purpose) {
    const index = this.#nextIndex(purpose)
    return index < 0 ? undefined : this.script[index]
  }

  #nextIndex(purpose) {
    return this.script.findIndex((entry, i) => !this.used.has(i) && (entry.purpose == null || entry.purpose === purpose))
  }

  /**
   * llmz compacts inside execute() without telling the host; what the host sees is a summary call followed
   * by a turn request that opens with that summary. When it does, a `compaction` event is recorded (before
   * the request, as the reference records it). Only the summary is known: llmz does not say which earlier
   * messages it kept.
   */
  #noteCompaction(input) {
    const summary = this.lastSummary
    this.lastSummary = null
    if (summary === null || summary === undefined) return
    const label = `${SUMMARY_LABEL}${summary}`
    if ((input.messages ?? []).some((message) => message.content === label)) {
      this.recorder.emit('compaction', { summary })
    }
  }

  /** A script tool call in llmz's native shape; `input` holds only `code` for run_javascript. */
  #nativeCall(scripted) {
    const name = scripted.name ?? 'run_javascript'
    const input = scripted.code !== undefined && scripted.code !== null ? { code: scripted.code } : { ...(scripted.arguments ?? {}) }
    const id = scripted.id ?? `call_${++this.minted}`
    return { id, type: 'function', name, input }
  }
}

function scriptedCall(call) {
  const out = { name: call.name ?? 'run_javascript' }
  for (const key of ['code', 'arguments', 'id']) if (call[key] !== undefined && call[key] !== null) out[key] = call[key]
  return out
}

/** Summary requests carry no tools (the summarizer cannot call any); every other call is a turn. */
function purposeOf(input) {
  return Array.isArray(input.tools) && input.tools.length ? 'turn' : 'summary'
}

