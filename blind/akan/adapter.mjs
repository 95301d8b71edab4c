#!/usr/bin/env node
// The harness's stdio protocol (spec/protocol/README.md): one JSON object per line in, one answer per
// line out; logs go to stderr only.

import { createInterface } from "node:readline";
import { playCase } from "./lib/play.mjs";
import { unsupported } from "./lib/unsupported.mjs";

const HELLO = { name: "blind-akan", version: "0.1.0", language: "javascript", systems: ["akan"], capabilities: [] };
const answer = (obj) => process.stdout.write(JSON.stringify(obj) + "\n");

async function handle(msg) {
  if (msg.cmd === "hello") {
    if (!(msg.protocol ?? []).includes(2)) return answer({ error: { message: "blind-akan speaks protocol 2 only" } });
    return answer({ protocol: 2, implementation: HELLO });
  }
  if (msg.cmd === "stop") process.exit(0);
  if (msg.cmd === "run") {
    const c = msg.case;
    const why = c.system !== "akan" ? `system ${c.system} is not implemented` : unsupported(c);
    if (why) return answer({ seq: msg.seq, skip: { reason: why } });
    try {
      return answer({ seq: msg.seq, record: await playCase(c) });
    } catch (e) {
      console.error(e?.stack ?? e);
      return answer({ seq: msg.seq, error: { message: String(e?.message ?? e) } });
    }
  }
  return answer({ error: { message: `unknown command ${msg.cmd}` } });
}

let queue = Promise.resolve();
createInterface({ input: process.stdin }).on("line", (line) => {
  if (!line.trim()) return;
  queue = queue.then(() => handle(JSON.parse(line))).catch((e) => console.error(e?.stack ?? e));
});
