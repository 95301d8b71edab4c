// The server side of a turn: the LLM adaptor role and AgentService's two preparations
// (guideline, "Mounting The Chat" and "Attachments And Speech").
//
// `llmConfig` is what `option.setLlm` / `option.applyAdaptor` leave behind: DeepSeek by default
// (deepseek-v4-flash at https://api.deepseek.com); settings belong to the role, so they reach whichever
// adaptor holds it. `explained` folds a failed turn's `error` into its text; `readable` degrades
// attachments the adaptor does not accept; a summary becomes a system message for the provider.

import { readableParts } from "./attachments.mjs";

export const DEFAULT_LLM = { name: "deepseek", model: "deepseek-v4-flash", host: "https://api.deepseek.com", accepts: { image: false, document: false } };

/**
 * @param {{name?: string, settings?: {model?: string, host?: string}, accepts?: object, apiKey?: string|null}} option
 */
export function llmConfig(option = {}) {
  const base = option.name ? { name: option.name, accepts: { image: false, document: false } } : { ...DEFAULT_LLM };
  const config = { ...base };
  if (option.settings?.model) config.model = option.settings.model;
  if (option.settings?.host) config.host = option.settings.host;
  if (option.accepts) config.accepts = { image: !!option.accepts.image, document: !!option.accepts.document };
  config.apiKey = option.apiKey ?? null;
  return config;
}

/** AgentService.explained: an assistant turn that failed says so in its text. */
export function explained(wireMessage) {
  if (wireMessage.error === undefined) return wireMessage;
  const { error, ...rest } = wireMessage;
  const text = rest.text ? `${rest.text}\n[this turn failed: ${error}]` : `[this turn failed: ${error}]`;
  return { ...rest, text };
}

/** The wire conversation in the provider dialect ({role, content}). */
export function toProviderMessages(wire, accepts) {
  return wire.map((m0) => {
    const m = explained(m0);
    if (m.summary) return { role: "system", content: m.text };
    if (m.role === "user" && m.attachments?.length) {
      return { role: "user", content: [{ type: "text", text: m.text }, ...readableParts(m.attachments, accepts)] };
    }
    const out = { role: m.role, content: m.text };
    if (m.tool_calls) out.tool_calls = m.tool_calls;
    if (m.tool_call_id !== undefined) out.tool_call_id = m.tool_call_id;
    return out;
  });
}
