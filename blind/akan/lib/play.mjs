// Playing one akan case on the runtime: `setup` becomes the page, the app's options and the chat;
// `script` becomes the model behind the adaptor; each step is what the user (or the host) does. The
// runtime reports through its own events, mapped onto the record by record.mjs.

import { Page } from "../runtime/page.mjs";
import { ChatSession } from "../runtime/session.mjs";
import { makeRelay } from "../runtime/relay.mjs";
import { llmConfig } from "../runtime/provider.mjs";
import { catalogue } from "../runtime/tools.mjs";
import { declarationsOf } from "../runtime/ui.mjs";
import { ModelForm } from "../runtime/forms.mjs";
import { Panel } from "../runtime/panel.mjs";
import { Speech } from "../runtime/voice.mjs";
import { filler, expandFiller } from "./filler.mjs";
import { fromRecordMessage, recordEvents, recordMessage } from "./record.mjs";
import { scriptedModel, ScriptExhausted } from "./scripted.mjs";
import { Clock } from "./clock.mjs";

const SCALAR_SET = new Set(["string", "integer", "number", "boolean"]);
const tick = () => new Promise((resolve) => setImmediate(resolve));
const cap = (s) => s.charAt(0).toUpperCase() + s.slice(1);
const rawOf = (v) => (v && typeof v === "object" && !Array.isArray(v) && "invalid" in v && "why" in v ? v.invalid : v);

