/**
 * Turns the host starts without a customer message: `event`, `start` and `wake` (guide, "Event",
 * "Start", "Silence").
 */
import { parseDuration } from './duration.mjs';
import { DEFAULT_REPEAT } from './claims.mjs';
import { advance, endRun, stampAssistant, startRun, takeFloor } from './runs.mjs';
import { parseSilenceKey, silenceStillHolds } from './silence.mjs';

/**
 * `turn({ event, payload, key })`: every flow listening for the event may start a run keyed by `key`;
 * with `after`, the run parks until its start wake.
 * @param {import('./scope.mjs').TurnScope} scope
 * @param {{ event: string, payload?: Record<string, unknown>, key: string, direction?: 'customer' | 'assistant' | null }} ev
 */
export async function eventTurn(scope, ev) {
  stampDirection(scope, ev.direction);
  const input = ev.payload ?? {};
  for (const flow of scope.agent.flows) {
    const index = (flow.on ?? []).findIndex((/** @type {any} */ t) => t.event === ev.event);
    if (index < 0) continue;
    const trigger = flow.on[index];
    if (trigger.if && !trigger.if(scope.conditionScope(input))) continue;
    const run = startRun(scope, flow, { kind: 'event', triggerIndex: index, repeat: trigger.repeat ?? DEFAULT_REPEAT.event, triggerKey: ev.key, input });
    if (!run) continue;
    if (trigger.after) {
      const at = scope.agent.workingTime(scope.now + parseDuration(trigger.after), trigger.businessHours, scope.context);
      run.status = 'parked';
      run.wakeKey = `${run.id}:start:${at}`;
      scope.result.schedule.push({ key: run.wakeKey, at });
      scope.result.outcomes.push({ code: 'awaiting-trigger', runId: run.id });
      continue;
    }
    await advance(scope, run, { newMessage: false });
  }
}

/** An event's `direction` stamps the session as if that side had just spoken (guide, "Event"). */
function stampDirection(/** @type {import('./scope.mjs').TurnScope} */ scope, /** @type {string | null | undefined} */ direction) {
  if (direction === 'assistant') stampAssistant(scope);
  if (direction === 'customer') {
    scope.session.lastSpeaker = 'customer';
    scope.session.customerSeq += 1;
  }
}

/**
 * `turn({ start: { flow, input, key } })`.
 * @param {import('./scope.mjs').TurnScope} scope @param {{ flow: string, input?: Record<string, unknown>, key: string }} start
 */
export async function startTurn(scope, start) {
  const flow = scope.agent.flow(start.flow);
  if (!flow) {
    scope.result.skipped.push({ flowId: start.flow, code: 'flow-gone' });
    return;
  }
  const run = startRun(scope, flow, { kind: 'start', triggerIndex: null, repeat: 'always', triggerKey: start.key, input: start.input ?? {} });
  if (run) await advance(scope, run, { newMessage: false });
}

/**
 * `turn({ wake: key })`: a silence wake, a parked run's start, or a `wait` step's timer. A wake that no
 * longer matches anything is stale and changes nothing (guide, "Silence", step 2: harmless).
 * @param {import('./scope.mjs').TurnScope} scope @param {string} key
 */
export async function wakeTurn(scope, key) {
  const silence = parseSilenceKey(key);
  if (silence) return silenceWake(scope, key, silence);
  const run = scope.session.runs.find((r) => r.wakeKey === key && (r.status === 'parked' || r.status === 'waiting'));
  if (!run) return;
  run.wakeKey = null;
  if (run.status === 'waiting') {
    if (run.kind === 'silence' && scope.session.customerSeq > run.customerSeqAtStart) {
      return endRun(scope, run, 'customer-replied');
    }
    run.stepIndex += 1;
  }
  run.status = 'active';
  await advance(scope, run, { newMessage: false });
}

/** @param {import('./scope.mjs').TurnScope} scope @param {string} key @param {{ flowId: string, spokeAt: number }} silence */
async function silenceWake(scope, key, silence) {
  if (!silenceStillHolds(scope.session, silence.spokeAt)) {
    scope.result.outcomes.push({ code: 'silence-broken' });
    return;
  }
  const flow = scope.agent.flow(silence.flowId);
  const index = (flow?.on ?? []).findIndex((/** @type {any} */ t) => t.silence !== undefined && t.silence !== null);
  if (!flow || index < 0) {
    scope.result.skipped.push({ flowId: silence.flowId, code: 'flow-gone' });
    return;
  }
  const trigger = flow.on[index];
  if (trigger.if && !trigger.if(scope.conditionScope({}))) return;
  const run = startRun(scope, flow, { kind: 'silence', triggerIndex: index, repeat: trigger.repeat ?? DEFAULT_REPEAT.silence, triggerKey: key });
  if (!run) return;
  takeFloor(scope, run);
  await advance(scope, run, { newMessage: false });
}

