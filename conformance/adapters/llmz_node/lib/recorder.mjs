// The record being built while one scenario plays: `{events: [...], final: {...}}`, plain JSON data.

export class Recorder {
  constructor() {
    this.events = []
    this.final = {}
  }

  /** Append an event; fields are deep-copied so later mutation by llmz cannot rewrite history. */
  emit(type, fields = {}) {
    const event = { type, ...structuredClone(stripUndefined(fields)) }
    this.events.push(event)
    return event
  }

  /** The record as sent. Events were copied when emitted, so they are handed over as they are. */
  toJSON() {
    return { events: this.events, final: stripUndefined(this.final) }
  }
}

/** JSON has no undefined: drop such keys (deeply) so records are identical before and after a JSON trip. */
export function stripUndefined(value) {
  if (Array.isArray(value)) return value.map((item) => (item === undefined ? null : stripUndefined(item)))
  if (value && typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype) {
    const out = {}
    for (const [key, item] of Object.entries(value)) if (item !== undefined) out[key] = stripUndefined(item)
    return out
  }
  return value
}
