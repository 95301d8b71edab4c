#!/usr/bin/env node
/**
 * The harness's stdio protocol (spec/protocol/README.md, protocol 2): one JSON command per line on stdin,
 * one answer per line on stdout, logs on stderr. `hello` once, `run` per case, `stop` to exit.
 */
import { createInterface } from 'node:readline';
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

/** @param {any} command */
async function answer(command) {
  if (command.cmd === 'hello') {
    return (command.protocol ?? []).includes(2) ? HELLO : { error: { message: 'only protocol 2 is spoken' } };
  }
  if (command.cmd === 'run') {
    const reason = cannotExpress(command.case);
    if (reason) return { seq: command.seq, skip: { reason } };
    try {
      return { seq: command.seq, record: await playCase(command.case) };
    } catch (error) {
      return { seq: command.seq, error: { message: error instanceof Error ? error.stack ?? error.message : String(error) } };
    }
  }
  return { error: { message: `unknown command ${JSON.stringify(command.cmd)}` } };
}

const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
for await (const line of lines) {
  if (!line.trim()) continue;
  const command = JSON.parse(line);
  if (command.cmd === 'stop') break;
  process.stdout.write(`${JSON.stringify(await answer(command))}\n`);
}
process.exit(0);
