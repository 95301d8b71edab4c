// Model references: how scenario model ids become references llmz accepts, and back.

export const SCRIPTED_PROVIDER = 'scripted'

/**
 * llmz accepts only 'best' / 'fast' / 'auto' or 'provider:model' as model references, while scenarios
 * name models freely ('scripted'); a bare id is given the provider prefix `scripted:`.
 */
export function llmzModelRef(id) {
  return id.includes(':') || ['best', 'fast', 'auto'].includes(id) ? id : `${SCRIPTED_PROVIDER}:${id}`
}

/** The scenario's own name for a model reference (the inverse of llmzModelRef). */
export function scenarioModelId(ref) {
  return typeof ref === 'string' && ref.startsWith(`${SCRIPTED_PROVIDER}:`) ? ref.slice(SCRIPTED_PROVIDER.length + 1) : ref
}
