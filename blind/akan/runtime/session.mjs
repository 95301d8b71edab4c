// The chat session: the client-side loop of an Akan in-page agent (guideline, "Mounting The Chat",
// "Slash Commands And The Transcript", "Built-In Tools").
//
// Theory of operation. `send(text)` is Enter in the composer. /new and /copy are dispatched first, even
// mid-turn and over an open question card; then an open question card takes the text as its answer; then
// a running turn refuses the input; then the built-in commands, the app's prompts, and finally a plain
// user message, which starts the loop. The loop (`#loop`) posts one request per step to the relay:
// it compacts first when the estimate is past the threshold, snapshots the catalogue, sanitizes the
// transcript into the request, and runs the calls the model returned in this browser, racing each against
// Stop. After every tool that is not a query it waits for the screen to settle. Everything observable is
// reported through `emit(type, detail)`.

import { builtinFor, helpText, menu, parseCommand } from "./commands.mjs";
import { digest, DEFAULT_AT, DEFAULT_KEEP, split, SUMMARY_INSTRUCTION } from "./compaction.mjs";
import { builtinTools, screenRoot } from "./builtins.mjs";
import { elements } from "./screen/html.mjs";
import { isVisible } from "./screen/read.mjs";
import { checkArguments, catalogue } from "./tools.mjs";
import { estimateTokens, sanitize, wireOf } from "./transcript.mjs";
import { readAttachment, refusalFor } from "./attachments.mjs";
import { decode, encode } from "./storage.mjs";
import { agentView } from "./state.mjs";

export const DEFAULT_MAX_TURNS = 25; // the guideline names maxTurns but gives no default
const STOPPED = Symbol("stopped");

export class ChatSession {
  /**
   * @param {object} o
   * @param {import("./page.mjs").Page} o.page
   * @param {Function} o.relay runAgentTurn
   * @param {Function} o.summarize (messages) => Promise<{text} | {failure}>
   * @param {{now: () => Date}} o.clock
   */
  constructor(o) {
    this.page = o.page;
    this.relay = o.relay;
    this.summarize = o.summarize;
    this.clock = o.clock;
    this.zone = o.zone ?? null;
    this.emit = o.emit ?? (() => {});
    this.compact = { at: o.compact?.at ?? DEFAULT_AT, keep: o.compact?.keep ?? DEFAULT_KEEP };
    this.maxTurns = o.maxTurns ?? DEFAULT_MAX_TURNS;
    this.accept = o.accept ?? "text/event-stream";
    this.prompts = o.prompts ?? [];
    this.fetchPrompt = o.fetchPrompt;
    this.reader = o.reader ?? null;
    this.dictionary = { llmUnavailable: "No language model is configured for this chat.", ...(o.dictionary ?? {}) };
    /** @type {import("./transcript.mjs").Message[]} */
    this.messages = [];
    this.composerFiles = [];
    this.history = [this.page.route];
    this.isRunning = false;
    this.isCompacting = false;
    this.heldUntil = 0;
    this.callCounter = 0;
    this.posts = 0;
    this.turn = null; // {abort: AbortController, question?, voiced}
    this.speech = o.speech ?? null;
    this.builtins = builtinTools({ page: this.page, history: this.history, zone: this.zone, readKey: (k) => this.readKey(k) });
  }

  // ---- state -------------------------------------------------------------------------------------------

  get tokens() { return estimateTokens(wireOf(sanitize(this.messages))); }
  get commands() { return menu(this.prompts).map((c) => `/${c.name}`); }

