// What llmz sends its model, as a record's `model_request` fields.
//
// The record uses the reference's request vocabulary (spec/protocol/records/llmz.md): `model`, `messages`
// (the system prompt first, then native messages), `tools` (`{name, description, input_schema}`),
// `tool_choice` (`{type: "required", name}` for workers, `{type: "auto"}` for chat) and `max_tokens` (the
// output reserve). llmz's native spellings (`parameters`, `toolControl.mode`, `maxTokens`) are renamed,
// never reinterpreted; provider bookkeeping that varies between runs is left out.
import { scenarioModelId } from './models.mjs'
import { nativeMessage } from './observe.mjs'

function toolChoice(toolControl, tools) {
  if (!toolControl) return null
  if (toolControl.mode === 'required') {
    const only = tools.length === 1 ? tools[0].name : undefined
    return only ? { type: 'required', name: only } : { type: 'required' }
  }
  return { type: toolControl.mode }
}

export function normalizeRequest(input) {
  const tools = (input.tools ?? []).map((tool) => ({
    name: tool.name,
    description: tool.description,
    input_schema: tool.parameters ?? tool.input_schema ?? null,
  }))
  const model = Array.isArray(input.model) ? input.model.map(scenarioModelId) : scenarioModelId(input.model)
  return {
    model,
    messages: (input.messages ?? []).map(nativeMessage),
    tools,
    tool_choice: toolChoice(input.toolControl, tools),
    max_tokens: input.maxTokens,
  }
}
