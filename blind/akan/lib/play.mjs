// Playing one akan case on the runtime: `setup` becomes the page, the app's options and the chat;
// `script` becomes the model behind the adaptor; each step is one method of Player, named after its op.
// The runtime reports through its own events, mapped onto the record by record.mjs.

import { Page } from "../runtime/page.mjs";
import { ChatSession } from "../runtime/session.mjs";
import { makeRelay } from "../runtime/relay.mjs";
import { ModelForm } from "../runtime/forms.mjs";
import { Panel } from "../runtime/panel.mjs";
import { Speech } from "../runtime/voice.mjs";
import { Clock } from "./clock.mjs";
import { scriptedEngine } from "./engine.mjs";
import { filler, expandFiller } from "./filler.mjs";
import { finalOf, panelView } from "./final.mjs";
import { fetchPrompt, fileOf, llmFromSetup, panelProps, rawOf, readerOf, relayServer, toStorage } from "./options.mjs";
import { recordEvents, recordMessage } from "./record.mjs";
import { scriptedModel, ScriptExhausted } from "./scripted.mjs";
import { announceDeclarations, click, lastClashes, mountSurface, unmount } from "./surface.mjs";

const tick = () => new Promise((resolve) => setImmediate(resolve));
const CASE_START = Date.parse("2026-01-05T12:00:00Z");

export async function playCase(c) {
  const player = new Player(c);
  return player.play();
}

class Player {
  constructor(c) {
    this.case = c;
    const setup = (this.setup = c.setup ?? {});
    this.events = [];
    this.failure = null;
    this.pendingSend = null;
    this.observeSettle = (setup.observe ?? []).includes("settle");
    this.page = new Page({ route: setup.route ?? "/", html: expandFiller(setup.html ?? null), screen: expandFiller(setup.screen ?? ""),
      observe: (type, d) => this.emit(type, d) });
    this.#mount();
    this.clock = new Clock(CASE_START);
    this.speech = setup.voice ? new Speech(scriptedEngine(setup, this.events), this.clock, this.emit) : null;
    this.session = this.#session();
    this.#storage();
    this.panel = setup.panel ? new Panel(panelProps(setup.panel),
      { send: async (text) => { this.pendingSend = this.session.send(text); }, prompts: this.session.prompts, messages: () => this.session.messages },
      this.emit) : null;
    announceDeclarations(this.page, this.events, new Set());
  }

  /** Runtime events, mapped; settle and tool_run only when the case asks to observe them. */
  emit = (type, d) => {
    if (!this.observeSettle && (type === "toolRun" || type === "settle")) return;
    this.events.push(...recordEvents(type, d));
  };

