/**
 * One case: build the agent from `setup`, play `steps` as host calls over a virtual clock, and return
 * the record. A turn that throws (the script ran out, the provider failed) ends the case with an
 * `error` event naming the step; the remaining steps are not played.
 */
import { parseDuration } from '../runtime/index.mjs';
import { newSession } from '../runtime/session.mjs';
import { buildAgent } from './build-agent.mjs';
import { ScriptedProvider } from './scripted-provider.mjs';
import { finalSession, requestEvent, responseEvent, turnEvent } from './record.mjs';

const DEFAULT_CLOCK_START = 1767614400000;

/** @param {any} testCase @returns {Promise<{ events: any[], final: any }>} */
export async function playCase(testCase) {
  const setup = testCase.setup ?? {};
  const sessionId = setup.session_id ?? 's1';
  /** @type {any[]} */
  const events = [];
  let now = setup.clock_start_ms ?? DEFAULT_CLOCK_START;
  const provider = new ScriptedProvider(testCase.script ?? [], (request, entry, call) => {
    events.push(requestEvent(request, call));
    if (entry) events.push(responseEvent(entry, call));
  });
  const agent = buildAgent(setup, { provider, clock: () => now, observe: (event) => events.push(event) });
  let context = setup.context ?? {};
  /** @type {any[]} */
  let lastSchedule = [];
  let session = newSession(sessionId);

  for (const [index, step] of (testCase.steps ?? []).entries()) {
    if (step.op === 'advance') { now += parseDuration(step.by); continue; }
    if (step.op === 'context') { context = step.context; continue; }
    let wakeKey = null;
    try {
      wakeKey = step.op === 'wake' ? resolveWake(step, lastSchedule) : null;
      const result = await agent.turn({ sessionId, context, anchors: step.anchors ?? undefined, claims: step.claims ?? undefined, ...hostCall(step, wakeKey) });
      session = result.session;
      if (result.schedule.length) lastSchedule = result.schedule;
      events.push(turnEvent(index, step, wakeKey, result));
    } catch (error) {
      events.push({ type: 'error', step: index, message: error instanceof Error ? error.message : String(error) });
      break;
    }
  }
  return { events, final: { now, session: finalSession(session, (id) => agent.flow(id)) } };
}

/** @param {any} step @param {string | null} wakeKey */
function hostCall(step, wakeKey) {
  if (step.op === 'message') return { message: step.text, id: step.id };
  if (step.op === 'event') return { event: step.event, payload: step.payload ?? {}, key: step.key, direction: step.direction ?? null };
  if (step.op === 'start') return { start: { flow: step.flow, input: step.input ?? {}, key: step.key } };
  if (step.op === 'wake') return { wake: wakeKey };
  throw new Error(`unknown step op ${JSON.stringify(step.op)}`);
}

/** `key` literally, or entry `from_schedule` of the latest non-empty schedule (falai.md, "Time and ids"). */
function resolveWake(/** @type {any} */ step, /** @type {any[]} */ schedule) {
  if (step.key) return step.key;
  const entry = schedule[step.from_schedule ?? 0];
  if (!entry) throw new Error(`wake step: the latest schedule has no entry ${step.from_schedule}`);
  return entry.key;
}
