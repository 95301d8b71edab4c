// The `probe` step: asks llmz 1.0.1's host API a question and records the answer as one `probe` event.
//
// Each probe maps to the llmz call it names (conformance/scenario/llmz_probes.py): the guards
// (`isLLMzError`, each class's static `is`, called detached, `ThinkSignal.is`), `iteration.error` /
// `iteration.exception`, `result.diagnostics()` / `result.toJSON()`, `session.toJSON()`, a standalone
// `component.render(props)`. The "second, independently loaded copy" of llmz is its CommonJS build,
// loaded beside the ES module build this bridge imports: separate classes, which is exactly the
// dual-package situation the shared brand is for. Answers are llmz's own values; nothing is judged here.
import { createRequire } from 'node:module'

import * as llmz from 'llmz'

import { CannotExpress } from './errors.mjs'
import { CLASS_BY_CODE, errorFields } from './observe.mjs'
import { toZui, withEffects } from './schema.mjs'

const require = createRequire(import.meta.url)

let secondCopy = null
/** llmz loaded a second time (its CommonJS build): distinct classes from the module the bridge uses. */
function otherCopy() {
  secondCopy ??= require('llmz')
  return secondCopy
}

const otherCode = (code) => (code !== 'INTERNAL_ERROR' ? 'INTERNAL_ERROR' : 'INVALID_CODE')

/** The static `is` of the class of `code`, taken off its class (detached) before it is called. */
function classGuard(code) {
  const guard = llmz[CLASS_BY_CODE[code]]?.is
  return (value) => (typeof guard === 'function' ? Boolean(guard(value)) : false)
}

const isError = (value, code) => Boolean(llmz.isLLMzError(value, code))

function pair(value, code, prefix) {
  return { [`${prefix}is_llmz_error`]: isError(value, code), [`${prefix}class_guard`]: classGuard(code)(value) }
}

/** A genuine failure copied with its prototype and own fields, then given another name and message. */
function renamed(failure) {
  const copy = Object.create(Object.getPrototypeOf(failure))
  Object.defineProperties(copy, Object.getOwnPropertyDescriptors(failure))
  for (const [key, value] of [['name', 'Error'], ['message', 'renamed by the host']]) {
    Object.defineProperty(copy, key, { value, writable: true, configurable: true, enumerable: false })
  }
  return copy
}

function classifyFailure(failure) {
  const code = failure.code
  const fields = { name: CLASS_BY_CODE[code] ?? failure.name, code, message: failure.message, critical: failure.critical }
  const parsed = JSON.parse(JSON.stringify(fields))
  const forged = Object.assign(new Error(failure.message), fields)
  return {
    code: String(code),
    is_llmz_error: isError(failure, code),
    other_code: isError(failure, otherCode(code)),
    class_guard: classGuard(code)(failure),
    other_class_guard: classGuard(otherCode(code))(failure),
    renamed: classGuard(code)(renamed(failure)),
    ...pair(parsed, code, 'json_'),
    ...pair(forged, code, 'forged_'),
  }
}

function foreignFailure() {
  const other = otherCopy()
  let made = null
  try {
    new other.Session().append({ role: 42 })
  } catch (error) {
    made = error
  }
  const code = made?.code ?? 'none'
  const own = llmz[CLASS_BY_CODE[code]]
  return {
    code: String(code),
    is_instance: typeof own === 'function' && made instanceof own,
    is_llmz_error: isError(made, code),
    class_guard: classGuard(code)(made),
    other_class_guard: classGuard(otherCode(code))(made),
  }
}

function thinkSignal() {
  return {
    local: Boolean(llmz.ThinkSignal.is(new llmz.ThinkSignal('look'))),
    foreign: Boolean(llmz.ThinkSignal.is(new (otherCopy().ThinkSignal)('look'))),
    plain: Boolean(llmz.ThinkSignal.is(new Error('look'))),
  }
}

function* objects(value) {
  if (Array.isArray(value)) {
    for (const item of value) yield* objects(item)
  } else if (value !== null && typeof value === 'object') {
    yield value
    for (const item of Object.values(value)) yield* objects(item)
  }
}

function parsedDiagnostics(result) {
  const coded = [...objects(JSON.parse(JSON.stringify(result.diagnostics())))].filter((o) => typeof o.code === 'string')
  const accepted = coded.filter((o) => CLASS_BY_CODE[o.code] && (isError(o, o.code) || classGuard(o.code)(o)))
  return { coded: coded.length, accepted: accepted.length }
}

