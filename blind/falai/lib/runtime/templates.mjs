/**
 * `{{input.x}}`-style templates in `say`, `prompt` and `with` (guide, "Mention": extracted values are
 * readable as `{{input.trecho}}`). `data.` and `context.` are read the same way; a missing value renders
 * as an empty string rather than "undefined".
 */

/** @param {unknown} root @param {string} path */
export function readPath(root, path) {
  let value = root;
  for (const part of path.split('.')) {
    if (value === null || typeof value !== 'object') return undefined;
    value = /** @type {Record<string, unknown>} */ (value)[part];
  }
  return value;
}

/** @param {string} text @param {Record<string, unknown>} scope */
export function render(text, scope) {
  return text.replace(/\{\{\s*([A-Za-z0-9_.\-]+)\s*\}\}/g, (_, path) => {
    const value = readPath(scope, path);
    if (value === undefined || value === null) return '';
    return typeof value === 'string' ? value : JSON.stringify(value);
  });
}

/** Render every string inside a `with` object, keeping its shape. @param {unknown} value @param {Record<string, unknown>} scope @returns {any} */
export function renderDeep(value, scope) {
  if (typeof value === 'string') return render(value, scope);
  if (Array.isArray(value)) return value.map((item) => renderDeep(item, scope));
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, renderDeep(v, scope)]));
  }
  return value;
}
