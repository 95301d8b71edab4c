// Scenario JSON Schemas -> zui schemas, the way llmz itself converts JSON Schema.
//
// llmz's own helper tries zui's legacy transform first and falls back to the newer one, because the two
// disagree on some shapes (the newer one drops a bare `enum` without `type`); the bridge does the same. A
// schema neither transform accepts cannot be expressed, so the case is skipped with the schema's owner.
import { transforms } from '@bpinternal/zui'

import { CannotExpress } from './errors.mjs'

export function toZui(schema, owner) {
  try {
    return transforms.fromJSONSchemaLegacy(schema)
  } catch {
    try {
      return transforms.fromJSONSchema(schema)
    } catch (error) {
      throw new CannotExpress(`the JSON Schema of ${owner} (${error.message})`)
    }
  }
}
