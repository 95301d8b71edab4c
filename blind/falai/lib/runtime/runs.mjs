/**
 * Runs: starting one, moving it through its steps, handing the floor over, ending it.
 *
 * Theory of operation. A run stands on one step (`stepIndex`). `advance` executes steps until the run
 * has to stop: a talk step still missing fields (the run keeps the floor and waits for the customer), a
 * `wait` step (the run sleeps until its wake, or a message when the step has `else`), or the end of the
 * steps (the run ends `completed`). Before every step the run's premise is re-checked (guide, "`if` on a
 * trigger": the trigger's `if`, or the flow's `while`, is the run's premise); when it no longer holds the
 * run ends with `premise-changed`.
 *
 * The floor is the right to ask the next question. A run takes it when it reaches a talk step (and a
 * message run or silence run when it starts) and keeps it, through `wait` steps too, until it ends or
 * another flow wins it (guide, "Message"); the run that held it is suspended and remembers who took
 * it (`resumeAfter`), and resumes when that run ends.
 *
 * Speaking. One run answers the customer per turn. A run that would speak after another run already
 * answered stays quiet, keeps its step, and reports `another-reply` (guide, "Mention"); mention runs are
 * the exception in the other direction: their `say` always answers.
 */
import { parseDuration } from './duration.mjs';
import { render, renderDeep } from './templates.mjs';
import { repeatRefusal, writeClaim } from './claims.mjs';
import { liveRunOf } from './session.mjs';

/**
 * Start a run if `repeat`, the ledger and the one-live-run rule allow it; otherwise write the skip line.
 * @param {import('./scope.mjs').TurnScope} scope
 * @param {any} flow
 * @param {{ kind: import('./session.mjs').Run['kind'], triggerIndex: number | null, repeat: any,
 *           triggerKey: string, input?: Record<string, unknown> }} how
 * @returns {import('./session.mjs').Run | null}
 */
export function startRun(scope, flow, how) {
  const { session, now } = scope;
  const anchor = scope.anchorOf(flow);
  const ask = { flowId: flow.id, anchor, repeat: how.repeat, triggerKey: how.triggerKey, now };
  const refusal = repeatRefusal(session, scope.lent, ask);
  if (refusal) return skip(scope, flow.id, refusal);
  const live = liveRunOf(session, flow.id, anchor);
  if (live && live.status === 'parked' && how.kind === 'event') endRun(scope, live, 'replaced');
  else if (live || scope.activeElsewhere.has(`${flow.id}:${anchor}`)) return skip(scope, flow.id, 'already-running');
  /** @type {import('./session.mjs').Run} */
  const run = {
    id: `${flow.id}#${how.triggerKey}`, flowId: flow.id, anchor, kind: how.kind, triggerIndex: how.triggerIndex,
    input: how.input ?? {}, status: 'active', stepIndex: 0, wakeKey: null, resumeAfter: null,
    customerSeqAtStart: session.customerSeq, spoken: {}, endReason: null,
  };
  session.runs.push(run);
  writeClaim(session, ask);
  scope.result.started.push({ flowId: flow.id, runId: run.id });
  return run;
}

function skip(/** @type {import('./scope.mjs').TurnScope} */ scope, /** @type {string} */ flowId, /** @type {string} */ code) {
  scope.result.skipped.push({ flowId, code });
  return null;
}

/** Give `run` the floor, suspending whoever held it. */
export function takeFloor(/** @type {import('./scope.mjs').TurnScope} */ scope, /** @type {import('./session.mjs').Run} */ run) {
  const holder = scope.floorRun();
  if (holder && holder.id !== run.id && holder.status === 'active') {
    holder.status = 'suspended';
    holder.resumeAfter = run.id;
  }
  // A holder that is waiting keeps waiting; it only loses the floor.
  scope.session.floor = run.id;
  run.status = 'active';
  run.resumeAfter = null;
}

/** End a run; if it held the floor, the run it suspended gets the floor back and carries on. */
export async function endRun(/** @type {import('./scope.mjs').TurnScope} */ scope, /** @type {import('./session.mjs').Run} */ run, /** @type {string} */ reason) {
  run.status = 'ended';
  run.endReason = reason;
  run.wakeKey = null;
  scope.result.ended.push({ runId: run.id, flowId: run.flowId, reason });
  if (reason === 'premise-changed' || reason === 'customer-replied') scope.result.outcomes.push({ code: reason, runId: run.id });
  if (scope.session.floor !== run.id) return;
  scope.session.floor = null;
  const waiting = scope.session.runs.filter((r) => r.status === 'suspended' && r.resumeAfter === run.id).at(-1);
  if (waiting) {
    takeFloor(scope, waiting);
    if (scope.kind === 'message') await advance(scope, waiting, { newMessage: true });
  }
}

/** Whether the run's premise still holds (the flow's `while`, else its trigger's `if`). */
export function premiseHolds(/** @type {import('./scope.mjs').TurnScope} */ scope, /** @type {import('./session.mjs').Run} */ run) {
  const flow = scope.agent.flow(run.flowId);
  if (!flow) return false;
  const premise = flow.while ?? (run.triggerIndex === null ? null : flow.on?.[run.triggerIndex]?.if);
  return premise ? Boolean(premise(scope.conditionScope(run.input))) : true;
}

