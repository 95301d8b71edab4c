// Speech: one engine contract, the chat's own policy (guideline, "Attachments And Speech").
//
// The engine is `{available(), listen(handlers) -> stop, speak(sentence)}`; listen is a subscription
// (results and the end arrive through the handlers), never a promise of a transcript. The chat decides
// the rest: a press of the microphone cuts off speech in progress and puts the first utterance into the
// composer (not sent); only a spoken question gets a spoken reply, a sentence at a time, with
// markdown stripped; a question or approval the loop stops on is read under the same condition; the next
// press or Stop cuts speech off. The clock paces sentences: each next one goes to the engine when the
// previous has had its time.

/** Markdown out, so `**bold**` is not pronounced. */
export function speakable(text) {
  return text
    .replace(/```[\s\S]*?```/g, " ")
    .replace(/`([^`]*)`/g, "$1")
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, "$1")
    .replace(/^\s{0,3}#{1,6}\s+/gm, "")
    .replace(/^\s*(?:[-*+]|\d+[.)])\s+/gm, "")
    .replace(/^\s*>\s?/gm, "")
    .replace(/(\*\*|__)(.*?)\1/g, "$2")
    .replace(/(\*|_)(.*?)\1/g, "$2")
    .replace(/~~(.*?)~~/g, "$1");
}

/** Sentences: ended by . ! or ? before white space, and by every line break. */
export function sentences(text) {
  return speakable(text).split(/\n+|(?<=[.!?])\s+/).map((s) => s.trim()).filter(Boolean);
}

export class Speech {
  /**
   * @param {{available: () => boolean, listen: Function, speak: (s: string) => void, sentenceMs: number}} engine
   * @param {{schedule: (ms: number, fn: Function) => object, cancel: (t: object) => void}} timers
   */
  constructor(engine, timers, emit) {
    this.engine = engine;
    this.timers = timers;
    this.emit = emit;
    this.queue = [];
    this.timer = null;
    this.speaking = false;
    this.draft = "";
  }

  get microphone() { return !!this.engine.available(); }

  /** One press: what the engine hears during it; the first utterance becomes the composer's text. */
  async press(firstExpected = "") {
    if (!this.microphone) { this.emit("inputRefused", { text: firstExpected, reason: "no-microphone" }); return; }
    this.cancel("mic");
    let first = null;
    let stopListening = null;
    let finish;
    const ended = new Promise((resolve) => (finish = resolve));
    stopListening = this.engine.listen({
      onResult: (text) => {
        if (first !== null) return; // one utterance per press
        first = text;
        stopListening?.();
        finish();
      },
      onEnd: () => finish(),
    });
    await ended;
    if (first !== null) {
      this.draft = first;
      this.emit("draft", { text: first, voiced: true });
    }
  }

  /** Read a text aloud, a sentence at a time. */
  say(text) {
    this.cancel(null);
    this.queue = sentences(text);
    this.#next();
  }

  #next() {
    if (!this.queue.length) { this.speaking = false; this.timer = null; return; }
    this.speaking = true;
    this.engine.speak(this.queue.shift());
    this.timer = this.timers.schedule(this.engine.sentenceMs, () => this.#next());
  }

  /** Cut off speech in progress (`by` mic or stop); nothing to report when nothing was being spoken. */
  cancel(by) {
    if (!this.speaking) return;
    const unspoken = this.queue.length;
    this.queue = [];
    if (this.timer) this.timers.cancel(this.timer);
    this.timer = null;
    this.speaking = false;
    if (by) this.emit("speechCancelled", { by, unspoken });
  }
}
