/**
 * `setup` -> an agent, written the way a host program would: predicates for `if`/`while`, action
 * functions, a businessHours function for the declarative working hours.
 */
import { createAgent } from '../runtime/index.mjs';
import { toPredicate } from './conditions.mjs';

/** @param {{ open_hour: number, close_hour: number }} hours UTC, every day */
export function businessHoursFn({ open_hour, close_hour }) {
  return (/** @type {number} */ at) => {
    const d = new Date(at);
    const hour = d.getUTCHours() + d.getUTCMinutes() / 60 + d.getUTCSeconds() / 3600 + d.getUTCMilliseconds() / 3_600_000;
    if (hour >= open_hour && hour < close_hour) return d;
    if (hour >= close_hour) d.setUTCDate(d.getUTCDate() + 1);
    d.setUTCHours(open_hour, 0, 0, 0);
    return d;
  };
}

/** @param {any} flow */
function toFlow(flow) {
  return {
    ...flow,
    on: flow.on ? flow.on.map((/** @type {any} */ t) => ({ ...dropNulls(t), if: toPredicate(t.if) })) : undefined,
    while: toPredicate(flow.while),
    anchor: flow.anchor ?? undefined,
    steps: flow.steps.map(dropNulls),
  };
}

/** @param {Record<string, any>} object */
const dropNulls = (object) => Object.fromEntries(Object.entries(object).filter(([, v]) => v !== null && v !== undefined));

/** @param {Record<string, any>} actions */
function toActions(actions) {
  return Object.fromEntries(Object.entries(actions).map(([name, spec]) => [name, {
    run: () => ({ ...(spec.returns ?? { ok: true }), ...(spec.spoke ? { spoke: true } : {}) }),
  }]));
}

/**
 * @param {any} setup @param {{ provider: any, clock: () => number, observe: (e: any) => void }} host
 */
export function buildAgent(setup, host) {
  return createAgent({
    name: setup.name ?? 'Ana',
    provider: host.provider,
    clock: host.clock,
    observe: host.observe,
    fields: setup.fields ?? {},
    flows: (setup.flows ?? []).map(toFlow),
    actions: toActions(setup.actions ?? {}),
    events: Object.fromEntries((setup.events ?? []).map((/** @type {string} */ name) => [name, {}])),
    idle: setup.idle ?? null,
    businessHours: setup.businessHours ? businessHoursFn(setup.businessHours) : undefined,
  });
}