export async function playCase(c) {
  const setup = c.setup ?? {};
  const events = [];
  const observeSettle = (setup.observe ?? []).includes("settle");
  const page = new Page({ route: setup.route ?? "/", html: expandFiller(setup.html ?? null), screen: expandFiller(setup.screen ?? ""),
    observe: (type, d) => { if (observeSettle) events.push(...recordEvents(type, d)); } });
  const ui = { modals: new Map(), dismissed: (d) => events.push({ type: "dialog_dismissed", namespace: d.namespace, confirm_asked: d.confirmAsked, on_cancel_ran: d.onCancelRan, closed: d.closed }) };
  const form = setup.form ? new ModelForm({ ...setup.form, postSets: setup.form.post_sets ?? [] }, (text) => events.push({ type: "console", level: "warn", text })) : null;
  mountSurface(page, setup, ui, events);
  if (form) page.declarations.push(...form.declarations());

  const llm = llmFromSetup(setup);
  const model = scriptedModel(c, events, llm);
  const relaySetup = setup.relay;
  const relay = makeRelay({
    served: relaySetup?.served !== false,
    access: relaySetup == null ? { app: ["Public"] } : { ...("access" in relaySetup ? { app: relaySetup.access } : {}), library: relaySetup.library_access ?? null },
    caller: { signedIn: !!relaySetup?.caller?.signed_in, roles: relaySetup?.caller?.roles ?? [] },
    llm, adaptor: model.chat,
  });
  const emit = (type, d) => {
    if (!observeSettle && type === "toolRun") return;
    events.push(...recordEvents(type, d));
  };
  const clock = new Clock(Date.parse("2026-01-05T12:00:00Z"));
  const speech = setup.voice ? new Speech(scriptedEngine(setup, events), clock, emit) : null;
  const session = new ChatSession({
    speech,
    page, relay, clock, emit, summarize: model.summarize, zone: setup.zone ?? null,
    compact: { at: setup.compact?.at ?? undefined, keep: setup.compact?.keep ?? undefined },
    maxTurns: setup.max_turns ?? undefined, accept: relaySetup?.accept ?? undefined,
    prompts: (setup.prompts ?? []).map((p) => ({ name: p.name, desc: p.desc ?? null, spec: p })),
    fetchPrompt: async (p, args) => fetchPrompt(p.spec, args), reader: readerOf(setup.reader), dictionary: setup.dictionary,
  });
  announceDeclarations(page, events, new Set());

  // Web storage. Without a panel the `persist` step is what saves; with one, its `persist` prop keeps
  // storage up to date after every step (sessionStorage, or localStorage with {storage: "local"}).
  let storage = setup.stored == null ? null : toStorage(rawOf(setup.stored));
  const panelSetup = setup.panel ?? null;
  const persistProp = panelSetup?.persist ?? null;
  const web = { session: null, local: null };
  if (persistProp) web[persistProp.storage === "local" ? "local" : "session"] = storage;
  let pendingSend = null;
  const panel = panelSetup ? new Panel({
    open: panelSetup.open ?? undefined, initiallyOpen: panelSetup.initially_open, launcher: panelSetup.launcher,
    className: panelSetup.class_name, launcherClassName: panelSetup.launcher_class_name, panelClassName: panelSetup.panel_class_name,
    intro: panelSetup.intro, header: panelSetup.header, shortcut: panelSetup.shortcut, width: panelSetup.width, agentChat: panelSetup.agent_chat,
    overrides: Object.fromEntries(Object.entries(panelSetup.overrides ?? {}).map(([k, v]) => [k, { wrapsDefault: !!v.wraps_default }])),
  }, { send: async (text) => { pendingSend = session.send(text); }, prompts: session.prompts, messages: () => session.messages }, emit) : null;
  let failure = null;
  // Let what a step started run until it is done or parked (waiting on a tool or a question card):
  // parked means nothing at all happens for a while, since the model and the page answer within ticks.
  const drain = async (promise) => {
    let settled = false;
    promise.then(() => (settled = true), (e) => { settled = true; failure = e; });
    let quiet = 0;
    for (let i = 0; i < 5000 && !(settled && !session.isRunning) && quiet < 20 && !failure; i++) {
      const before = events.length;
      await tick();
      quiet = events.length === before && page.pending === 0 ? quiet + 1 : 0;
    }
  };

  for (const step of c.steps ?? []) {
    if (failure) break;
    switch (step.op) {
      case "attach": for (const f of step.files) await session.attach(fileOf(f)); break;
      case "send": await drain(session.send((step.text ?? "") + filler(step.filler_chars ?? 0))); break;
      case "note": session.note(step.text); break;
      case "report": session.report(step.message); break;
      case "persist": storage = session.save(step.cap ?? undefined); events.push({ type: "persisted", transcript: storage.map(recordMessage) }); break;
      case "reload": case "reopen": {
        session.abandon(); await drain(Promise.resolve());
        session.history.splice(0, session.history.length, page.route);
        if (step.op === "reopen") web.session = null;
        const kept = !panel ? storage : persistProp ? web[persistProp.storage === "local" ? "local" : "session"] : null;
        session.restore(kept ?? []); break;
      }
      case "type": events.push(...recordEvents("composer", panel.type(step.text, step.caret_line ?? undefined))); break;
      case "key": {
        const view = await panel.key(step.key);
        events.push(...recordEvents("composer", view));
        if (pendingSend) { await drain(pendingSend); pendingSend = null; }
        break;
      }
      case "viewport": events.push(...recordEvents("viewport", panel.resize({ width: step.width, keyboard: step.keyboard }))); break;
      case "unmount_chat": {
        // A session the chat made ends with it; one an AgentProvider or Agent.Zone handed down does not.
        const own = (panelSetup.session ?? "own") === "own";
        if (own) { session.stop(); await drain(Promise.resolve()); }
        events.push({ type: "chat_unmounted", session_ended: own });
        break;
      }
      case "stop": session.stop(); await drain(Promise.resolve()); break;
      case "advance": clock.advance(step.by); break;
      case "mic":
        speech.engine.heard = [...step.heard];
        await speech.press(step.heard[0] ?? ""); // the first result is only used to name a refused press
        break;
      case "send_draft": {
        const text = step.edit ?? speech.draft;
        speech.draft = "";
        await drain(session.send(text, { voiced: true }));
        break;
      }
      case "unmount": unmount(page, step); break;
      case "render": announceDeclarations(page, events, new Set(lastClashes(page))); break;
      case "click": await drain(click(page, step)); break;
      case "open_row": session.openRow(step.id); break;
      default: throw new Error(`steps: op ${step.op} cannot be played`);
    }
    if (persistProp) web[persistProp.storage === "local" ? "local" : "session"] = session.save();
  }
  if (failure && !(failure instanceof ScriptExhausted)) throw failure;

  const final = finalOf(session, page, setup);
  if (panel) final.panel = panelView(panel.drawn(session.messages));
  if (speech) { final.draft = speech.draft; final.microphone = speech.microphone; }
  if (form) final.form = form.values;
  return { events, final };
}

