/**
 * One turn in progress: the session it works on, the host's inputs, and the result it is building.
 *
 * Everything a turn reports (started, ended, messages, outcomes, skipped, schedule, llmCalls) is written
 * here, in the order it happens; the agent returns it as the turn's result. `replier` remembers who
 * answered the customer this turn, which decides whether another run may still speak (guide, "Mention":
 * a mention's `say` answers and the asking run stays quiet) and whether the idle speaker answers.
 */
import { runById } from './session.mjs';

export class TurnScope {
  /**
   * @param {import('./agent.mjs').Agent} agent
   * @param {import('./session.mjs').Session} session
   * @param {{ kind: 'message' | 'event' | 'start' | 'wake', context: any, anchors: Record<string, { key: string }>,
   *           claims: { held?: Record<string, number>, active?: string[] } }} input
   */
  constructor(agent, session, input) {
    this.agent = agent;
    this.session = session;
    this.kind = input.kind;
    this.now = agent.clock();
    this.context = input.context ?? {};
    this.anchors = input.anchors ?? {};
    this.lent = input.claims?.held ?? {};
    this.activeElsewhere = new Set(input.claims?.active ?? []);
    /** @type {string | null} */
    this.replier = null;
    this.assistantSpoke = false;
    this.result = {
      /** @type {Array<{ flowId: string, runId: string }>} */ started: [],
      /** @type {Array<{ runId: string, flowId: string, reason: string }>} */ ended: [],
      /** @type {Array<{ kind: string, text: string, key: string }>} */ messages: [],
      /** @type {Array<Record<string, unknown>>} */ outcomes: [],
      /** @type {Array<{ flowId: string, code: string }>} */ skipped: [],
      /** @type {Array<{ key: string, at: number, replaces?: string }>} */ schedule: [],
      llmCalls: 0,
    };
  }

  /** The anchor key of a flow's runs: the session, or a key the host passed (guide, "One live run per flow and anchor"). */
  anchorOf(/** @type {{ anchor?: string }} */ flow) {
    const name = flow.anchor ?? 'session';
    if (name === 'session') return this.session.id;
    return this.anchors[name]?.key ?? this.session.id;
  }

  /** What an `if` or `while` sees (guide, "`if` on a trigger"). */
  conditionScope(/** @type {Record<string, unknown>} */ input) {
    const { lastAssistantAt, lastSpeaker } = this.session;
    const silenced = lastSpeaker === 'assistant' && lastAssistantAt !== null ? this.now - lastAssistantAt : 0;
    return { context: this.context, data: this.session.data, input, silenced, now: this.now };
  }

  /** Ask the model; every call counts toward the turn's llmCalls. */
  async ask(/** @type {any} */ request) {
    this.result.llmCalls += 1;
    return this.agent.provider.complete(request);
  }

  floorRun() { return runById(this.session, this.session.floor); }
}
