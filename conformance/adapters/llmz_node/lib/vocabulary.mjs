// The scenario vocabulary this bridge knows how to play, field by field.
//
// It mirrors conformance/scenario/llmz.py and common.py (tests/test_llmz_node_vocabulary.py fails when
// they drift apart). Before anything runs, `checkScenario` walks the scenario and answers the first field
// the bridge has no mapping for with CannotExpress, so a new feature in the suite becomes a skip that
// names it, never a case that passes because the bridge silently ignored part of it.
import { CannotExpress } from './errors.mjs'
import { HOST_CALL_STEPS } from './host-calls.mjs'

/** Structure name -> the keys (wire spelling) the bridge maps onto llmz. */
export const VOCABULARY = {
  Scenario: ['id', 'system', 'requires', 'setup', 'script', 'steps'],
  ScriptEntry: ['purpose', 'text', 'tool_calls', 'json', 'stop_reason', 'usage', 'failure', 'chunks', 'stream_break',
    'continuation', 'first_chunk_delay_ms'],
  StreamBreak: ['after', 'calls_after', 'message'],
  ScriptedToolCall: ['name', 'code', 'arguments', 'id'],
  Usage: ['input_tokens', 'output_tokens'],
  ScriptedFailure: ['status', 'message', 'retry_after'],
  Setup: ['tools', 'exits', 'chat', 'hooks', 'models', 'compaction', 'options', 'memory', 'objects',
    'record_context_tokens', 'tool_clones'],
  ToolCloneSpec: ['of', 'name'],
  ObjectSpec: ['name', 'description', 'properties'],
  ObjectProperty: ['name', 'value', 'schema', 'writable', 'effects'],
  MemorySpec: ['variables', 'max_bytes'],
  ToolSpec: ['name', 'description', 'input', 'output', 'input_effects', 'output_effects', 'behaviour', 'retries',
    'from_iteration', 'handler'],
  SchemaEffect: ['trim', 'refine', 'assign', 'replace', 'throws', 'counts', 'async'],
  RefineSpec: ['field', 'forbid', 'message'],
  ToolBehaviour: [
    'returns', 'returns_input', 'throws', 'think_signal', 'hangs', 'cancels', 'session_probe', 'truncate',
    'fail_first', 'fail_message', 'cancel_first', 'cancel_reason',
  ],
  SessionProbe: ['op', 'messages'],
  ThinkSignalSpec: ['reason', 'context', 'via'],
  TruncateSpec: ['max_tokens', 'preserve'],
  ExitSpec: ['name', 'description', 'schema', 'effects'],
  ChatSpec: ['text_handler', 'components', 'on_delta', 'response', 'legacy'],
  LegacyChatSpec: ['handler', 'transcript'],
  LegacyExecuteSpec: ['messages'],
  LegacyMessage: ['role', 'content'],
  ResponseSpec: ['form', 'preset', 'instructions'],
  ComponentSpec: ['name', 'description', 'props', 'effects', 'handler', 'bind', 'report_metadata', 'aliases'],
  HooksSpec: [
    'on_exit', 'after_tool', 'before_tool', 'on_inspect', 'before_request', 'before_execution',
    'on_iteration_start', 'on_iteration_end', 'on_trace', 'iteration_start_returns',
  ],
  OnInspectHook: ['action', 'text', 'record', 'when'],
  BeforeRequestHook: ['append', 'mutate', 'from_call'],
  RequestMessage: ['role', 'content'],
  AfterToolHook: ['tool', 'replace_output', 'reject', 'abort', 'think_signal'],
  BeforeToolHook: ['tool', 'replace_input'],
  ModelSpec: ['id', 'input_tokens', 'output_tokens', 'audio'],
  CompactionSpec: ['trigger_ratio', 'target_ratio', 'keep_recent_iterations', 'max_summary_tokens', 'model', 'summarize'],
  SummarizeCallback: ['returns'],
  ExecuteOptions: ['loop', 'timeout', 'require_chat_response', 'max_tokens', 'tool_result_max_tokens', 'mid_stream_fallback',
    'max_time_to_first_token', 'transcription_model'],
  AppendStep: ['op', 'messages', 'single', 'mutate_after', 'non_json'],
  AppendMessage: ['role', 'content', 'name', 'payload', 'attachments', 'modality'],
  ExecuteStep: ['op', 'mode', 'instructions', 'exits', 'options', 'give_up_after', 'session', 'legacy'],
  SaveAndRestoreStep: ['op', 'drop_delivery_tracking', 'unknown_version', 'older_version', 'from_result', 'tamper'],
  CompactStep: ['op', 'keep_recent_iterations', 'signal'],
  SummarizeStep: ['op', 'signal'],
  RequestMessagesStep: ['op', 'memory', 'retained_iterations'],
  PruneStep: ['op', 'retained_iterations'],
  IterationRef: ['execution', 'index'],
  TamperAccessorsStep: ['op'],
  InspectStep: ['op', 'via', 'value', 'max_tokens', 'compact', 'purpose', 'preserve'],
  RenderStep: ['op', 'component', 'props', 'change_input', 'change_rendered'],
  ApiSurfaceStep: ['op', 'names'],
  DefinitionJsonStep: ['op', 'tool', 'exit'],
  DefaultComponentsStep: ['op'],
  ResultContentsStep: ['op'],
  ProbeStep: ['op', 'probe', 'component', 'props', 'error_class', 'message', 'fields'],
}

