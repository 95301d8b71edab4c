/** A provider that answers from a list and remembers what it was asked, and a clock the test moves. */
export function fakeProvider(/** @type {any[]} */ answers) {
  const asked = /** @type {any[]} */ ([]);
  return {
    asked,
    async complete(/** @type {any} */ request) {
      asked.push(request);
      const next = answers.shift();
      if (!next) throw new Error(`no answer for call ${asked.length}`);
      return next;
    },
  };
}

export function fakeClock(start = Date.UTC(2026, 0, 5, 12)) {
  let now = start;
  return { now: () => now, advance: (/** @type {number} */ ms) => { now += ms; } };
}

export const HOUR = 3_600_000;
