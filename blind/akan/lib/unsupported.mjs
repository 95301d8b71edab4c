// What this adapter cannot play. A headless runtime has no panel, no composer keys, no speech engine and
// : a case using them is answered with `skip`, naming the field, never with a
// record that happens to pass.

const SETUP = {
  voice: "speech (VoiceEngine) is not implemented by this headless runtime",
};
const STEPS = {
  mic: "speech", send_draft: "speech", 
};

/** @returns {string | null} a reason to skip */
export function unsupported(c) {
  const setup = c.setup ?? {};
  for (const [field, why] of Object.entries(SETUP)) if (setup[field] != null) return `setup.${field}: ${why}`;
  if ((setup.observe ?? []).includes("listen")) return "setup.observe: listen needs a voice engine, not implemented";
  for (const [i, step] of (c.steps ?? []).entries()) if (STEPS[step.op]) return `steps[${i}].op ${step.op}: ${STEPS[step.op]} is not implemented`;
  return null;
}