/** Fields the suite knows but this bridge cannot express on llmz 1.0.1 (unless set to `unless`), and why. */
export const INEXPRESSIBLE = {}

/**
 * Fields that may hold a value written invalid on purpose, `{invalid: <raw>, why}` (conformance/scenario/
 * invalid.py). `check` replaces such a marker with its raw value, so llmz receives exactly what the scenario
 * wrote (`maxTokens: true`, a component named `product-card`) and refuses it itself. Elsewhere the suite
 * refuses a marker at load, and free JSON (a tool's `returns`) is data, never a marker.
 */
export const REFUSABLE = [
  'ExecuteOptions.max_tokens', 'ExecuteOptions.tool_result_max_tokens', 'TruncateSpec.max_tokens',
  'ComponentSpec.name',
]

function isMarker(value) {
  return value !== null && typeof value === 'object' && !Array.isArray(value) && 'invalid' in value
}

/** The session operations a tool's `session_probe` may try (SessionProbe.op). */
export const PROBE_OPS = ['to_json', 'execute', 'status', 'append', 'compact', 'summarize']

const STEPS = {
  append: 'AppendStep',
  execute: 'ExecuteStep',
  save_and_restore: 'SaveAndRestoreStep',
  compact: 'CompactStep',
  summarize: 'SummarizeStep',
  tamper_accessors: 'TamperAccessorsStep',
  ...HOST_CALL_STEPS,
  request_messages: 'RequestMessagesStep',
  prune: 'PruneStep',
  probe: 'ProbeStep',
}

function check(value, structure, where) {
  if (value === null || value === undefined || typeof value !== 'object' || Array.isArray(value)) return
  for (const key of Object.keys(value)) {
    const refused = INEXPRESSIBLE[`${structure}.${key}`]
    if (refused && value[key] !== refused.unless) throw new CannotExpress(`${where}.${key}: ${refused.reason}`)
    if (!VOCABULARY[structure].includes(key)) throw new CannotExpress(`${where}.${key} (unknown ${structure} field)`)
    if (isMarker(value[key]) && REFUSABLE.includes(`${structure}.${key}`)) value[key] = value[key].invalid
  }
}

function each(list, structure, where) {
  for (const [index, item] of (list ?? []).entries()) check(item, structure, `${where}[${index}]`)
}

/** Throws CannotExpress naming the first field of `scenario` the bridge does not map. */
export function checkScenario(scenario) {
  check(scenario, 'Scenario', 'scenario')
  for (const [index, entry] of (scenario.script ?? []).entries()) {
    const where = `script[${index}]`
    check(entry, 'ScriptEntry', where)
    each(entry.tool_calls, 'ScriptedToolCall', `${where}.tool_calls`)
    check(entry.usage, 'Usage', `${where}.usage`)
    check(entry.failure, 'ScriptedFailure', `${where}.failure`)
    check(entry.stream_break, 'StreamBreak', `${where}.stream_break`)
  }
  checkSetup(scenario.setup ?? {})
  for (const [index, step] of (scenario.steps ?? []).entries()) {
    const structure = STEPS[step?.op]
    if (!structure) throw new CannotExpress(`steps[${index}].op ${JSON.stringify(step?.op)}`)
    check(step, structure, `steps[${index}]`)
    if (structure === 'AppendStep') each(step.messages, 'AppendMessage', `steps[${index}].messages`)
    if (structure === 'ExecuteStep') check(step.options, 'ExecuteOptions', `steps[${index}].options`)
    if (structure === 'ExecuteStep') check(step.legacy, 'LegacyExecuteSpec', `steps[${index}].legacy`)
    if (structure === 'ExecuteStep') each(step.legacy?.messages, 'LegacyMessage', `steps[${index}].legacy.messages`)
    each(step.retained_iterations, 'IterationRef', `steps[${index}].retained_iterations`)
  }
}

