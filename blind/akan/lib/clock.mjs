// The virtual clock a case runs on (it starts at 2026-01-05T12:00:00Z; `advance` moves it).
const UNITS = { ms: 1, s: 1000, m: 60000, h: 3600000, d: 86400000, w: 604800000 };
export class Clock {
  constructor(startMs) { this.ms = startMs; this.timers = []; }
  /** Run `fn` once the clock has moved `delay` ms on (virtual timers, fired by advance). */
  schedule(delay, fn) { const t = { at: this.ms + delay, fn }; this.timers.push(t); return t; }
  cancel(t) { this.timers = this.timers.filter((x) => x !== t); }
  now() { return new Date(this.ms); }
  advance(by) {
    const m = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h|d|w)\s*$/.exec(by);
    if (!m) throw new Error(`advance: cannot read duration ${JSON.stringify(by)}`);
    const until = this.ms + Number(m[1]) * UNITS[m[2]];
    for (;;) {
      const due = this.timers.filter((t) => t.at <= until).sort((a, b) => a.at - b.at)[0];
      if (!due) break;
      this.cancel(due);
      this.ms = due.at;
      due.fn();
    }
    this.ms = until;
  }
}
