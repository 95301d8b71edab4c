/**
 * The runtime's own shapes mapped onto the documented record (spec/protocol/records/falai.md). This is
 * the only file that knows the record's layout; the runtime never sees it.
 */

/** A provider request, in the record's neutral vocabulary per purpose. @param {any} request @param {number} call */
export function requestEvent(request, call) {
  const head = { type: 'model_request', call, purpose: request.purpose };
  if (request.purpose === 'understand') {
    return {
      ...head, message: request.message,
      candidates: request.flows.map((/** @type {any} */ f) => ({ flowId: f.id, name: f.name, description: f.description, phrases: f.phrases })),
      mentions: request.mentions.map((/** @type {any} */ m) => ({ flowId: m.id, name: m.name, phrases: m.phrases, extract: Object.keys(m.extract) })),
      fields: request.fields.map((/** @type {any} */ f) => f.name),
      // Friction: the record asks for `instructions` (text or null); this runtime's understand call
      // carries no separate instruction text, so there is nothing to report.
      instructions: null,
    };
  }
  if (request.purpose === 'talk') {
    return {
      ...head, persona: request.persona, runId: request.runId, flowId: request.flowId, stepId: request.stepId,
      prompt: request.prompt, collect: request.fields.map((/** @type {any} */ f) => f.name),
      asks: request.fields.filter((/** @type {any} */ f) => typeof f.ask === 'string').map((/** @type {any} */ f) => f.ask),
      newMessage: request.newMessage,
    };
  }
  return { ...head, persona: request.persona, message: request.message, prompt: request.prompt, tools: request.tools, instructions: request.instructions };
}

/** The scripted answer, as the script entry gives it. @param {any} entry @param {number} call */
export function responseEvent(entry, call) {
  if (entry.failure) {
    const f = entry.failure;
    return { type: 'model_response', call, failure: { status: f.status, message: f.message ?? 'scripted provider failure', retry_after: f.retry_after ?? null } };
  }
  const toolCalls = (entry.tool_calls ?? []).map((/** @type {any} */ c) => dropEmpty({ name: c.name ?? 'run_javascript', arguments: c.arguments, id: c.id, code: c.code }));
  const usage = { input_tokens: entry.usage?.input_tokens ?? 0, output_tokens: entry.usage?.output_tokens ?? 0 };
  return dropEmpty({
    type: 'model_response', call, text: entry.text ?? '', tool_calls: toolCalls, json: entry.json,
    stop_reason: entry.stop_reason ?? (toolCalls.length ? 'tool_calls' : 'stop'), usage, continuation: entry.continuation,
  });
}

/** @param {Record<string, any>} object */
const dropEmpty = (object) => Object.fromEntries(Object.entries(object).filter(([, v]) => v !== null && v !== undefined));

/** What the host passed, by kind. @param {any} step @param {string | null} wakeKey */
export function turnInput(step, wakeKey) {
  if (step.op === 'message') return { kind: 'message', id: step.id };
  if (step.op === 'event') return { kind: 'event', event: step.event, key: step.key };
  if (step.op === 'start') return { kind: 'start', flow: step.flow, key: step.key };
  return { kind: 'wake', key: wakeKey ?? '' };
}

/** @param {number} index @param {any} step @param {string | null} wakeKey @param {any} result */
export function turnEvent(index, step, wakeKey, result) {
  return {
    type: 'turn', step: index, input: turnInput(step, wakeKey),
    started: result.started, ended: result.ended, messages: result.messages, outcomes: result.outcomes,
    skipped: result.skipped, schedule: result.schedule, llmCalls: result.llmCalls, changed: result.changed,
  };
}

/** The session after the last step. @param {any} session @param {(flowId: string) => any} flowOf */
export function finalSession(session, flowOf) {
  return {
    floor: session.floor,
    runs: session.runs.map((/** @type {any} */ run) => ({
      runId: run.id, flowId: run.flowId, status: run.status,
      step: run.status === 'ended' ? null : flowOf(run.flowId)?.steps[run.stepIndex]?.id ?? null,
    })),
    claims: Object.keys(session.claims).sort(),
    data: session.data,
    history: session.history,
    lastAssistantAt: session.lastAssistantAt,
  };
}
