/** The blind falai triggers runtime's public surface. */
export { createAgent, Agent } from './agent.mjs';
export { parseDuration } from './duration.mjs';
export { WIN_SCORE, KEEP_MARGIN } from './routing.mjs';
