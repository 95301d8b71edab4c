// Mapping the runtime's own messages and events onto the documented record
// (spec/protocol/records/akan.md). The runtime's message text is `text` (the guideline's wire field);
// the record calls it `content`.

/** A runtime message, or a wire message, in the record's message shape. */
export function recordMessage(m) {
  const out = { role: m.role, content: m.text ?? "" };
  if (m.attachments?.length) out.attachments = m.attachments.map((a) => ({ ...a }));
  if (m.summary) out.summary = true;
  const calls = m.toolCalls ?? m.tool_calls;
  if (calls?.length) out.tool_calls = calls.map((c) => ({ id: c.id, name: c.name, arguments: c.args ?? c.arguments ?? {} }));
  const callId = m.callId ?? m.tool_call_id;
  if (callId !== undefined) out.tool_call_id = callId;
  if (m.error !== undefined) out.error = m.error;
  return out;
}

/** A record message (setup.stored) in the runtime's storage shape. */
export function fromRecordMessage(m) {
  if (!m || typeof m !== "object") return m;
  const out = { role: m.role };
  if ("content" in m) out.text = m.content;
  if (Array.isArray(m.tool_calls)) out.toolCalls = m.tool_calls.map((c) => (c && typeof c === "object" ? { id: c.id, name: c.name, args: c.arguments ?? {} } : c));
  if (m.tool_call_id != null) out.callId = m.tool_call_id;
  if (m.error != null) out.error = m.error;
  if (m.summary) out.summary = true;
  if (m.attachments) out.attachments = m.attachments;
  return out;
}

/** One runtime event as zero or more record events. */
export function recordEvents(type, d) {
  switch (type) {
    case "status": return [{ type: "status", running: d.isRunning, compacting: d.isCompacting }];
    case "relay": {
      const base = { type: "relay", turn: d.turn, accept: d.accept, path: d.streaming ? "sse" : "json", outcome: d.outcome };
      if (d.outcome === "refused") base.refused_by = d.refusedBy;
      if (d.outcome === "error") base.error = d.error;
      if (d.outcome === "failed") base.status = d.status;
      if (d.outcome === "relayed") { base.tool_calls = (d.answer.toolCalls ?? []).map((c) => c.name); base.deltas = d.deltas; }
      return [base];
    }
    case "toolCall": return [{ type: "tool_call", id: d.call.id, name: d.call.name, arguments: d.call.args }];
    case "toolResult": return [{ type: "tool_result", id: d.call.id, name: d.call.name, content: d.text }];
    case "turnLimit": return [{ type: "turn_limit", max_turns: d.maxTurns }];
    case "turnFailed": return [{ type: "turn_failed", status: d.status, message: d.message, ...(d.key ? { key: d.key } : {}) }];
    case "question": return [{ type: "question", id: d.callId, text: d.text }];
    case "turnStopped": return [{ type: "turn_stopped", calls: d.callIds }];
    case "inputRefused": return [{ type: "input_refused", text: d.text, reason: d.reason }];
    case "promptCalled": return [{ type: "prompt_called", name: d.name, args: d.args }];
    case "promptDenied": return [{ type: "prompt_denied", name: d.name, status: d.status }];
    case "restored": return [{ type: "restored", transcript: d.messages.map(recordMessage) }];
    case "compaction": {
      const base = { type: "compaction", trigger: d.trigger, outcome: d.outcome };
      if (d.outcome === "summarized") Object.assign(base, { summarized: d.summarized, kept: d.kept, estimate_before: d.before, estimate_after: d.after });
      if (d.outcome === "failed") base.status = d.status;
      return [base];
    }
    case "attachmentAdded": return [{ type: "attachment_added", name: d.attachment.name, kind: d.attachment.kind, size: d.attachment.size }];
    case "attachmentRefused": return [{ type: "attachment_refused", name: d.name, reason: d.reason, text: d.text }];
    case "export": return [{ type: "export", route: d.route, at: d.at, messages: d.messages.map(recordMessage) }];
    case "toolRow": return [{ type: "tool_row", id: d.callId, name: d.name, tokens: d.tokens, result: d.result }];
    case "settle": return [{ type: "settle", phase: d.phase }];
    case "toolRun": return [{ type: "tool_run", id: d.callId ?? null, name: d.name, phase: d.phase }];
    case "composer": {
      const e = { type: "composer", key: d.key, text: d.text, caret_line: d.caretLine, rows: d.rows, scrolls: d.scrolls, menu: d.menu, panel_open: d.panelOpen };
      if (d.picked !== undefined) e.picked = d.picked;
      if (d.captured !== undefined) e.captured = d.captured;
      return [e];
    }
    case "draft": return [{ type: "draft", text: d.text, voiced: d.voiced }];
    case "speechCancelled": return [{ type: "speech_cancelled", by: d.by, unspoken: d.unspoken }];
    case "openChange": return [{ type: "open_change", open: d.open, controlled: d.controlled }];
    case "viewport": return [{ type: "viewport", width: d.width, keyboard: d.keyboard, layout: d.layout, lift: d.lift }];
    default: throw new Error(`no record mapping for runtime event ${type}`);
  }
}
