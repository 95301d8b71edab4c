/**
 * A scenario's declarative condition (`{path, equals | one_of | contains | exists}`) turned into the code
 * predicate the runtime takes for `if` and `while`, as a host would write it by hand.
 */
import { readPath } from '../runtime/templates.mjs';

/** @param {any} a @param {any} b @returns {boolean} */
function same(a, b) {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** @param {any} condition @returns {((scope: Record<string, unknown>) => boolean) | undefined} */
export function toPredicate(condition) {
  if (!condition) return undefined;
  return (scope) => {
    const value = readPath(scope, condition.path);
    if (condition.exists !== undefined && condition.exists !== null) return (value !== undefined && value !== null) === condition.exists;
    if (condition.one_of) return condition.one_of.some((/** @type {any} */ option) => same(option, value));
    if (condition.contains !== undefined && condition.contains !== null) {
      return Array.isArray(value) ? value.some((item) => same(item, condition.contains))
        : typeof value === 'string' && value.includes(String(condition.contains));
    }
    return same(value, condition.equals ?? null);
  };
}
