// Scenario JSON Schemas -> zui schemas, the way llmz itself converts JSON Schema.
//
// llmz's own helper tries zui's legacy transform first and falls back to the newer one, because the two
// disagree on some shapes (the newer one drops a bare `enum` without `type`); the bridge does the same.
//
// One gap is closed first: in JSON Schema an object admits properties it does not list unless it says
// `additionalProperties: false`, but both transforms build a zod object that silently strips them. The
// scenarios are written in JSON Schema, so objects that leave `additionalProperties` unsaid are given
// `additionalProperties: true` before conversion, and values keep the keys their schema allows.
//
// A schema neither transform accepts cannot be expressed, so the case is skipped naming its owner.
import { transforms } from '@bpinternal/zui'

import { CannotExpress } from './errors.mjs'

export function toZui(schema, owner) {
  const open = openObjects(schema)
  try {
    return transforms.fromJSONSchemaLegacy(open)
  } catch {
    try {
      return transforms.fromJSONSchema(open)
    } catch (error) {
      throw new CannotExpress(`the JSON Schema of ${owner} (${error.message})`)
    }
  }
}

const NESTED_MAPS = ['properties', 'patternProperties', '$defs', 'definitions']
const NESTED_LISTS = ['allOf', 'anyOf', 'oneOf', 'prefixItems']
const NESTED_ONE = ['items', 'not', 'if', 'then', 'else', 'additionalProperties', 'contains']

/** A copy of `schema` where every object schema without `additionalProperties` allows extra keys. */
export function openObjects(schema) {
  if (!schema || typeof schema !== 'object' || Array.isArray(schema)) return schema
  const out = { ...schema }
  for (const key of NESTED_MAPS) {
    if (out[key] && typeof out[key] === 'object') {
      out[key] = Object.fromEntries(Object.entries(out[key]).map(([name, sub]) => [name, openObjects(sub)]))
    }
  }
  for (const key of NESTED_LISTS) if (Array.isArray(out[key])) out[key] = out[key].map(openObjects)
  for (const key of NESTED_ONE) {
    if (Array.isArray(out[key])) out[key] = out[key].map(openObjects)
    else if (out[key] && typeof out[key] === 'object') out[key] = openObjects(out[key])
  }
  const isObject = out.type === 'object' || (out.type === undefined && out.properties !== undefined)
  if (isObject && out.additionalProperties === undefined) out.additionalProperties = true
  return out
}

/**
 * `schema` with the scenario's declarative effects (conformance/scenario/llmz.py, SchemaEffect) chained on
 * in order, as a host would write them in zod: `trim` and `assign`/`replace`/`counts` are transforms,
 * `refine` a superRefine adding an issue at `[field]`, `throws` a transform whose callback throws. With
 * `async` the callback returns a promise.
 */
export function withEffects(schema, effects) {
  let out = schema
  for (const effect of effects ?? []) {
    const wrap = (fn) => (effect.async ? async (...args) => fn(...args) : fn)
    if (effect.refine) {
      const { field, forbid, message } = effect.refine
      out = out.superRefine(
        wrap((value, ctx) => {
          if (isPlainObject(value) && Object.hasOwn(value, field) && sameJson(value[field], forbid)) {
            ctx.addIssue({ code: 'custom', path: [field], message })
          }
        }),
      )
      continue
    }
    let runs = 0
    out = out.transform(
      wrap((value) => {
        if (effect.throws !== undefined) throw new Error(effect.throws)
        if (Object.hasOwn(effect, 'replace')) return structuredClone(effect.replace)
        if (!isPlainObject(value)) return value
        if (effect.trim !== undefined) {
          const field = value[effect.trim]
          return typeof field === 'string' ? { ...value, [effect.trim]: field.trim() } : value
        }
        if (effect.counts !== undefined) return { ...value, [effect.counts]: (runs += 1) }
        return { ...value, ...structuredClone(effect.assign) }
      }),
    )
  }
  return out
}

function isPlainObject(value) {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
}

function sameJson(left, right) {
  return JSON.stringify(left) === JSON.stringify(right)
}