  #mount() {
    const { setup, events } = this;
    const ui = { modals: new Map(), dismissed: (d) => events.push({ type: "dialog_dismissed", namespace: d.namespace, confirm_asked: d.confirmAsked, on_cancel_ran: d.onCancelRan, closed: d.closed }) };
    this.form = setup.form ? new ModelForm({ ...setup.form, postSets: setup.form.post_sets ?? [] }, (text) => events.push({ type: "console", level: "warn", text })) : null;
    mountSurface(this.page, setup, ui, events);
    if (this.form) this.page.declarations.push(...this.form.declarations());
  }

  #session() {
    const { setup } = this;
    const llm = llmFromSetup(setup);
    const model = scriptedModel(this.case, this.events, llm);
    return new ChatSession({
      page: this.page, relay: makeRelay({ ...relayServer(setup.relay), llm, adaptor: model.chat }), clock: this.clock, emit: this.emit,
      summarize: model.summarize, speech: this.speech, zone: setup.zone ?? null,
      compact: { at: setup.compact?.at ?? undefined, keep: setup.compact?.keep ?? undefined },
      maxTurns: setup.max_turns ?? undefined, accept: setup.relay?.accept ?? undefined,
      prompts: (setup.prompts ?? []).map((p) => ({ name: p.name, desc: p.desc ?? null, spec: p })),
      fetchPrompt: async (p, args) => fetchPrompt(p.spec, args), reader: readerOf(setup.reader), dictionary: setup.dictionary,
    });
  }

  /**
   * Web storage. Without a panel the `persist` step is what saves; with one, its `persist` prop keeps
   * storage up to date after every step (sessionStorage, or localStorage with {storage: "local"}).
   */
  #storage() {
    this.saved = this.setup.stored == null ? null : toStorage(rawOf(this.setup.stored));
    this.persistProp = this.setup.panel?.persist ?? null;
    this.storageKind = this.persistProp?.storage === "local" ? "local" : "session";
    this.web = { session: null, local: null };
    if (this.persistProp) this.web[this.storageKind] = this.saved;
  }

  async play() {
    for (const step of this.case.steps ?? []) {
      if (this.failure) break;
      const handler = this[`op_${step.op}`];
      if (!handler) throw new Error(`steps: op ${step.op} cannot be played`);
      await handler.call(this, step);
      if (this.persistProp) this.web[this.storageKind] = this.session.save();
    }
    if (this.failure && !(this.failure instanceof ScriptExhausted)) throw this.failure;
    const final = finalOf(this.session, this.page, this.setup);
    if (this.panel) final.panel = panelView(this.panel.drawn(this.session.messages));
    if (this.speech) { final.draft = this.speech.draft; final.microphone = this.speech.microphone; }
    if (this.form) final.form = this.form.values;
    return { events: this.events, final };
  }

  /**
   * Let what a step started run until it is done or parked (waiting on a tool or a question card):
   * parked means nothing at all happens for a while, since the model and the page answer within ticks.
   */
  async drain(promise = Promise.resolve()) {
    let settled = false;
    promise.then(() => (settled = true), (e) => { settled = true; this.failure = e; });
    let quiet = 0;
    for (let i = 0; i < 5000 && !(settled && !this.session.isRunning) && quiet < 20 && !this.failure; i++) {
      const before = this.events.length;
      await tick();
      quiet = this.events.length === before && this.page.pending === 0 ? quiet + 1 : 0;
    }
  }

  // ---- the steps ----------------------------------------------------------------------------------------

  async op_attach(step) { for (const f of step.files) await this.session.attach(fileOf(f)); }
  async op_send(step) { await this.drain(this.session.send((step.text ?? "") + filler(step.filler_chars ?? 0))); }
  op_note(step) { this.session.note(step.text); }
  op_report(step) { this.session.report(step.message); }
  async op_stop() { this.session.stop(); await this.drain(); }
  op_advance(step) { this.clock.advance(step.by); }
  op_unmount(step) { unmount(this.page, step); }
  op_render() { announceDeclarations(this.page, this.events, new Set(lastClashes(this.page))); }
  async op_click(step) { await this.drain(click(this.page, step)); }
  op_open_row(step) { this.session.openRow(step.id); }

  op_persist(step) {
    this.saved = this.session.save(step.cap ?? undefined);
    this.events.push({ type: "persisted", transcript: this.saved.map(recordMessage) });
  }

  /** A reload (or, with `reopen`, a new tab): the turn and the composer are gone; storage is restored. */
  async op_reload(step) {
    this.session.abandon();
    await this.drain();
    this.session.history.splice(0, this.session.history.length, this.page.route);
    if (step.op === "reopen") this.web.session = null;
    const kept = !this.panel ? this.saved : this.persistProp ? this.web[this.storageKind] : null;
    this.session.restore(kept ?? []);
  }
  op_reopen(step) { return this.op_reload(step); }

  op_type(step) { this.events.push(...recordEvents("composer", this.panel.type(step.text, step.caret_line ?? undefined))); }

  async op_key(step) {
    this.events.push(...recordEvents("composer", await this.panel.key(step.key)));
    if (this.pendingSend) { await this.drain(this.pendingSend); this.pendingSend = null; }
  }

  op_viewport(step) { this.events.push(...recordEvents("viewport", this.panel.resize({ width: step.width, keyboard: step.keyboard }))); }

  /** A session the chat made ends with it; one an AgentProvider or Agent.Zone handed down does not. */
  async op_unmount_chat() {
    const own = (this.setup.panel.session ?? "own") === "own";
    if (own) { this.session.stop(); await this.drain(); }
    this.events.push({ type: "chat_unmounted", session_ended: own });
  }

  async op_mic(step) {
    this.speech.engine.heard = [...step.heard];
    await this.speech.press(step.heard[0] ?? ""); // the first result only names a refused press
  }

  async op_send_draft(step) {
    const text = step.edit ?? this.speech.draft;
    this.speech.draft = "";
    await this.drain(this.session.send(text, { voiced: true }));
  }
}
