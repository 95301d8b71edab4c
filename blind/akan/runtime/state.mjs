// Reading one store key as an agent may see it (guideline, "Reading State").
//
// A subscribed key is readable unless its subscription said `agent: false`. What is read is masked:
// `visual` fields are stripped (cost, not secrecy); with a `mask:` model named, its fields and every
// hidden/secret field are masked; without one, a value whose hidden/secret fields hold data is refused
// whole. Fields are matched by name at any depth.

export const MASKED = "[masked]";

const isEmpty = (v) => v === null || v === undefined || v === "" || (Array.isArray(v) && v.length === 0) ||
  (typeof v === "object" && !Array.isArray(v) && v !== null && Object.keys(v).length === 0);

function mapFields(value, fn) {
  if (Array.isArray(value)) return value.map((v) => mapFields(v, fn));
  if (value && typeof value === "object") {
    const out = {};
    for (const [k, v] of Object.entries(value)) {
      const replaced = fn(k, v);
      if (replaced === undefined) continue;
      out[k] = replaced === v ? mapFields(v, fn) : replaced;
    }
    return out;
  }
  return value;
}

function holdsSecret(value, secret) {
  let found = false;
  mapFields(value, (k, v) => { if (secret.has(k) && !isEmpty(v)) found = true; return v; });
  return found;
}

/**
 * @param {{value: unknown, secret?: string[], mask?: string[]|null, visual?: string[]}} key
 * @returns {{value: unknown} | {refused: string}}
 */
export function agentView(name, key) {
  const secret = new Set(key.secret ?? []);
  const visual = new Set(key.visual ?? []);
  let value = mapFields(key.value, (k, v) => (visual.has(k) ? undefined : v));
  if (key.mask) {
    const masked = new Set([...key.mask, ...secret]);
    return { value: mapFields(value, (k, v) => (masked.has(k) ? MASKED : v)) };
  }
  if (holdsSecret(value, secret)) {
    return { refused: `"${name}" holds hidden or secret fields and names no mask model, so it cannot be read` };
  }
  return { value };
}
