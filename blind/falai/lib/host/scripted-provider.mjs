/**
 * The scenario's script as the agent's model provider. Each call takes the first unused entry whose
 * `purpose` is its own or unset; a call with nothing left fails the case with the harness's wording.
 * Every call is reported through `onCall(request, entry)` so the adapter can record it.
 */
export class ScriptExhausted extends Error {}

export class ScriptedProvider {
  /** @param {any[]} script @param {(request: any, entry: any, call: number) => void} onCall */
  constructor(script, onCall) {
    this.entries = script.map((entry) => ({ entry, used: false }));
    this.calls = 0;
    this.onCall = onCall;
  }

  /** @param {Record<string, any>} request */
  async complete(request) {
    this.calls += 1;
    const slot = this.entries.find((s) => !s.used && (!s.entry.purpose || s.entry.purpose === request.purpose));
    if (!slot) {
      this.onCall(request, null, this.calls);
      throw new ScriptExhausted(`the script has no response for call ${this.calls}`);
    }
    slot.used = true;
    this.onCall(request, slot.entry, this.calls);
    if (slot.entry.failure) {
      const failure = slot.entry.failure;
      throw Object.assign(new Error(`provider failed with HTTP ${failure.status}: ${failure.message ?? 'scripted provider failure'}`), { status: failure.status });
    }
    return { text: slot.entry.text ?? '', json: slot.entry.json ?? undefined };
  }
}