/**
 * Execute the run's steps until it has to stop (see the module comment).
 * @param {import('./scope.mjs').TurnScope} scope @param {import('./session.mjs').Run} run
 * @param {{ newMessage: boolean }} how
 */
export async function advance(scope, run, how) {
  const flow = scope.agent.flow(run.flowId);
  while (run.status !== 'ended') {
    if (!premiseHolds(scope, run)) return endRun(scope, run, 'premise-changed');
    const step = flow.steps[run.stepIndex];
    if (!step) return endRun(scope, run, 'completed');
    const next = await STEP_KINDS[stepKind(step)](scope, run, step, how);
    if (next === 'stop') return;
    run.stepIndex += 1;
  }
}

/** @param {any} step */
export function stepKind(step) {
  if (step.say !== undefined && step.say !== null) return 'say';
  if (step.do !== undefined && step.do !== null) return 'do';
  if (step.wait !== undefined && step.wait !== null) return 'wait';
  return 'talk';
}

/** Fields a talk step still has to collect. @returns {string[]} */
export function pendingFields(/** @type {import('./scope.mjs').TurnScope} */ scope, /** @type {any} */ step) {
  return (step.collect ?? []).filter((/** @type {string} */ name) => scope.session.data[name] === undefined);
}

/** Another run answered this turn, so this one keeps quiet (guide, "Mention"). */
function mustStayQuiet(/** @type {import('./scope.mjs').TurnScope} */ scope, /** @type {import('./session.mjs').Run} */ run) {
  if (run.kind === 'mention') return false;
  return scope.replier !== null && scope.replier !== run.id;
}

/** @param {import('./scope.mjs').TurnScope} scope @param {import('./session.mjs').Run} run @param {string} kind @param {string} text @param {string} stepId */
export function send(scope, run, kind, text, stepId) {
  run.spoken[stepId] = (run.spoken[stepId] ?? 0) + 1;
  const key = `${run.id}:${stepId}:${run.spoken[stepId]}`;
  scope.result.messages.push({ kind, text, key });
  scope.session.history.push({ role: 'assistant', text, key });
  stampAssistant(scope);
  scope.replier ??= run.id;
}

/** The assistant spoke now (guide, "Silence", step 1). */
export function stampAssistant(/** @type {import('./scope.mjs').TurnScope} */ scope) {
  scope.session.lastAssistantAt = scope.now;
  scope.session.lastSpeaker = 'assistant';
  scope.assistantSpoke = true;
}

function quiet(/** @type {import('./scope.mjs').TurnScope} */ scope, /** @type {import('./session.mjs').Run} */ run) {
  scope.result.outcomes.push({ code: 'another-reply', runId: run.id });
  return 'stop';
}

const STEP_KINDS = {
  /** A verbatim message. */
  async say(/** @type {any} */ scope, /** @type {any} */ run, /** @type {any} */ step) {
    if (mustStayQuiet(scope, run)) return quiet(scope, run);
    send(scope, run, 'verbatim', render(step.say, templateScope(scope, run)), step.id);
    return 'next';
  },

  /** A talk step: the model writes the message; with `collect`, the run waits for the answers. */
  async talk(/** @type {any} */ scope, /** @type {any} */ run, /** @type {any} */ step, /** @type {{ newMessage: boolean }} */ how) {
    const pending = pendingFields(scope, step);
    if (step.collect?.length && pending.length === 0) return 'next';
    takeFloor(scope, run);
    if (mustStayQuiet(scope, run)) return quiet(scope, run);
    const fields = pending.map((name) => ({ name, ...scope.agent.fields[name] }));
    const prompt = step.prompt ? render(step.prompt, templateScope(scope, run)) : null;
    const answer = await scope.ask({
      purpose: 'talk', persona: scope.agent.name, runId: run.id, flowId: run.flowId, stepId: step.id,
      prompt, fields, newMessage: how.newMessage,
    });
    send(scope, run, 'generated', String(answer.text ?? ''), step.id);
    return pending.length ? 'stop' : 'next';
  },

  /** Run an action with its rendered `with`. */
  async do(/** @type {any} */ scope, /** @type {any} */ run, /** @type {any} */ step) {
    const params = renderDeep(step.with ?? {}, templateScope(scope, run));
    const action = scope.agent.actions[step.do];
    scope.agent.observe({ type: 'action', name: step.do, runId: run.id, params, known: Boolean(action) });
    if (!action) return 'next';
    const result = await action.run(params, { input: run.input, data: scope.session.data, context: scope.context, runId: run.id });
    if (result && result.spoke === true) {
      stampAssistant(scope);
      scope.replier ??= run.id;
    }
    return 'next';
  },

  /** Sleep until the wake; a message ends the wait early when the step has `else`. */
  async wait(/** @type {any} */ scope, /** @type {any} */ run, /** @type {any} */ step) {
    const at = scope.agent.workingTime(scope.now + parseDuration(step.wait), step.businessHours, scope.context);
    run.wakeKey = `${run.id}:wait:${step.id}:${at}`;
    // A run keeps the floor while it waits: it holds it until it ends or another flow wins it.
    run.status = 'waiting';
    scope.result.schedule.push({ key: run.wakeKey, at });
    return 'stop';
  },
};

function templateScope(/** @type {import('./scope.mjs').TurnScope} */ scope, /** @type {import('./session.mjs').Run} */ run) {
  return { input: run.input, data: scope.session.data, context: scope.context };
}

