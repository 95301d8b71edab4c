/**
 * The agent: flows, actions and options, and `turn()`, the one entry point a host calls.
 *
 * `turn` takes exactly one of `message`, `event`, `start` or `wake` (guide, "Triggers", table), works on
 * the session it finds in its store (or the one the host hands back with `session`), and returns what
 * happened: runs started and ended, messages, outcome lines, skip lines, wakes to enqueue, model calls,
 * and whether the session changed at all.
 */
import { newSession, snapshot, copySession } from './session.mjs';
import { TurnScope } from './scope.mjs';
import { messageTurn } from './message.mjs';
import { eventTurn, startTurn, wakeTurn } from './hosted.mjs';
import { armSilence } from './silence.mjs';

/**
 * @typedef {{ complete(request: Record<string, any>): Promise<{ text?: string, json?: any }> }} Provider
 * @typedef {{ run(params: Record<string, unknown>, ctx: Record<string, unknown>): any }} ActionDef
 * @typedef {{
 *   name: string, provider: Provider, flows: any[], fields?: Record<string, any>,
 *   actions?: Record<string, ActionDef>, events?: Record<string, unknown>,
 *   idle?: 'silent' | { prompt?: string, tools?: string[], instructions?: string[] } | null,
 *   businessHours?: (at: number, ctx: { context: unknown }) => Date | number,
 *   clock?: () => number, observe?: (event: Record<string, unknown>) => void,
 * }} AgentOptions
 */

export class Agent {
  /** @param {AgentOptions} options */
  constructor(options) {
    this.name = options.name;
    this.provider = options.provider;
    this.flows = options.flows;
    this.fields = options.fields ?? {};
    this.actions = options.actions ?? {};
    this.events = options.events ?? {};
    this.idle = options.idle ?? null;
    this.businessHoursFn = options.businessHours ?? null;
    this.clock = options.clock ?? (() => Date.now());
    this.observe = options.observe ?? (() => {});
    /** @type {Map<string, import('./session.mjs').Session>} */
    this.store = new Map();
  }

  /** @param {string} id */
  flow(id) { return this.flows.find((f) => f.id === id) ?? null; }

  /**
   * Move a timer to working hours when asked to (guide, "businessHours"): never earlier than computed.
   * @param {number} at @param {boolean | undefined} wanted @param {unknown} context
   */
  workingTime(at, wanted, context) {
    if (!wanted || !this.businessHoursFn) return at;
    const moved = this.businessHoursFn(at, { context });
    const ms = moved instanceof Date ? moved.getTime() : Number(moved);
    return Number.isFinite(ms) && ms > at ? ms : at;
  }

  /**
   * @param {{ sessionId: string, session?: import('./session.mjs').Session, context?: unknown,
   *   anchors?: Record<string, { key: string }>, claims?: { held?: Record<string, number>, active?: string[] },
   *   message?: string, id?: string, event?: string, payload?: Record<string, unknown>, key?: string,
   *   direction?: 'customer' | 'assistant' | null, start?: { flow: string, input?: Record<string, unknown>, key: string },
   *   wake?: string }} input
   */
  async turn(input) {
    const stored = input.session ?? this.store.get(input.sessionId) ?? newSession(input.sessionId);
    const session = copySession(stored);
    const before = snapshot(session);
    const kind = input.message !== undefined ? 'message' : input.event !== undefined ? 'event'
      : input.start !== undefined ? 'start' : input.wake !== undefined ? 'wake' : null;
    if (!kind) throw new TypeError('turn() needs one of message, event, start or wake');
    const scope = new TurnScope(this, session, { kind, context: input.context, anchors: input.anchors ?? {}, claims: input.claims ?? {} });
    if (kind === 'message') await messageTurn(scope, { id: String(input.id), text: String(input.message) });
    if (kind === 'event') await eventTurn(scope, { event: String(input.event), payload: input.payload, key: String(input.key), direction: input.direction });
    if (kind === 'start') await startTurn(scope, /** @type {any} */ (input.start));
    if (kind === 'wake') await wakeTurn(scope, String(input.wake));
    if (scope.assistantSpoke) armSilence(scope);
    const changed = snapshot(session) !== before;
    if (changed) this.store.set(session.id, session);
    return { ...scope.result, changed, session: copySession(changed ? session : stored) };
  }
}

/** @param {AgentOptions} options */
export const createAgent = (options) => new Agent(options);
