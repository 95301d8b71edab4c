// runAgentTurn: the stateless relay every app serves (guideline, "Mounting The Chat").
//
// It never executes tools: it checks the guard, asks the adaptor, and hands back the model's answer
// (text and unexecuted calls). Guards are class names: Public passes everyone, None no one, SignedIn a
// signed-in caller, any other name a caller holding that role; a list is ANDed. Until the app chooses a
// guard (`setAgentAccess`), AgentRelayAccess answers as None does. An adaptor answers null for "not
// configured" (travelling as the llmUnavailable key) and throws an Err when it has a reason to give
// (travelling as its own key and values); the browser resolves the key, not the relay.

import { toProviderMessages } from "./provider.mjs";

export class Err extends Error {
  constructor(key, values = {}) { super(key); this.key = key; this.values = values; }
}

function passes(guard, caller) {
  if (guard === "Public") return true;
  if (guard === "None" || guard === "AgentRelayAccess") return false;
  if (guard === "SignedIn") return !!caller.signedIn;
  return (caller.roles ?? []).includes(guard);
}

/** The guard list that applies: the app's, else a library's, else AgentRelayAccess (as None). */
export function effectiveGuards(access) {
  if (access.app !== undefined) return access.app === null ? [] : [].concat(access.app);
  if (access.library != null) return [].concat(access.library);
  return ["None"];
}

/**
 * @param {{served: boolean, access: {app?: any, library?: any}, caller: object, llm: object,
 *   adaptor: (request: object, onDelta?: Function) => Promise<object|null>}} server
 */
export function makeRelay(server) {
  return async function runAgentTurn(post, { accept = "text/event-stream", onDelta } = {}) {
    const streaming = /text\/event-stream/.test(accept);
    if (!server.served) return { status: 404, outcome: "absent", streaming };
    for (const guard of effectiveGuards(server.access)) {
      if (!passes(guard, server.caller)) return { status: 403, outcome: "refused", refusedBy: guard, streaming };
    }
    const providerMessages = toProviderMessages(post.messages, server.llm.accepts);
    try {
      const answer = await server.adaptor({ ...post, providerMessages, llm: server.llm }, streaming ? onDelta : undefined);
      if (answer === null) return { outcome: "error", error: { key: "llmUnavailable", values: {} }, streaming };
      if (answer.failure) return { outcome: "failed", status: answer.failure.status, message: answer.failure.message, streaming };
      return { outcome: "relayed", answer, streaming };
    } catch (e) {
      if (e instanceof Err) return { outcome: "error", error: { key: e.key, values: e.values }, streaming };
      throw e;
    }
  };
}
