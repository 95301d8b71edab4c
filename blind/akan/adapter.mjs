#!/usr/bin/env node
// The harness's stdio protocol (spec/protocol/README.md): one JSON object per line in, one answer per
// line out; logs go to stderr only.

import { createInterface } from "node:readline";
import { writeFileSync } from "node:fs";
import { playCase } from "./lib/play.mjs";
import { unsupported } from "./lib/unsupported.mjs";

// Capability flags (the names come from the harness's skip reasons; the documents do not list them).
const HELLO = { name: "blind-akan", version: "0.1.0", language: "javascript", systems: ["akan"], capabilities: ["akan.relay", "akan.voice"] };
// BLIND_AKAN_DUMP=<dir>: write each case as received and the record sent back, for reading a failure.
const DUMP = process.env.BLIND_AKAN_DUMP;
const dump = (c, answer) => { if (DUMP) writeFileSync(`${DUMP}/${c.id.replaceAll("/", "__")}.json`, JSON.stringify({ case: c, answer }, null, 1)); };
const answer = (obj) => process.stdout.write(JSON.stringify(obj) + "\n");

async function handle(msg) {
  if (msg.cmd === "hello") {
    if (!(msg.protocol ?? []).includes(2)) return answer({ error: { message: "blind-akan speaks protocol 2 only" } });
    return answer({ protocol: 2, implementation: HELLO });
  }
  if (msg.cmd === "stop") process.exit(0);
  if (msg.cmd === "run") {
    const c = msg.case;
    let reply;
    // One try around all of it: a malformed case (steps not a list, a null step) must be this case's
    // error; thrown outside it, the case was never answered and the harness waited for its timeout.
    try {
      const why = c?.system !== "akan" ? `system ${c?.system} is not implemented` : unsupported(c);
      reply = why ? { seq: msg.seq, skip: { reason: why } } : { seq: msg.seq, record: await playCase(c) };
    } catch (e) {
      console.error(e?.stack ?? e);
      reply = { seq: msg.seq, error: { message: String(e?.message ?? e) } };
    }
    if (c && typeof c.id === "string") dump(c, reply);
    return answer(reply);
  }
  return answer({ error: { message: `unknown command ${msg.cmd}` } });
}

let queue = Promise.resolve();
createInterface({ input: process.stdin }).on("line", (line) => {
  if (!line.trim()) return;
  let msg;
  try {
    msg = JSON.parse(line);
  } catch {
    msg = null;
  }
  if (msg === null || typeof msg !== "object" || Array.isArray(msg)) {
    // No seq to answer with: say so once, and read on (a line that is not a command loses nothing else).
    queue = queue.then(() => answer({ error: { message: `not a JSON command: ${JSON.stringify(line.slice(0, 80))}` } }));
    return;
  }
  queue = queue.then(() => handle(msg)).catch((e) => console.error(e?.stack ?? e));
});
