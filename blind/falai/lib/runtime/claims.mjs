/**
 * The claim ledger and the `repeat` policy (guide, "`repeat`").
 *
 * Every start writes `<flowId>:<anchor>:<nonce>` into `session.claims` with the time it happened. The
 * nonce is empty for 'once' and cooldowns, and is the trigger key for 'always', so 'always' still refuses
 * the same key twice. Only the newest 50 always-claims per flow and anchor are kept. The host may lend
 * claims from the customer's other sessions (`turn({ claims: { held } })`): they are consulted, never
 * copied into this session.
 */
import { parseDuration } from './duration.mjs';

export const ALWAYS_CLAIMS_KEPT = 50;

/** Default `repeat` per trigger kind (guide, "`repeat`", Defaults). */
export const DEFAULT_REPEAT = {
  message: 'once', mention: 'once', silence: 'once', event: 'always', start: 'always',
};

/**
 * @param {{ flowId: string, anchor: string, repeat: any, triggerKey: string }} ask
 * @returns {string}
 */
export function claimKey({ flowId, anchor, repeat, triggerKey }) {
  const nonce = repeat === 'always' ? triggerKey : '';
  return `${flowId}:${anchor}:${nonce}`;
}

/**
 * Whether `repeat` lets a new run start now. Returns null when it may, else the skip code.
 * @param {{ claims: Record<string, number> }} session
 * @param {Record<string, number>} lent  claims held by the host for other sessions
 * @param {{ flowId: string, anchor: string, repeat: any, triggerKey: string, now: number }} ask
 * @returns {null | 'already-claimed' | 'cooldown'}
 */
export function repeatRefusal(session, lent, ask) {
  const key = claimKey(ask);
  const at = session.claims[key] ?? lent[key];
  if (at === undefined) return null;
  if (ask.repeat && typeof ask.repeat === 'object' && 'cooldown' in ask.repeat) {
    return ask.now - at < parseDuration(ask.repeat.cooldown) ? 'cooldown' : null;
  }
  return 'already-claimed';
}

/**
 * Write the claim of a start. @param {{ claims: Record<string, number> }} session
 * @param {{ flowId: string, anchor: string, repeat: any, triggerKey: string, now: number }} ask
 */
export function writeClaim(session, ask) {
  const key = claimKey(ask);
  delete session.claims[key];
  session.claims[key] = ask.now;
  if (ask.repeat !== 'always') return;
  const prefix = `${ask.flowId}:${ask.anchor}:`;
  const mine = Object.keys(session.claims).filter((k) => k.startsWith(prefix) && k !== prefix);
  for (const old of mine.slice(0, Math.max(0, mine.length - ALWAYS_CLAIMS_KEPT))) delete session.claims[old];
}
