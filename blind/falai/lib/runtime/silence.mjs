/**
 * Silence triggers (guide, "Silence"): arming a wake after the assistant speaks, and deciding whether
 * a wake that fires still finds the silence it was armed for.
 */
import { parseDuration } from './duration.mjs';
import { repeatRefusal, DEFAULT_REPEAT } from './claims.mjs';

const PREFIX = 'silence:';

/** Arm one wake per silence flow whose `if` holds and whose `repeat` allows (step 2 of the guide's list). */
export function armSilence(/** @type {import('./scope.mjs').TurnScope} */ scope) {
  const { session, agent } = scope;
  const spokeAt = session.lastAssistantAt;
  if (spokeAt === null) return;
  for (const flow of agent.flows) {
    const index = (flow.on ?? []).findIndex((/** @type {any} */ t) => t.silence !== undefined && t.silence !== null);
    if (index < 0) continue;
    const trigger = flow.on[index];
    if (trigger.if && !trigger.if(scope.conditionScope({}))) continue;
    const repeat = trigger.repeat ?? DEFAULT_REPEAT.silence;
    const key = `${PREFIX}${flow.id}:${session.id}:${spokeAt}`;
    const ask = { flowId: flow.id, anchor: scope.anchorOf(flow), repeat, triggerKey: key, now: scope.now };
    if (repeatRefusal(session, scope.lent, ask)) continue;
    const at = agent.workingTime(spokeAt + parseDuration(trigger.silence), trigger.businessHours, scope.context);
    const previous = session.silenceKeys[flow.id];
    if (previous === key) continue;
    scope.result.schedule.push(previous ? { key, at, replaces: previous } : { key, at });
    session.silenceKeys[flow.id] = key;
  }
}

/**
 * Read a silence wake key. @param {string} key
 * @returns {{ flowId: string, sessionId: string, spokeAt: number } | null}
 */
export function parseSilenceKey(key) {
  if (!key.startsWith(PREFIX)) return null;
  const parts = key.slice(PREFIX.length).split(':');
  if (parts.length < 3) return null;
  const spokeAt = Number(parts.at(-1));
  if (!Number.isInteger(spokeAt)) return null;
  return { flowId: parts[0], sessionId: parts.slice(1, -1).join(':'), spokeAt };
}

/** The session still shows that silence: the same last assistant message, and no customer word since (step 4). */
export function silenceStillHolds(/** @type {import('./session.mjs').Session} */ session, /** @type {number} */ spokeAt) {
  return session.lastAssistantAt === spokeAt && session.lastSpeaker === 'assistant';
}