  #setStatus(running, compacting) {
    if (running === this.isRunning && compacting === this.isCompacting) return;
    this.isRunning = running;
    this.isCompacting = compacting;
    this.emit("status", { isRunning: running, isCompacting: compacting });
  }

  /** The declarations this session's agent sees: everything mounted, or only its zone's. */
  surfaceDeclarations() {
    return this.page.declarations.filter((d) => this.page.mounted(d) && (!this.zone || d.zone === this.zone));
  }

  currentCatalogue() { return catalogue(this.builtins, this.surfaceDeclarations()); }

  readableKeys() {
    const inZone = (x) => !this.zone || x.zone === this.zone;
    const keys = [...this.page.keys.entries()].filter(([name, k]) => name && k.agent !== false && inZone(k)).map(([name]) => name);
    for (const l of this.page.locals) if (l.name && inZone(l)) keys.push(l.name);
    return keys;
  }

  readKey(key) {
    if (!key || !this.readableKeys().includes(key)) return { error: `"${key}" is not a readable key on this screen` };
    const local = this.page.locals.find((l) => l.name === key);
    if (local) return { key, value: local.read ? local.read() : local.value };
    const view = agentView(key, this.page.keys.get(key));
    return "refused" in view ? { error: view.refused } : { key, value: view.value };
  }

  guidesForTurn() {
    const under = (layout) => { const p = layout.replace(/\/$/, ""); return p === "" || this.page.route === p || this.page.route.startsWith(p + "/"); };
    // Guides cascade like the layouts rendering them: outer layouts first, then zone guides; a zone agent
    // sees its ancestors' guides and its own zone's, never a sibling zone's.
    const depth = (layout) => layout.split("/").filter(Boolean).length;
    const layoutGuides = this.page.guides.filter((g) => !g.zone && under(g.layout ?? "/"))
      .map((g, i) => ({ g, i })).sort((a, b) => depth(a.g.layout ?? "/") - depth(b.g.layout ?? "/") || a.i - b.i).map((x) => x.g);
    const zoneGuides = this.page.guides.filter((g) => g.zone && (!this.zone || g.zone === this.zone));
    return [...layoutGuides, ...zoneGuides].map((g) => g.text);
  }

  // ---- user input --------------------------------------------------------------------------------------

  async attach(file) {
    const refused = refusalFor(file, this.composerFiles);
    if (refused) { this.emit("attachmentRefused", { name: file.name, ...refused }); return; }
    const attachment = await readAttachment(file, this.reader);
    this.composerFiles.push(attachment);
    this.emit("attachmentAdded", { attachment });
  }

  /** Enter in the composer. Resolves when what it started is done (or parked on a tool or question). */
  async send(text, { voiced = false } = {}) {
    const command = parseCommand(text);
    const builtin = command && builtinFor(command.name);
    if (builtin === "new") return this.#newConversation();
    if (builtin === "copy") return this.#copy();
    if (this.turn?.question) return this.turn.question.answer(text);
    if (this.isRunning) { this.emit("inputRefused", { text, reason: "turn-running" }); return; }
    if (builtin) return this.#builtin(builtin);
    const prompt = command && this.prompts.find((p) => p.name === command.name);
    if (prompt) return this.#prompt(prompt, command.args);
    this.messages.push({ role: "user", text, ...(this.composerFiles.length ? { attachments: this.composerFiles } : {}) });
    this.composerFiles = [];
    return this.#loop({ voiced });
  }

  note(text) { this.messages.push({ role: "local", text }); }

  /** A host-side failure: a failed-turn message, never a local one. */
  report(error) {
    const message = typeof error === "string" ? error : error.message;
    this.messages.push({ role: "assistant", text: "", error: message });
    this.emit("turnFailed", { status: null, message });
  }

  /** Stop: end the running turn now; calls left without a result are answered later by sanitize. */
  stop() {
    this.speech?.cancel("stop");
    if (!this.turn) return;
    this.turn.abort.abort();
  }

  async #newConversation() {
    if (this.turn) { this.stop(); await this.turn.done; }
    this.messages = [];
    this.heldUntil = 0;
  }

  #copy() {
    this.emit("export", { route: this.page.route, at: this.clock.now().toISOString(), messages: wireOf(this.messages) });
  }

  async #builtin(name) {
    if (name === "help") this.note(helpText(this.prompts));
    else if (name === "tools") {
      const { tools } = this.currentCatalogue();
      this.note(["Tools on this screen:", ...[...tools.values()].map((t) => `${t.name}: ${t.desc ?? ""}`)].join("\n"));
    } else if (name === "compact") await this.#compact("command", 0);
    else if (name === "retry") {
      const idx = this.messages.findLastIndex((m) => m.role === "user" && !m.summary);
      if (idx < 0) return;
      this.messages = this.messages.slice(0, idx + 1);
      return this.#loop();
    }
  }

  async #prompt(prompt, args) {
    const fetched = await this.fetchPrompt(prompt, args);
    if (fetched.denied) { this.emit("promptDenied", { name: prompt.name, status: fetched.status }); return; }
    this.emit("promptCalled", { name: prompt.name, args });
    for (const m of fetched.messages) this.messages.push(m);
    return this.#loop();
  }

  // ---- compaction ---------------------------------------------------------------------------------------

  async #compact(trigger, keep) {
    const before = this.tokens;
    const { head, tail, locals } = split(sanitize(this.messages), keep);
    if (head.length === 0) { this.emit("compaction", { trigger, outcome: "nothing-to-summarize" }); return; }
    this.#setStatus(this.isRunning, true);
    const answer = await this.summarize([
      { role: "system", text: SUMMARY_INSTRUCTION },
      { role: "user", text: digest(head) },
    ]);
    this.#setStatus(this.isRunning, false);
    if (answer.failure) { this.emit("compaction", { trigger, outcome: "failed", status: answer.failure.status }); return; }
    this.messages = [...locals, { role: "user", text: answer.text, summary: true }, ...tail];
    const after = this.tokens;
    if (after >= before) this.heldUntil = after + this.compact.at;
    this.emit("compaction", { trigger, outcome: "summarized", summarized: head.length, kept: wireOf(tail).length, before, after });
  }

  async #maybeAutoCompact() {
    if (!this.compact.at) return;
    const estimate = this.tokens;
    if (estimate <= this.compact.at || estimate < this.heldUntil) return;
    await this.#compact("auto", this.compact.keep);
  }

  // ---- the loop -----------------------------------------------------------------------------------------

  async #loop({ voiced = false } = {}) {
    const abort = new AbortController();
    let finish;
    this.turn = { abort, question: null, voiced, done: new Promise((r) => (finish = r)) };
    this.#setStatus(true, this.isCompacting);
    try {
      await this.#steps(abort.signal);
    } finally {
      this.turn = null;
      this.#setStatus(false, false);
      finish();
    }
  }

  async #steps(signal) {
    for (let posted = 0; ; posted++) {
      if (posted >= this.maxTurns) { this.emit("turnLimit", { maxTurns: this.maxTurns }); return; }
      await this.#maybeAutoCompact();
      if (signal.aborted) return;
      const { tools, clashes, warnings } = this.currentCatalogue();
      const post = {
        messages: wireOf(sanitize(this.messages)),
        tools: [...tools.values()].map((t) => ({ name: t.name, description: t.desc ?? "", parameters: t.parameters })),
        screen: this.page.screenText,
        context: { route: this.page.route, scopes: this.scopes(), keys: this.readableKeys() },
        guides: this.guidesForTurn(),
      };
      const turnNo = ++this.posts;
      const deltas = [];
      const result = await this.relay(post, { accept: this.accept, onDelta: (d) => deltas.push(d) });
      this.emit("relay", { turn: turnNo, accept: this.accept, ...result, deltas });
      if (result.outcome !== "relayed") return this.#failTurn(result);
      const calls = (result.answer.toolCalls ?? []).map((c) => ({ id: c.id ?? `call_${++this.callCounter}`, name: c.name, args: c.arguments ?? {} }));
      this.messages.push({ role: "assistant", text: result.answer.text ?? "", ...(calls.length ? { toolCalls: calls } : {}) });
      if (!calls.length) {
        // Only a spoken question gets a spoken reply.
        if (this.turn.voiced && result.answer.text) this.speech?.say(result.answer.text);
        return;
      }
      for (let i = 0; i < calls.length; i++) {
        if (signal.aborted) break;
        const outcome = await this.#runCall(calls[i], tools, signal);
        if (outcome === STOPPED) break;
      }
      if (signal.aborted) {
        if (this.turn?.silent) return;
        const answered = new Set(this.messages.filter((m) => m.role === "tool").map((m) => m.callId));
        this.emit("turnStopped", { callIds: calls.filter((c) => !answered.has(c.id)).map((c) => c.id) });
        return;
      }
    }
  }

  #failTurn(result) {
    let message, status = null, key;
    if (result.outcome === "error") {
      key = result.error.key;
      message = interpolate(this.dictionary[key] ?? key, result.error.values);
    } else if (result.outcome === "failed") { status = result.status; message = result.message; }
    else if (result.outcome === "refused") { status = 403; message = `the agent endpoint refused this caller (${result.refusedBy})`; }
    else { status = 404; message = "the agent endpoint is not served by this app"; }
    this.messages.push({ role: "assistant", text: "", error: message });
    this.emit("turnFailed", { status, message, ...(key ? { key } : {}) });
  }

  /** data-agent-scope names visible on this session's screen. */
  scopes() {
    const root = screenRoot(this.page, this.zone);
    if (!root) return [];
    return [...new Set([...elements(root)].filter((el) => el.attrs["data-agent-scope"] && isVisible(el)).map((el) => el.attrs["data-agent-scope"]))];
  }

  async #runCall(call, tools, signal) {
    const tool = tools.get(call.name);
    this.emit("toolCall", { call });
    let value;
    if (!tool) value = { error: `no tool named "${call.name}" is on this screen` };
    else {
      const bad = tool.parameters ? checkArguments(tool.parameters, call.args) : null;
      if (bad) value = { error: bad };
      else {
        this.emit("toolRun", { callId: call.id, name: call.name, phase: "start" });
        const run = Promise.resolve(tool.run(call.args, { signal, callId: call.id, ask: (text) => this.#ask(call, text, signal) }));
        const stopped = new Promise((resolve) => signal.addEventListener("abort", () => resolve(STOPPED), { once: true }));
        value = await Promise.race([run, stopped]);
        if (value === STOPPED) return STOPPED;
        this.emit("toolRun", { callId: call.id, name: call.name, phase: "return" });
        if (!tool.query) await this.page.settle();
      }
    }
    const text = typeof value === "string" ? value : JSON.stringify(value ?? null);
    this.messages.push({ role: "tool", callId: call.id, text });
    this.emit("toolResult", { call, text });
    return value;
  }

  /** A question card: the turn waits for the user's next message, which becomes the call's result. */
  #ask(call, text, signal) {
    return new Promise((resolve) => {
      this.turn.question = { answer: (reply) => { this.turn.question = null; resolve({ answer: reply }); } };
      this.emit("question", { callId: call.id, text });
      if (this.turn.voiced) this.speech?.say(text); // the loop stops here: a voice user must hear the card
      signal.addEventListener("abort", () => { if (this.turn) this.turn.question = null; }, { once: true });
    });
  }

  // ---- rows, storage ------------------------------------------------------------------------------------

  openRow(callId) {
    const result = this.messages.find((m) => m.role === "tool" && m.callId === callId);
    const call = this.messages.flatMap((m) => m.toolCalls ?? []).find((c) => c.id === callId);
    if (!result || !call) { this.emit("inputRefused", { text: callId, reason: "no-settled-row" }); return; }
    this.emit("toolRow", { callId, name: call.name, tokens: Math.ceil(result.text.length / 4), result: result.text });
  }

  save(cap) { return encode(this.messages, cap); }

  restore(stored) {
    this.messages = decode(stored);
    this.composerFiles = [];
    this.emit("restored", { messages: this.messages });
  }

  /** The page went away: the turn is gone without a trace, like the tab that ran it. */
  abandon() {
    if (this.turn) { this.turn.silent = true; this.turn.abort.abort(); }
  }
}

const interpolate = (text, values = {}) => text.replace(/\{(\w+)\}/g, (whole, k) => (k in values ? String(values[k]) : whole));

