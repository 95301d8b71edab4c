/**
 * A message turn (guide, "How a message picks its flow", "Message", "Mention", "The idle speaker").
 *
 * Order: drop a replay; record the message; let a run waiting with `else` take it (ingest); re-check the
 * asking run's premise; gather candidates, model-judged mentions and pending fields; make at most one
 * understand call; start the mention runs (their `say` answers first); then the floor: the winner starts
 * or resumes, or the asking run carries on; last, the idle speaker if nobody holds the floor and nobody
 * answered.
 */
import { DEFAULT_REPEAT, repeatRefusal } from './claims.mjs';
import { pickFloor, validScores } from './routing.mjs';
import { advance, endRun, pendingFields, premiseHolds, startRun, stepKind, takeFloor } from './runs.mjs';
import { liveRunOf } from './session.mjs';

/** @param {import('./scope.mjs').TurnScope} scope @param {{ id: string, text: string }} message */
export async function messageTurn(scope, message) {
  const { session } = scope;
  if (session.seenMessageIds.includes(message.id)) {
    scope.result.outcomes.push({ code: 'duplicate-input' });
    return;
  }
  session.seenMessageIds.push(message.id);
  session.history.push({ role: 'customer', text: message.text, id: message.id });
  session.lastSpeaker = 'customer';
  session.customerSeq += 1;

  const ingested = await ingest(scope);
  let asking = askingRun(scope);
  if (asking && !premiseHolds(scope, asking)) {
    await endRun(scope, asking, 'premise-changed');
    asking = askingRun(scope);
  }
  const plan = ingested ? emptyPlan() : planRouting(scope, asking);
  const mentionFlows = modelMentions(scope);
  const fields = asking && !ingested ? pendingFields(scope, currentStep(scope, asking)) : [];
  const answer = await understand(scope, message.text, plan.scored, mentionFlows, fields);

  for (const name of fields) if (answer.fields[name] !== undefined) session.data[name] = answer.fields[name];
  await startMentions(scope, message, mentionFlows, answer.mentions);

  const decision = pickFloor({ scored: plan.scored.map((f) => f.id), scores: answer.scores, askingFlowId: asking?.flowId ?? null,
    catchAll: plan.catchAll?.id ?? null, lone: plan.lone?.id ?? null });
  if (decision.winner) await giveFloorTo(scope, scope.agent.flow(decision.winner), message);
  else if (ingested && ingested.status === 'active') await advance(scope, ingested, { newMessage: true });
  else if (asking && asking.status === 'active' && session.floor === asking.id) await advance(scope, asking, { newMessage: true });

  if (session.floor === null && scope.replier === null) await idleSpeaker(scope, message);
}

/** Step 1: a message ends every `wait` that has `else`; one that goes on to a step takes the floor. */
async function ingest(/** @type {import('./scope.mjs').TurnScope} */ scope) {
  let taker = null;
  for (const run of scope.session.runs.filter((r) => r.status === 'waiting')) {
    const flow = scope.agent.flow(run.flowId);
    const step = flow.steps[run.stepIndex];
    if (!step?.else) continue;
    if (step.else === 'end') { await endRun(scope, run, 'completed'); continue; }
    const target = flow.steps.findIndex((/** @type {any} */ s) => s.id === step.else);
    if (target < 0) { await endRun(scope, run, 'completed'); continue; }
    run.stepIndex = target;
    run.wakeKey = null;
    takeFloor(scope, run);
    taker = run;
  }
  return taker;
}

function askingRun(/** @type {import('./scope.mjs').TurnScope} */ scope) {
  const run = scope.floorRun();
  return run && run.status === 'active' ? run : null;
}

function currentStep(/** @type {import('./scope.mjs').TurnScope} */ scope, /** @type {import('./session.mjs').Run} */ run) {
  const step = scope.agent.flow(run.flowId).steps[run.stepIndex];
  return step && stepKind(step) === 'talk' ? step : {};
}

const emptyPlan = () => ({ scored: [], catchAll: null, lone: null });

