// The harness's VoiceEngine for a case (spec/protocol/records/akan.md, "Speech" and "Extra observations").

/** The harness's scripted VoiceEngine: a subscription; each press reports what the case says it heard. */
export function scriptedEngine(setup, events) {
  const observe = (setup.observe ?? []).includes("listen");
  const engine = {
    heard: [],
    sentenceMs: setup.voice.sentence_ms ?? 1500,
    available: () => setup.voice.available !== false,
    speak: (sentence) => events.push({ type: "speak", sentence }),
    listen: (handlers) => {
      if (observe) events.push({ type: "listen", handlers: typeof handlers === "function" ? ["callback"] : Object.keys(handlers ?? {}).filter((k) => typeof handlers[k] === "function") });
      let stopped = false;
      const heard = engine.heard;
      queueMicrotask(() => {
        for (const text of heard) { if (stopped) break; handlers?.onResult?.(text); }
        if (!stopped) handlers?.onEnd?.();
      });
      return () => { stopped = true; };
    },
  };
  return engine;
}
