// Tool declarations and the catalogue a turn offers (guideline, "Publishing A Tool").
//
// A declaration is what `st.tool(name, {desc}).arg(...).exec(fn)` builds: {name, desc, args, shared,
// zone, route, run, query}. `argSchema` turns one `.arg` into JSON Schema or says it cannot (types
// model, Any and Map): such a tool is withdrawn with a console warning, never a throw. A falsy name
// declares the callable without publishing it. `catalogue` collapses declarations to one entry per name
// and reports clashes: a name registered more than once is one declaration only if every registration
// says `shared`.

const SCALARS = new Set(["string", "integer", "number", "boolean"]);
const UNDESCRIBABLE = new Set(["model", "Any", "Map"]);

/** The scalar a value list implies: integer, number or string. */
export function scalarOf(values) {
  if (values.length && values.every((v) => Number.isInteger(v))) return "integer";
  if (values.length && values.every((v) => typeof v === "number")) return "number";
  return "string";
}

/**
 * @param {{name: string, type?: string, values?: unknown[], oneOf?: unknown[]}} arg
 * @returns {object | null} null when no schema can describe the type
 */
export function argSchema(arg) {
  if (arg.schema) return arg.schema;
  const type = arg.type ?? "string";
  if (UNDESCRIBABLE.has(type)) return null;
  if (type === "enumOf") return { type: scalarOf(arg.values ?? []), enum: [...(arg.values ?? [])] };
  if (!SCALARS.has(type)) return null;
  const schema = { type };
  if (arg.oneOf) schema.enum = [...arg.oneOf];
  return schema;
}

/** The JSON Schema of a tool's parameters, or the first argument no schema describes. */
export function parametersOf(decl) {
  const properties = {};
  for (const arg of decl.args ?? []) {
    const schema = arg.schema ?? argSchema(arg);
    if (!schema) return { unusable: arg };
    properties[arg.name] = schema;
  }
  const required = (decl.args ?? []).filter((a) => !a.optional).map((a) => a.name);
  return { parameters: { type: "object", properties, required } };
}

/** Refuse a value outside an argument's enum, by name, before the tool runs. */
export function checkArguments(parameters, args) {
  for (const [name, schema] of Object.entries(parameters.properties ?? {})) {
    if (schema.enum && args && name in args && !schema.enum.includes(args[name])) {
      return `argument "${name}" does not accept ${JSON.stringify(args[name])}; allowed: ${schema.enum.map((v) => JSON.stringify(v)).join(", ")}`;
    }
  }
  return null;
}

/**
 * Build the catalogue from the mounted declarations. Builtins come first; a page declaration of the same
 * name takes the builtin's place.
 * @returns {{tools: Map<string, object>, clashes: {name: string, registrations: number}[], warnings: string[]}}
 */
export function catalogue(builtins, declarations) {
  const tools = new Map(builtins.map((b) => [b.name, { ...b, parameters: parametersOf(b).parameters }]));
  const byName = new Map();
  const warnings = [];
  for (const decl of declarations) {
    if (!decl.name) continue;
    const { parameters, unusable } = parametersOf(decl);
    if (unusable) {
      warnings.push(`akan agent: tool "${decl.name}" is not published: argument "${unusable.name}" has type ${unusable.type}, which no tool schema can describe`);
      continue;
    }
    const list = byName.get(decl.name) ?? [];
    list.push({ ...decl, parameters });
    byName.set(decl.name, list);
  }
  const clashes = [];
  for (const [name, list] of byName) {
    if (list.length > 1 && !list.every((d) => d.shared)) clashes.push({ name, registrations: list.length });
    tools.set(name, list[list.length - 1]);
  }
  return { tools, clashes, warnings };
}
