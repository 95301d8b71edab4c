import { scenarioModelId } from './models.mjs'

// What llmz sends its model, normalised into record fields.
//
// The record keeps llmz's native request as observable wire data: the message list (role, content, and the
// native tool-call / tool-result fields), the tool declarations, tool control and the output allowance.
// Provider bookkeeping that changes between runs (request ids, abort signals) is left out.

/** One native message as recorded: role, content, and native call/result fields when present. */
export function normalizeMessage(message) {
  const out = { role: message.role, content: message.content ?? null }
  if (message.type !== undefined) out.type = message.type
  if (Array.isArray(message.toolCalls)) {
    out.tool_calls = message.toolCalls.map((call) => ({
      id: call.id,
      name: call.function?.name ?? call.name,
      ...(call.function?.arguments ?? call.input ?? {}),
    }))
  }
  if (message.toolResultCallId !== undefined) out.tool_result_call_id = message.toolResultCallId
  return out
}

export function normalizeRequest(input) {
  const messages = (input.messages ?? []).map(normalizeMessage)
  const system = messages.filter((message) => message.role === 'system').map((message) => message.content)
  return {
    model: scenarioModelId(input.model),
    temperature: input.temperature,
    system: system.join('\n\n'),
    messages: messages.filter((message) => message.role !== 'system'),
    tools: (input.tools ?? []).map((tool) => ({ name: tool.name, description: tool.description, parameters: tool.parameters })),
    tool_control: input.toolControl ?? null,
    max_tokens: input.maxTokens,
  }
}