function mountSurface(page, setup, ui, events) {
  for (const t of setup.tools ?? []) page.declarations.push(pageTool(page, t));
  for (const [name, k] of Object.entries(setup.state ?? {})) page.keys.set(name, { ...k, mask: k.mask ?? null });
  page.guides = (setup.guides ?? []).map((g) => ({ text: g.text, layout: g.layout ?? "/", zone: g.zone ?? null }));
  for (const l of setup.local_state ?? []) {
    if (!l.name) continue;
    const local = { name: l.name, value: l.value ?? null, zone: l.zone ?? null };
    page.locals.push(local);
    if (l.api !== "useState" || !l.set) continue;
    if (!SCALAR_SET.has(l.set)) {
      events.push({ type: "console", level: "warn", text: `akan agent: st.useState("${l.name}") is read-only for the agent: its set type ${l.set} has no schema` });
      continue;
    }
    page.declarations.push({ name: `set${cap(l.name)}`, desc: `Set ${l.name}.`, args: [{ name: "value", type: l.set }], zone: l.zone ?? null,
      run: async ({ value }) => { local.value = value; return { key: l.name, value }; } });
  }
  for (const comp of setup.components ?? []) {
    const spec = { ...comp, typeNameToRemove: comp.type_name_to_remove, confirmClose: comp.confirm_close, onCancel: comp.on_cancel };
    page.declarations.push(...declarationsOf(page, spec, ui));
  }
}

/** A declared st.tool whose body answers with the case's fixed result. */
function pageTool(page, t) {
  const args = (t.args ?? []).map((a) => ({ name: a.name, type: a.type ?? "string", values: a.values ?? undefined, oneOf: a.one_of ?? undefined }));
  return {
    name: t.name, desc: t.description ?? "", args, shared: !!t.shared, zone: t.zone ?? null, route: t.route ?? null,
    run: (callArgs, { signal, ask } = {}) => {
      if (t.asks && ask) return ask(t.asks);
      const land = () => { if (t.html_after != null) page.landLater(expandFiller(t.html_after)); };
      if (t.settles === false) {
        return new Promise(() => signal?.addEventListener("abort", () => { if ((t.on_abort ?? "ignore") === "ignore") land(); }, { once: true }));
      }
      land();
      return Promise.resolve(t.filler_chars > 0 ? filler(t.filler_chars) : (t.returns ?? null));
    },
  };
}

function announceDeclarations(page, events, known) {
  const { clashes, warnings } = catalogue([], page.declarations.filter((d) => page.mounted(d)));
  if (known.size === 0) for (const w of warnings) events.push({ type: "console", level: "warn", text: w });
  for (const clash of clashes) if (!known.has(clash.name)) events.push({ type: "tool_clash", name: clash.name, registrations: clash.registrations });
  page.knownClashes = clashes.map((x) => x.name);
}
const lastClashes = (page) => page.knownClashes ?? [];

function unmount(page, step) {
  const tools = new Set(step.tools ?? []);
  page.declarations = page.declarations.filter((d) => !tools.has(d.name));
  for (const k of step.state ?? []) { page.keys.delete(k); page.locals = page.locals.filter((l) => l.name !== k); }
  const guides = new Set(step.guides ?? []);
  page.guides = page.guides.filter((g) => !guides.has(g.text));
}

