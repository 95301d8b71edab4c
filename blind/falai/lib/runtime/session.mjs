/**
 * The session: everything a turn reads and writes, kept as plain JSON so a host can store it and hand it
 * back (`turn({ session })`), and so "did this turn change anything" is a comparison of two snapshots.
 *
 * @typedef {'active' | 'suspended' | 'parked' | 'waiting' | 'ended'} RunStatus
 * @typedef {{
 *   id: string, flowId: string, anchor: string, kind: 'message' | 'mention' | 'silence' | 'event' | 'start',
 *   triggerIndex: number | null, input: Record<string, unknown>, status: RunStatus, stepIndex: number,
 *   wakeKey: string | null, resumeAfter: string | null, customerSeqAtStart: number,
 *   spoken: Record<string, number>, endReason: string | null,
 * }} Run
 * @typedef {{
 *   id: string, runs: Run[], floor: string | null, claims: Record<string, number>,
 *   data: Record<string, unknown>, history: Array<{ role: 'customer', text: string, id: string } | { role: 'assistant', text: string, key: string }>,
 *   lastAssistantAt: number | null, lastSpeaker: 'customer' | 'assistant' | null, customerSeq: number,
 *   seenMessageIds: string[], silenceKeys: Record<string, string>,
 * }} Session
 */

/** @param {string} id @returns {Session} */
export function newSession(id) {
  return {
    id, runs: [], floor: null, claims: {}, data: {}, history: [], lastAssistantAt: null,
    lastSpeaker: null, customerSeq: 0, seenMessageIds: [], silenceKeys: {},
  };
}

/** @param {Session} session */
export const snapshot = (session) => JSON.stringify(session);

/** @param {Session} session @returns {Session} */
export const copySession = (session) => JSON.parse(JSON.stringify(session));

/** @param {Session} session @param {string | null} id */
export const runById = (session, id) => session.runs.find((r) => r.id === id) ?? null;

/** @param {Run} run */
export const isLive = (run) => run.status !== 'ended';

/** The live run of a flow for one anchor: there is at most one (guide, "One live run per flow and anchor"). */
export function liveRunOf(/** @type {Session} */ session, /** @type {string} */ flowId, /** @type {string} */ anchor) {
  return session.runs.find((r) => r.flowId === flowId && r.anchor === anchor && isLive(r)) ?? null;
}
