// Where one case's CPU goes, for LLMZ_NODE_CPU_LOG (see bridge.mjs): inside llmz's own calls, inside the
// tokenizer the bridge hands llmz, and in garbage collection. Measuring costs a getrusage per call, so it
// is off (every helper a plain pass-through) unless that variable is set.
import { PerformanceObserver } from 'node:perf_hooks'

export const METERING = Boolean(process.env.LLMZ_NODE_CPU_LOG)

const totals = { llmz: 0, tokenizer: 0, gc: 0 }
const depth = { llmz: 0, tokenizer: 0 }

function cpuMs(since) {
  const used = process.cpuUsage(since)
  return (used.user + used.system) / 1000
}

if (METERING) {
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) totals.gc += entry.duration
  }).observe({ entryTypes: ['gc'] })
}

/**
 * Await `call()` (a call into llmz: execute, summarize, compact, ...) and add the CPU the process spent
 * until it settled to `llmz`. The bridge plays one case at a time, so that is llmz's work plus the host
 * callbacks llmz made meanwhile (the scripted model, hooks, tools, the tokenizer).
 */
export async function inLlmz(call) {
  if (!METERING || depth.llmz > 0) return call()
  const since = process.cpuUsage()
  depth.llmz += 1
  try {
    return await call()
  } finally {
    depth.llmz -= 1
    totals.llmz += cpuMs(since)
  }
}

/** The same as `inLlmz` for synchronous calls into llmz (new Session, fromJSON, append). */
export function inLlmzSync(call) {
  if (!METERING || depth.llmz > 0) return call()
  const since = process.cpuUsage()
  depth.llmz += 1
  try {
    return call()
  } finally {
    depth.llmz -= 1
    totals.llmz += cpuMs(since)
  }
}

/** `fn` with the CPU of each outermost call added to `tokenizer` (a nested call is not counted twice). */
export function meteredTokenizer(fn) {
  if (!METERING) return fn
  return (...args) => {
    if (depth.tokenizer > 0) return fn(...args)
    const since = process.cpuUsage()
    depth.tokenizer += 1
    try {
      return fn(...args)
    } finally {
      depth.tokenizer -= 1
      totals.tokenizer += cpuMs(since)
    }
  }
}

/**
 * The totals since the last call (milliseconds, rounded to 0.1), then zero them for the next case. Called
 * between cases, so an llmz call still pending then (one the bridge gave up on) no longer counts as open.
 */
export function takeTotals() {
  depth.llmz = 0
  depth.tokenizer = 0
  const out = {}
  for (const key of Object.keys(totals)) {
    out[`${key}_ms`] = Math.round(totals[key] * 10) / 10
    totals[key] = 0
  }
  return out
}