async function click(page, step) {
  const decl = page.declarations.find((d) => d.name === step.tool);
  if (!decl) throw new Error(`click: no declaration named ${step.tool}`);
  await decl.run(step.arguments ?? {}, { signal: new AbortController().signal });
  await page.settle();
}

function llmFromSetup(setup) {
  const p = setup.provider ?? {};
  const env = setup.env ?? {};
  if (p.from_options) {
    const f = p.from_options;
    return llmConfig({ name: p.name ?? undefined, accepts: p.accepts ?? undefined, apiKey: f.api_key ? env[f.api_key] ?? null : null,
      settings: { model: f.model ? env[f.model] : undefined, host: f.host ? env[f.host] : undefined } });
  }
  return llmConfig({ name: p.name ?? undefined, settings: p.settings ?? undefined, accepts: p.accepts ?? undefined, apiKey: p.api_key === false ? null : "configured" });
}

function fetchPrompt(spec, args) {
  if (spec.allowed === false) return { denied: true, status: 403 };
  const params = spec.params ?? [];
  const fill = (text) => text.replace(/\{(\w+)\}/g, (whole, name) => (params.includes(name) ? args[params.indexOf(name)] ?? "" : whole));
  return {
    messages: (spec.messages ?? []).map((m) => {
      const images = (m.images ?? []).map((f) => { const file = fileOf(f); return { name: file.name, kind: "image", mime: file.type ?? "image/png", size: file.size, ...(file.data != null ? { data: file.data } : {}) }; });
      return { role: "user", text: fill(m.text ?? ""), ...(images.length ? { attachments: images } : {}) };
    }),
  };
}

function readerOf(rules) {
  if (!rules) return null;
  return async (file) => {
    const rule = rules.find((r) => file.name.endsWith(r.suffix));
    if (!rule || !rule.result) return null;
    const r = rule.result;
    return { kind: r.kind, ...(r.text != null ? { text: r.text } : {}), ...(r.data != null ? { data: r.data } : {}) };
  };
}

function fileOf(f) {
  const size = f.size ?? Buffer.byteLength(f.text ?? "", "utf8");
  return { name: f.name, type: f.type ?? defaultMime(f), size, ...(f.text != null ? { text: f.text } : {}), ...(f.data != null ? { data: f.data } : {}) };
}
const defaultMime = (f) => (f.text != null ? "text/plain" : "application/octet-stream");

function toStorage(stored) {
  return Array.isArray(stored) ? stored.map((m) => fromRecordMessage(rawOf(m))) : stored;
}

function finalOf(session, page, setup) {
  const final = {
    transcript: session.messages.map(recordMessage), tokens: session.tokens, composer: session.composerFiles.map((f) => f.name),
    is_running: session.isRunning, is_compacting: session.isCompacting, route: page.route, commands: session.commands,
  };
  const described = session.prompts.filter((p) => p.desc && session.commands.includes(`/${p.name}`));
  if (described.length) final.command_descriptions = Object.fromEntries(described.map((p) => [`/${p.name}`, p.desc]));
  if (setup.state) final.page_state = Object.fromEntries([...page.keys.entries()].filter(([k]) => k in setup.state).map(([k, v]) => [k, v.value ?? null]));
  return final;
}

function panelView(d) {
  return {
    open: d.open, launcher: d.launcher, classes: d.classes, header: d.header, empty_state: d.emptyState,
    parts: Object.fromEntries(Object.entries(d.parts).map(([k, v]) => [k, { drawn_by: v.drawnBy, wraps: v.wraps }])),
    duties: d.duties, code_blocks: d.codeBlocks, layout: d.layout, lift: d.lift,
  };
}

/** The harness's scripted VoiceEngine: a subscription; each press reports what the case says it heard. */
function scriptedEngine(setup, events) {
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
