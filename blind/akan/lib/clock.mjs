// The virtual clock a case runs on (it starts at 2026-01-05T12:00:00Z; `advance` moves it).
const UNITS = { ms: 1, s: 1000, m: 60000, h: 3600000, d: 86400000, w: 604800000 };
export class Clock {
  constructor(startMs) { this.ms = startMs; }
  now() { return new Date(this.ms); }
  advance(by) {
    const m = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h|d|w)\s*$/.exec(by);
    if (!m) throw new Error(`advance: cannot read duration ${JSON.stringify(by)}`);
    this.ms += Number(m[1]) * UNITS[m[2]];
  }
}
