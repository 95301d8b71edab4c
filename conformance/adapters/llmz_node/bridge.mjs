#!/usr/bin/env node
// The llmz-node bridge: plays conformance scenarios on the real llmz 1.0.1 from npm.
//
// It speaks the suite's stdio protocol (conformance/protocol.py), mirroring `python -m conformance.players.server`:
// newline-delimited JSON commands on stdin, one answer per line on stdout, logs on stderr.
//   {"cmd": "hello", "protocol": [2]}      -> {"protocol": 2, "implementation": {...}}
//   {"cmd": "run", "seq": n, "case": {...}} -> {"seq": n, "record" | "skip" | "error": ...}
// A case is the played half of a scenario (id, system, requires, setup, script, steps): the harness keeps
// the title, rules and expectations to itself.
//   {"cmd": "stop"}                             -> the process exits
// Commands are handled one at a time, in order. A failing case is answered as that case's error and the
// process carries on, so one bad scenario never costs the rest of the run a restart.
import { appendFileSync } from 'node:fs'
import { createInterface } from 'node:readline'

import { configureTokenizer } from 'llmz'

import { CannotExpress } from './lib/errors.mjs'
import { takeTotals } from './lib/meter.mjs'
import { CAPABILITIES, playScenario } from './lib/play.mjs'
import { tokenizer } from './lib/tokenizer.mjs'

export const PROTOCOL_VERSIONS = [2]

export const IMPLEMENTATION = {
  name: 'llmz',
  version: '1.0.1',
  language: 'typescript',
  systems: ['llmz'],
  capabilities: [...CAPABILITIES].sort(),
  homepage: 'https://www.npmjs.com/package/llmz',
}

configureTokenizer(tokenizer)

/** The answer to one command line, or null for `stop`. Never throws. */
export async function answer(line) {
  let message
  try {
    message = JSON.parse(line)
  } catch (error) {
    return { error: { message: `cannot parse command as JSON: ${error.message}` } }
  }
  switch (message?.cmd) {
    case 'hello':
      return hello(message)
    case 'run':
      return run(message)
    case 'stop':
      return null
    default:
      return { error: { message: `unknown command ${JSON.stringify(message?.cmd)}` } }
  }
}

function hello(message) {
  const offered = (Array.isArray(message.protocol) ? message.protocol : []).filter((v) => PROTOCOL_VERSIONS.includes(v))
  if (!offered.length) return { error: { message: `no common protocol version in ${JSON.stringify(message.protocol)}` } }
  return { protocol: Math.max(...offered), implementation: IMPLEMENTATION }
}

/**
 * With LLMZ_NODE_CPU_LOG set to a file, one JSON line per case: its id and the CPU and wall milliseconds the
 * bridge process spent on it (from just before the case to its answer), for measuring where a run goes;
 * of that CPU, `llmz_ms` inside llmz's calls (with the host callbacks it made), `tokenizer_ms` inside the
 * tokenizer, and `gc_ms` the garbage collector's pauses (lib/meter.mjs).
 */
const CPU_LOG = process.env.LLMZ_NODE_CPU_LOG || null

async function run(message) {
  if (!CPU_LOG) return play(message)
  takeTotals() // what came before this case (start-up, the previous answer) is not its cost
  const cpu = process.cpuUsage()
  const started = performance.now()
  const reply = await play(message)
  const used = process.cpuUsage(cpu)
  const line = {
    id: message.case?.id ?? null,
    cpu_ms: (used.user + used.system) / 1000,
    wall_ms: performance.now() - started,
    ...takeTotals(),
  }
  appendFileSync(CPU_LOG, JSON.stringify(line) + '\n')
  return reply
}

async function play(message) {
  const seq = message.seq
  // Keeps the event loop alive while llmz awaits something that holds no handle of its own (a tool promise
  // that never settles): otherwise Node would drain and exit in the middle of a case.
  const keepAlive = setInterval(() => {}, 1000)
  try {
    if (!message.case || typeof message.case !== 'object') throw new Error('run command without a case object')
    return { seq, record: await playScenario(message.case) }
  } catch (error) {
    if (error instanceof CannotExpress) return { seq, skip: { reason: error.message } }
    const name = error?.name ?? 'Error'
    return { seq, error: { message: `${name}: ${error?.message ?? String(error)}` } }
  } finally {
    clearInterval(keepAlive)
  }
}

async function main() {
  const lines = createInterface({ input: process.stdin, crlfDelay: Infinity })
  for await (const line of lines) {
    if (!line.trim()) continue
    const reply = await answer(line)
    if (reply === null) break
    process.stdout.write(JSON.stringify(reply) + '\n')
  }
  process.exit(0)
}

// Rejections that escape a case (a tool promise llmz never awaited, say) must not kill the bridge.
process.on('unhandledRejection', (reason) => {
  process.stderr.write(`llmz-node bridge: unhandled rejection: ${reason?.stack ?? reason}\n`)
})

main()
