// Keeping the transcript across reloads (guideline, "Mounting The Chat" `persist`, and "Attachments
// And Speech": only attachment names survive a save).
//
// What is stored is this runtime's own message shape. `decode` reads back whatever storage holds and
// refuses anything that is not a message rather than trusting it; the caller then sanitizes.

import { forStorage, } from "./attachments.mjs";
import { sanitize } from "./transcript.mjs";

const ROLES = new Set(["user", "assistant", "tool", "local"]);

export function encode(messages, cap) {
  let kept = messages.map((m) => (m.attachments ? { ...m, attachments: m.attachments.map(forStorage) } : { ...m }));
  if (cap !== undefined && cap !== null) kept = sanitize(cap === 0 ? [] : kept.slice(-cap));
  return kept;
}

/** Messages from a stored value; a value that is not a list of messages restores nothing. */
export function decode(stored) {
  if (!Array.isArray(stored)) return [];
  const out = [];
  for (const raw of stored) {
    if (!raw || typeof raw !== "object" || !ROLES.has(raw.role)) continue;
    const m = { role: raw.role, text: typeof raw.text === "string" ? raw.text : "" };
    if (Array.isArray(raw.toolCalls)) {
      m.toolCalls = raw.toolCalls.filter((c) => c && typeof c.id === "string" && typeof c.name === "string")
        .map((c) => ({ id: c.id, name: c.name, args: c.args && typeof c.args === "object" ? c.args : {} }));
    }
    if (typeof raw.callId === "string") m.callId = raw.callId;
    if (raw.role === "tool" && m.callId === undefined) continue;
    if (typeof raw.error === "string") m.error = raw.error;
    if (raw.summary === true) m.summary = true;
    if (Array.isArray(raw.attachments)) m.attachments = raw.attachments.filter((a) => a && typeof a.name === "string").map(forStorage);
    out.push(m);
  }
  return sanitize(out);
}