/** `result.error` and every iteration's `exception` and `errors`, each object once. */
function failuresOf(result) {
  const found = []
  const candidates = [result.isError() ? result.error : null]
  for (const iteration of result.iterations) candidates.push(iteration.exception, ...(iteration.errors ?? []))
  for (const candidate of candidates) {
    if (candidate && typeof candidate === 'object' && 'code' in candidate && !found.includes(candidate)) found.push(candidate)
  }
  return found
}

function iterationFields(iteration, index) {
  const exception = iteration.exception
  let described = null
  if (exception !== null && exception !== undefined) {
    const code = exception.code ?? exception.name ?? String(exception)
    described = { code: String(code), typed: isError(exception, code) }
    if (typeof exception.stacktrace === 'string') described.stacktrace = exception.stacktrace
  }
  return { index: index + 1, error: iteration.error ?? null, exception: described }
}

const thrown = (error) => {
  const { code, class: name, recoverable, message } = errorFields(error)
  return { code, class: name, recoverable, message }
}

function render(state, step) {
  const spec = (state.setup.chat?.components ?? []).find((component) => component.name === step.component)
  if (!spec) throw new Error(`probe render: component ${JSON.stringify(step.component)} is not in setup.chat.components`)
  const component = new llmz.Component({
    name: spec.name,
    description: spec.description || spec.name,
    props: withEffects(toZui(spec.props ?? { type: 'object' }, `component ${spec.name} props`), spec.effects),
    handler: () => {},
  })
  try {
    return { rendered: structuredClone(component.render(structuredClone(step.props ?? null)).props) }
  } catch (error) {
    return { error: thrown(error) }
  }
}

/**
 * How a host makes each exported error class whose catalogue entry the `error_class` probe pins: llmz's
 * constructor takes the message first, then the class's own documented fields.
 */
const CONSTRUCTORS = {
  CodeFormattingError: (Class, message, fields) => new Class(message, fields.source),
  InternalError: (Class, message, fields) => new Class(message, fields.cause === undefined ? undefined : { cause: new Error(fields.cause) }),
  SessionStateError: (Class, message) => new Class(message),
}

/** `new <error_class>(message, ...fields)` through llmz's exports, and what the made failure carries. */
function constructed(step) {
  const Class = llmz[step.error_class]
  if (typeof Class !== 'function') return { exported: false }
  const make = CONSTRUCTORS[step.error_class]
  if (!make) throw new CannotExpress(`probe error_class ${step.error_class} (no constructor mapping)`)
  const fields = step.fields ?? {}
  const made = make(Class, step.message ?? 'made by the host', fields)
  const carried = {}
  for (const key of Object.keys(fields)) {
    const value = made[key]
    carried[key] = value instanceof Error ? value.message : value ?? null
  }
  return {
    exported: true,
    code: String(made.code),
    critical: made.critical,
    fields: carried,
    class_guard: classGuard(made.code)(made),
  }
}

/** The fields of the `probe` event answering `step` (after the steps before it have played). */
export function probe(state, step) {
  const fields = { probe: step.probe }
  const result = state.lastResult
  switch (step.probe) {
    case 'snapshot': {
      let snapshot
      try {
        snapshot = JSON.parse(JSON.stringify(state.session.toJSON()))
      } catch (error) {
        return { ...fields, error: thrown(error) }
      }
      return { ...fields, snapshot, ...(snapshot?.version === undefined ? {} : { version: snapshot.version }) }
    }
    case 'render':
      return { ...fields, ...render(state, step) }
    case 'error_class':
      return { ...fields, constructed: constructed(step) }
    case 'legacy':
      return {
        ...fields,
        legacy: {
          snapshot_signal: 'SnapshotSignal' in llmz,
          snapshot_class: 'Snapshot' in llmz,
          result_snapshot: result?.snapshot !== undefined && result?.snapshot !== null,
        },
      }
    default:
      break
  }
  if (!result) throw new Error(`probe ${step.probe} needs an earlier execute step`)
  if (step.probe === 'guards') {
    return {
      ...fields,
      failures: failuresOf(result).map(classifyFailure),
      foreign: foreignFailure(),
      think_signal: thinkSignal(),
      parsed_diagnostics: parsedDiagnostics(result),
    }
  }
  if (step.probe === 'iterations') return { ...fields, iterations: result.iterations.map(iterationFields) }
  return {
    ...fields,
    diagnostics: JSON.parse(JSON.stringify(result.diagnostics())),
    summary: JSON.parse(JSON.stringify(result.toJSON())),
  }
}