function checkEffects(effects, where) {
  each(effects, 'SchemaEffect', where)
  for (const [index, effect] of (effects ?? []).entries()) check(effect?.refine, 'RefineSpec', `${where}[${index}].refine`)
}

function checkSetup(setup) {
  check(setup, 'Setup', 'setup')
  for (const [index, tool] of (setup.tools ?? []).entries()) {
    const where = `setup.tools[${index}]`
    check(tool, 'ToolSpec', where)
    check(tool.behaviour, 'ToolBehaviour', `${where}.behaviour`)
    check(tool.behaviour?.think_signal, 'ThinkSignalSpec', `${where}.behaviour.think_signal`)
    check(tool.behaviour?.truncate, 'TruncateSpec', `${where}.behaviour.truncate`)
    check(tool.behaviour?.session_probe, 'SessionProbe', `${where}.behaviour.session_probe`)
    const probe = tool.behaviour?.session_probe?.op
    if (probe !== undefined && !PROBE_OPS.includes(probe)) {
      throw new CannotExpress(`${where}.behaviour.session_probe.op ${JSON.stringify(probe)}`)
    }
    each(tool.behaviour?.session_probe?.messages, 'AppendMessage', `${where}.behaviour.session_probe.messages`)
    checkEffects(tool.input_effects, `${where}.input_effects`)
    checkEffects(tool.output_effects, `${where}.output_effects`)
  }
  each(setup.exits, 'ExitSpec', 'setup.exits')
  for (const [index, exit] of (setup.exits ?? []).entries()) checkEffects(exit.effects, `setup.exits[${index}].effects`)
  check(setup.chat, 'ChatSpec', 'setup.chat')
  check(setup.chat?.response, 'ResponseSpec', 'setup.chat.response')
  check(setup.chat?.legacy, 'LegacyChatSpec', 'setup.chat.legacy')
  each(setup.chat?.legacy?.transcript, 'LegacyMessage', 'setup.chat.legacy.transcript')
  each(setup.tool_clones, 'ToolCloneSpec', 'setup.tool_clones')
  each(setup.chat?.components, 'ComponentSpec', 'setup.chat.components')
  for (const [index, component] of (setup.chat?.components ?? []).entries()) {
    checkEffects(component.effects, `setup.chat.components[${index}].effects`)
  }
  check(setup.hooks, 'HooksSpec', 'setup.hooks')
  each(setup.hooks?.after_tool, 'AfterToolHook', 'setup.hooks.after_tool')
  each(setup.hooks?.before_tool, 'BeforeToolHook', 'setup.hooks.before_tool')
  check(setup.hooks?.on_inspect, 'OnInspectHook', 'setup.hooks.on_inspect')
  check(setup.hooks?.before_request, 'BeforeRequestHook', 'setup.hooks.before_request')
  each(setup.hooks?.before_request?.append, 'RequestMessage', 'setup.hooks.before_request.append')
  each(setup.models, 'ModelSpec', 'setup.models')
  if (setup.compaction !== false) check(setup.compaction, 'CompactionSpec', 'setup.compaction')
  if (setup.compaction) check(setup.compaction.summarize, 'SummarizeCallback', 'setup.compaction.summarize')
  check(setup.options, 'ExecuteOptions', 'setup.options')
  check(setup.memory, 'MemorySpec', 'setup.memory')
  for (const [index, object] of (setup.objects ?? []).entries()) {
    check(object, 'ObjectSpec', `setup.objects[${index}]`)
    each(object.properties, 'ObjectProperty', `setup.objects[${index}].properties`)
    for (const [at, property] of (object.properties ?? []).entries()) {
      checkEffects(property.effects, `setup.objects[${index}].properties[${at}].effects`)
    }
  }
}