/**
 * Steps 2 to 5: who is scored, the first catch-all, and the lone unscored candidate. The asking run's
 * flow is scored too (step 3), even when an event, a start or a silence began that run. A catch-all
 * needs the floor free (guide, "Message"): a run waiting on a `wait` step still holds it.
 */
function planRouting(/** @type {import('./scope.mjs').TurnScope} */ scope, /** @type {any} */ asking) {
  const eligible = [];
  let catchAll = null;
  for (const flow of scope.agent.flows) {
    const found = messageTrigger(flow);
    if (asking?.flowId === flow.id) {
      // The asking run's flow is scored whatever started it, except a catch-all, which is never scored.
      if (found?.trigger.message.length !== 0) eligible.push(flow);
      continue;
    }
    if (!found || !mayStart(scope, flow, found, 'message')) continue;
    if (found.trigger.message.length === 0) { if (scope.session.floor === null) catchAll ??= flow; continue; }
    eligible.push(flow);
  }
  const rivals = eligible.filter((f) => f.id !== asking?.flowId);
  if (!asking && !catchAll && rivals.length === 1 && scope.agent.idle === 'silent') {
    return { scored: [], catchAll: null, lone: rivals[0] };
  }
  return { scored: eligible, catchAll, lone: null };
}

/** @param {any} flow */
function messageTrigger(flow) {
  const index = (flow.on ?? []).findIndex((/** @type {any} */ t) => Array.isArray(t.message));
  return index < 0 ? null : { trigger: flow.on[index], index };
}

/** `if` holds and `repeat` allows; a flow with a suspended run may always come back to it. */
function mayStart(/** @type {import('./scope.mjs').TurnScope} */ scope, /** @type {any} */ flow, /** @type {{ trigger: any }} */ found, /** @type {'message' | 'mention'} */ kind) {
  const anchor = scope.anchorOf(flow);
  const live = liveRunOf(scope.session, flow.id, anchor);
  if (live?.status === 'suspended' && kind === 'message') return true;
  if (found.trigger.if && !found.trigger.if(scope.conditionScope({}))) return false;
  const repeat = found.trigger.repeat ?? DEFAULT_REPEAT[kind];
  return !repeatRefusal(scope.session, scope.lent, { flowId: flow.id, anchor, repeat, triggerKey: '', now: scope.now });
}

/**
 * Mentions the model judges: a non-empty list whose `repeat` allows (claimed ones are left out). Their
 * `if` is judged once the model has answered, with the extracted values as `input` (guide, "`if` on a
 * trigger": `input` is the mention's extract).
 */
function modelMentions(/** @type {import('./scope.mjs').TurnScope} */ scope) {
  const out = [];
  for (const flow of scope.agent.flows) {
    const index = (flow.on ?? []).findIndex((/** @type {any} */ t) => Array.isArray(t.mention) && t.mention.length > 0);
    if (index < 0) continue;
    // The `if` waits for the model's answer: it may read the mention's extract as `input`.
    if (mayStart(scope, flow, { trigger: { ...flow.on[index], if: undefined } }, 'mention')) out.push({ flow, index, trigger: flow.on[index] });
  }
  return out;
}

/**
 * The one understand call, when anything needs it. @returns {Promise<{ scores: Record<string, number>,
 * mentions: Record<string, unknown>, fields: Record<string, unknown> }>}
 */
