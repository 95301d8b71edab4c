/**
 * Who takes the floor on a message (guide, "How a message picks its flow", steps 3 to 5). Pure: it
 * receives the scores the understand call gave and returns a decision; the agent applies it.
 *
 * - A run that is asking keeps the floor unless another flow scores at least WIN_SCORE and at least
 *   KEEP_MARGIN above the asking flow.
 * - With nobody asking, the best score wins from WIN_SCORE up; otherwise the first catch-all
 *   (`message: []`) that passed its `if` and `repeat`; otherwise nobody.
 * - A lone candidate with no catch-all and a silent idle speaker starts unscored (`lone`).
 * Ties go to the flow passed first to the agent.
 */
export const WIN_SCORE = 40;
export const KEEP_MARGIN = 15;

/**
 * @param {{
 *   scored: string[],                       // flow ids scored this turn, agent order (asking flow included)
 *   scores: Record<string, number>,         // valid scores only
 *   askingFlowId: string | null,            // flow of the run holding the floor and asking
 *   catchAll: string | null,                // first eligible catch-all flow id
 *   lone: string | null,                    // the one candidate that starts without a score
 * }} input
 * @returns {{ winner: string | null, why: 'asking-kept' | 'outscored' | 'best-score' | 'catch-all' | 'lone' | 'nobody' }}
 */
export function pickFloor({ scored, scores, askingFlowId, catchAll, lone }) {
  if (lone) return { winner: lone, why: 'lone' };
  const rivals = scored.filter((id) => id !== askingFlowId);
  const best = bestOf(rivals, scores);
  if (askingFlowId) {
    const asking = scores[askingFlowId] ?? 0;
    if (best && best.score >= WIN_SCORE && best.score >= asking + KEEP_MARGIN) {
      return { winner: best.id, why: 'outscored' };
    }
    return { winner: null, why: 'asking-kept' };
  }
  if (best && best.score >= WIN_SCORE) return { winner: best.id, why: 'best-score' };
  if (catchAll) return { winner: catchAll, why: 'catch-all' };
  return { winner: null, why: 'nobody' };
}

/** @param {string[]} ids @param {Record<string, number>} scores */
function bestOf(ids, scores) {
  /** @type {{ id: string, score: number } | null} */
  let best = null;
  for (const id of ids) {
    const score = scores[id] ?? 0;
    if (!best || score > best.score) best = { id, score };
  }
  return best;
}

/**
 * Keep the scores the model gave for flows it was asked about, within 0..100 (guide: "from 0 to 100").
 * Anything else (a string, 140, -3) is not a score and counts as none.
 * @param {unknown} raw @param {string[]} asked @returns {Record<string, number>}
 */
export function validScores(raw, asked) {
  /** @type {Record<string, number>} */
  const out = {};
  if (!raw || typeof raw !== 'object') return out;
  for (const id of asked) {
    const value = /** @type {Record<string, unknown>} */ (raw)[id];
    if (typeof value === 'number' && Number.isFinite(value) && value >= 0 && value <= 100) out[id] = value;
  }
  return out;
}
