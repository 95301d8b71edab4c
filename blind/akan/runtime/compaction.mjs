// Compaction (guideline, "Slash Commands And The Transcript", the long-conversation paragraph).
//
// Before a turn would post more than `at` estimated tokens, the wire history above the newest `keep`
// messages is replaced by one summary message (a user-role message flagged `summary`). `/compact` runs
// it on request with keep = 0. The cut never opens the kept part on a tool result: where the tail
// holds a user message the kept part starts there; where it holds none (one assistant turn that ran many
// tools) it starts at the assistant message that made the calls. The summarizer gets no tools and no
// screen, and a bounded digest rather than the transcript. A failed summary changes nothing and the next
// turn asks again; a summary that landed without making the transcript smaller holds auto-compaction
// off until the estimate has grown by one more threshold.

import { isLocal } from "./transcript.mjs";

export const DEFAULT_AT = 24000;
export const DEFAULT_KEEP = 6; // the guideline gives no default for keep; six is this runtime's choice
const DIGEST_LIMIT = 12000;
const PER_MESSAGE = 600;

/**
 * Index (into the wire messages) where the kept part starts.
 * @param {object[]} wire messages (no local ones)
 */
export function cutIndex(wire, keep) {
  let start = Math.max(0, wire.length - keep);
  if (start >= wire.length) return wire.length;
  const firstUser = wire.findIndex((m, i) => i >= start && m.role === "user" && !m.summary);
  if (firstUser >= 0) return firstUser;
  while (start > 0 && wire[start].role === "tool") start--;
  return start;
}

/** A bounded digest of the messages being summarized. */
export function digest(messages) {
  const lines = [];
  let used = 0;
  for (const m of messages) {
    let line = `${m.summary ? "earlier summary" : m.role}: ${m.text ?? ""}`;
    if (m.toolCalls?.length) line += ` [called ${m.toolCalls.map((c) => c.name).join(", ")}]`;
    if (m.error) line += ` [failed: ${m.error}]`;
    if (line.length > PER_MESSAGE) line = line.slice(0, PER_MESSAGE) + "…";
    if (used + line.length > DIGEST_LIMIT) { lines.push("… (older lines omitted)"); break; }
    lines.push(line);
    used += line.length + 1;
  }
  return lines.join("\n");
}

export const SUMMARY_INSTRUCTION =
  "Summarize the conversation below for yourself, to continue it later: the user's goals, decisions made, facts learned from tools, and anything still open. Be brief and factual.";

/**
 * Split the transcript for a compaction keeping `keep` wire messages.
 * @returns {{head: object[], tail: object[], locals: object[]}} head: wire messages to summarize
 */
export function split(transcript, keep) {
  const wire = transcript.filter((m) => !isLocal(m));
  const cut = cutIndex(wire, keep);
  const head = wire.slice(0, cut);
  const headSet = new Set(head);
  const locals = [];
  const tail = [];
  for (const m of transcript) {
    if (headSet.has(m)) continue;
    if (isLocal(m) && tail.length === 0) locals.push(m); else tail.push(m);
  }
  return { head, tail, locals };
}
