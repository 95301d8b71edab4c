/**
 * Durations as the guide writes them ('24h', '2d', '1h'), turned into milliseconds.
 * The guide only shows h and d; s, m, w and ms are accepted because a real author would.
 */
const UNIT_MS = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };

/** @param {string} text @returns {number} */
export function parseDuration(text) {
  const match = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h|d|w)\s*$/.exec(String(text));
  if (!match) throw new TypeError(`not a duration: ${JSON.stringify(text)} (expected e.g. '24h' or '2d')`);
  return Math.round(Number(match[1]) * UNIT_MS[match[2]]);
}
