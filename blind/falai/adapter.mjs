#!/usr/bin/env node
/**
 * The harness's stdio protocol (spec/protocol/README.md, protocol 2): one JSON command per line on stdin,
 * one answer per line on stdout, logs on stderr. `hello` once, `run` per case, `stop` to exit.
 */
import { createInterface } from 'node:readline';
import { mkdirSync, writeFileSync } from 'node:fs';
import { playCase } from './lib/host/play.mjs';

const CAPABILITIES = ['falai.turn', 'falai.wake', 'falai.event', 'falai.start', 'falai.business-hours'];
const STEP_OPS = new Set(['message', 'event', 'start', 'wake', 'advance', 'context']);

const HELLO = {
  protocol: 2,
  implementation: {
    name: 'blind-falai', version: '0.1.0', language: 'javascript', systems: ['falai'], capabilities: CAPABILITIES,
  },
};

/** What this adapter cannot express, or null. @param {any} testCase */
function cannotExpress(testCase) {
  if (testCase.system !== 'falai') return `system ${testCase.system} is not implemented (falai only)`;
  for (const [i, step] of (testCase.steps ?? []).entries()) {
    if (!STEP_OPS.has(step.op)) return `steps[${i}].op ${JSON.stringify(step.op)} has no mapping`;
  }
  return null;
}

/**
 * With BLIND_FALAI_DUMP=<folder>, keep each case as received and the record sent back, for reading a
 * failure (the case is what the harness sent; it never holds the expectations).
 * @param {any} testCase @param {any} record
 */
function dump(testCase, record) {
  const folder = process.env.BLIND_FALAI_DUMP;
  if (!folder) return;
  mkdirSync(folder, { recursive: true });
  writeFileSync(`${folder}/${testCase.id.replaceAll('/', '__')}.json`, JSON.stringify({ case: testCase, record }, null, 1));
}

/** @param {any} command */
async function answer(command) {
  if (command.cmd === 'hello') {
    return (command.protocol ?? []).includes(2) ? HELLO : { error: { message: 'only protocol 2 is spoken' } };
  }
  if (command.cmd === 'run') {
    try {
      // Inside the try: a malformed case (steps not a list, a step that is null) is this case's error,
      // never a crash that loses it (spec/protocol/README.md, "What the harness does when things go wrong").
      const reason = cannotExpress(command.case);
      if (reason) return { seq: command.seq, skip: { reason } };
      const record = await playCase(command.case);
      dump(command.case, record);
      return { seq: command.seq, record };
    } catch (error) {
      return { seq: command.seq, error: { message: error instanceof Error ? error.stack ?? error.message : String(error) } };
    }
  }
  return { error: { message: `unknown command ${JSON.stringify(command.cmd)}` } };
}

const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
/** A line that is not a JSON command has no seq to answer with: say so once, and read on. @param {string} line */
function parse(line) {
  try {
    const command = JSON.parse(line);
    if (command !== null && typeof command === 'object' && !Array.isArray(command)) return command;
  } catch {
    // answered below
  }
  process.stdout.write(`${JSON.stringify({ error: { message: `not a JSON command: ${JSON.stringify(line.slice(0, 80))}` } })}\n`);
  return null;
}

for await (const line of lines) {
  if (!line.trim()) continue;
  const command = parse(line);
  if (command === null) continue;
  if (command.cmd === 'stop') break;
  process.stdout.write(`${JSON.stringify(await answer(command))}\n`);
}
process.exit(0);
