// The transcript: the chat's messages, what of them goes on the wire, and the one invariant repair.
//
// A message is {role, text, ...}: role is "user", "assistant", "tool" or "local" (a note the chat
// writes to itself: shown, never posted). An assistant message may carry `toolCalls` [{id, name, args}]
// and `error` (a failed turn); a tool message carries `callId`; a user message may carry `attachments`
// and `summary` (a compaction summary standing in for older history).
//
// Guideline, "Slash Commands And The Transcript": the wire is the transcript less local messages, and its
// message text travels as `text` (a provider mapping reads `text`; `error` exists on this wire alone).

/** @typedef {{id: string, name: string, args: Record<string, unknown>}} ToolCall */
/** @typedef {{role: "user"|"assistant"|"tool"|"local", text: string, toolCalls?: ToolCall[], callId?: string,
 *   error?: string, summary?: boolean, attachments?: object[]}} Message */

export const isLocal = (m) => m.role === "local";

/** One message as posted to runAgentTurn. */
export function toWire(m) {
  /** @type {Record<string, unknown>} */
  const w = { role: m.role, text: m.text ?? "" };
  if (m.attachments?.length) w.attachments = m.attachments;
  if (m.summary) w.summary = true;
  if (m.toolCalls?.length) w.tool_calls = m.toolCalls.map((c) => ({ id: c.id, name: c.name, arguments: c.args ?? {} }));
  if (m.callId !== undefined) w.tool_call_id = m.callId;
  if (m.error !== undefined) w.error = m.error;
  return w;
}

export const wireOf = (messages) => messages.filter((m) => !isLocal(m)).map(toWire);

/** Estimated tokens: the length of the posted JSON divided by four, rounded up. */
export const estimateTokens = (wire) => Math.ceil(JSON.stringify(wire).length / 4);

export const STOPPED_TEXT = "stopped: this call was interrupted before it returned a result; call it again if it is still needed";

/**
 * Transcript.sanitize: every assistant call answered by a tool message in the run right after it, and no
 * tool message without its call directly above its run. A missing answer is written (the model then asks
 * again), an orphan result is dropped. Local messages are transparent: they are not on the wire.
 * @param {Message[]} messages
 * @returns {Message[]} a new array
 */
export function sanitize(messages) {
  const out = [];
  /** @type {ToolCall[] | null} the calls of the assistant message whose result run is open */
  let open = null;
  let answered = new Set();
  const closeRun = () => {
    if (!open) return;
    for (const call of open) if (!answered.has(call.id)) out.push({ role: "tool", callId: call.id, text: STOPPED_TEXT });
    open = null;
  };
  for (const m of messages) {
    if (isLocal(m)) { out.push(m); continue; }
    if (m.role === "tool") {
      if (open && open.some((c) => c.id === m.callId) && !answered.has(m.callId)) { answered.add(m.callId); out.push(m); }
      continue;
    }
    closeRun();
    out.push(m);
    if (m.role === "assistant" && m.toolCalls?.length) { open = m.toolCalls; answered = new Set(); }
  }
  closeRun();
  return out;
}