async function understand(/** @type {import('./scope.mjs').TurnScope} */ scope, /** @type {string} */ text, /** @type {any[]} */ scored, /** @type {any[]} */ mentions, /** @type {string[]} */ fields) {
  if (!scored.length && !mentions.length && !fields.length) return { scores: {}, mentions: {}, fields: {} };
  const answer = await scope.ask({
    purpose: 'understand', persona: scope.agent.name, message: text,
    flows: scored.map((f) => ({ id: f.id, name: f.name, description: f.description ?? null, phrases: messageTrigger(f)?.trigger.message ?? [] })),
    mentions: mentions.map(({ flow, trigger }) => ({ id: flow.id, name: flow.name, phrases: trigger.mention, extract: trigger.extract ?? {} })),
    fields: fields.map((name) => ({ name, ...scope.agent.fields[name] })),
  });
  const json = answer.json && typeof answer.json === 'object' ? answer.json : {};
  return {
    scores: validScores(json.scores, scored.map((f) => f.id)),
    mentions: json.mentions && typeof json.mentions === 'object' ? json.mentions : {},
    fields: json.fields && typeof json.fields === 'object' ? json.fields : {},
  };
}

/** Mentions the model found, and code-only detectors (`mention: []`), in agent order. */
async function startMentions(/** @type {import('./scope.mjs').TurnScope} */ scope, /** @type {{ id: string }} */ message, /** @type {any[]} */ judged, /** @type {Record<string, unknown>} */ verdicts) {
  for (const flow of scope.agent.flows) {
    const index = (flow.on ?? []).findIndex((/** @type {any} */ t) => Array.isArray(t.mention));
    if (index < 0) continue;
    const trigger = flow.on[index];
    let input = {};
    if (trigger.mention.length === 0) {
      if (trigger.if && !trigger.if(scope.conditionScope({}))) continue;
    } else {
      if (!judged.some((j) => j.flow.id === flow.id)) continue;
      const verdict = verdicts[flow.id];
      if (!verdict) continue;
      if (typeof verdict === 'object') input = pick(/** @type {Record<string, unknown>} */ (verdict), Object.keys(trigger.extract ?? {}));
      if (trigger.if && !trigger.if(scope.conditionScope(input))) continue;
    }
    const run = startRun(scope, flow, { kind: 'mention', triggerIndex: index, repeat: trigger.repeat ?? DEFAULT_REPEAT.mention, triggerKey: message.id, input });
    if (run) await advance(scope, run, { newMessage: true });
  }
}

/** @param {Record<string, unknown>} values @param {string[]} names */
const pick = (values, names) => Object.fromEntries(names.filter((n) => values[n] !== undefined).map((n) => [n, values[n]]));

/** The winner of the floor: its suspended run resumes, or a new run starts. */
async function giveFloorTo(/** @type {import('./scope.mjs').TurnScope} */ scope, /** @type {any} */ flow, /** @type {{ id: string }} */ message) {
  const suspended = liveRunOf(scope.session, flow.id, scope.anchorOf(flow));
  if (suspended?.status === 'suspended') {
    takeFloor(scope, suspended);
    return advance(scope, suspended, { newMessage: true });
  }
  const found = messageTrigger(flow);
  const run = startRun(scope, flow, { kind: 'message', triggerIndex: found?.index ?? null,
    repeat: found?.trigger.repeat ?? DEFAULT_REPEAT.message, triggerKey: message.id });
  if (!run) return;
  takeFloor(scope, run);
  await advance(scope, run, { newMessage: true });
}

/** The idle speaker (guide, "The idle speaker"): answers when no run holds the floor and nobody spoke. */
async function idleSpeaker(/** @type {import('./scope.mjs').TurnScope} */ scope, /** @type {{ id: string, text: string }} */ message) {
  const idle = scope.agent.idle;
  if (idle === 'silent') return;
  const options = idle ?? {};
  const answer = await scope.ask({ purpose: 'idle', persona: scope.agent.name, message: message.text,
    prompt: options.prompt ?? null, tools: options.tools ?? [], instructions: options.instructions ?? [] });
  const key = `idle:${message.id}`;
  const text = String(answer.text ?? '');
  scope.result.messages.push({ kind: 'idle', text, key });
  scope.session.history.push({ role: 'assistant', text, key });
  scope.session.lastAssistantAt = scope.now;
  scope.session.lastSpeaker = 'assistant';
  scope.assistantSpoke = true;
  scope.replier = 'idle';
  scope.result.outcomes.push({ kind: 'idle', code: 'idle-answer', key });
}
