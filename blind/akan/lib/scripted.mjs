// The case's `script` played as the model behind the LLM adaptor role. It records each request as it
// reaches the model (`model_request`) and each scripted answer (`model_response`), and plays the
// adaptor's own null / Err answers from `setup.provider.answers`.

import { Err } from "../runtime/relay.mjs";
import { recordMessage } from "./record.mjs";

export class ScriptExhausted extends Error {}

export function scriptedModel(c, events, llm) {
  const entries = (c.script ?? []).map((e) => ({ ...e, used: false }));
  const answers = c.setup?.provider?.answers ?? [];
  let calls = 0;
  let turns = 0;

  const take = (purpose) => {
    const entry = entries.find((e) => !e.used && (!e.purpose || e.purpose === purpose));
    calls++;
    if (!entry) {
      const message = `the script has no response for call ${calls}`;
      events.push({ type: "script_exhausted", call: calls, message });
      throw new ScriptExhausted(message);
    }
    entry.used = true;
    return entry;
  };

  const respond = (entry) => {
    if (entry.failure) {
      events.push({ type: "model_response", call: calls, failure: { status: entry.failure.status, message: entry.failure.message ?? "scripted provider failure", retry_after: entry.failure.retry_after ?? null } });
      return { failure: { status: entry.failure.status, message: entry.failure.message ?? "scripted provider failure" } };
    }
    const toolCalls = (entry.tool_calls ?? []).map((t) => ({ name: t.name, arguments: t.arguments ?? {}, ...(t.id ? { id: t.id } : {}) }));
    const response = { type: "model_response", call: calls, text: entry.text ?? "", tool_calls: toolCalls,
      stop_reason: entry.stop_reason ?? (toolCalls.length ? "tool_calls" : "stop"),
      usage: { input_tokens: entry.usage?.input_tokens ?? 0, output_tokens: entry.usage?.output_tokens ?? 0 } };
    if (entry.continuation !== undefined && entry.continuation !== null) response.continuation = entry.continuation;
    events.push(response);
    return { text: entry.text ?? "", toolCalls, chunks: entry.chunks ?? null };
  };

  /** LlmAdaptor.chat for a turn request (what the relay hands the adaptor). */
  async function chat(request, onDelta) {
    turns++;
    const scripted = answers.find((a) => a.turn === turns);
    if (scripted?.returns === "null") return null;
    if (scripted?.returns === "err") throw new Err(scripted.key ?? "error", scripted.values ?? {});
    if (!llm.apiKey) return null; // an adaptor with no apiKey answers "not configured"
    const entry = take("turn");
    events.push({ type: "model_request", call: calls, purpose: "turn", messages: request.messages.map(recordMessage),
      tools: request.tools, screen: request.screen, context: request.context, guides: request.guides,
      provider: providerView(llm), provider_messages: request.providerMessages });
    const answer = respond(entry);
    if (answer.chunks && onDelta && c.setup?.provider?.on_delta !== false) for (const d of answer.chunks) onDelta(d);
    return answer;
  }

  /** A summary call: no tools, no screen, a system instruction and the digest. */
  async function summarize(messages) {
    const entry = take("summary");
    events.push({ type: "model_request", call: calls, purpose: "summary", messages: messages.map((m) => ({ role: m.role, content: m.text })) });
    return respond(entry);
  }

  return { chat, summarize };
}

export function providerView(llm) {
  const view = { name: llm.name };
  if (llm.model) view.model = llm.model;
  if (llm.host) view.host = llm.host;
  return view;
}
