// What this adapter cannot play. Everything the akan record describes is implemented at present; a
// case using something this runtime lacks is answered with `skip`, naming the field, never with a record
// that happens to pass. The table stays as the place to add such a field.

const SETUP = {};
const STEPS = {};

/** @returns {string | null} a reason to skip */
export function unsupported(c) {
  const setup = c.setup ?? {};
  for (const [field, why] of Object.entries(SETUP)) if (setup[field] != null) return `setup.${field}: ${why}`;
  for (const [i, step] of (c.steps ?? []).entries()) if (STEPS[step.op]) return `steps[${i}].op ${step.op}: ${STEPS[step.op]} is not implemented`;
  return null;
}
