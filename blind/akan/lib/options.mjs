// The app's configuration in a case, as the runtime's own options: the LLM role (setLlm / applyAdaptor),
// prompt() endpoints, the attachment reader, files, the stored transcript and the panel's props.

import { llmConfig } from "../runtime/provider.mjs";
import { fromRecordMessage } from "./record.mjs";

/** A `{invalid, why}` marker stands for its raw value, handed over unchanged. */
export const rawOf = (v) => (v && typeof v === "object" && !Array.isArray(v) && "invalid" in v && "why" in v ? v.invalid : v);

export function llmFromSetup(setup) {
  const p = setup.provider ?? {};
  const env = setup.env ?? {};
  if (p.from_options) {
    const f = p.from_options;
    return llmConfig({ name: p.name ?? undefined, accepts: p.accepts ?? undefined, apiKey: f.api_key ? env[f.api_key] ?? null : null,
      settings: { model: f.model ? env[f.model] : undefined, host: f.host ? env[f.host] : undefined } });
  }
  return llmConfig({ name: p.name ?? undefined, settings: p.settings ?? undefined, accepts: p.accepts ?? undefined, apiKey: p.api_key === false ? null : "configured" });
}

export function fetchPrompt(spec, args) {
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

export function readerOf(rules) {
  if (!rules) return null;
  return async (file) => {
    const rule = rules.find((r) => file.name.endsWith(r.suffix));
    if (!rule || !rule.result) return null;
    const r = rule.result;
    return { kind: r.kind, ...(r.text != null ? { text: r.text } : {}), ...(r.data != null ? { data: r.data } : {}) };
  };
}

export function fileOf(f) {
  const size = f.size ?? Buffer.byteLength(f.text ?? "", "utf8");
  return { name: f.name, type: f.type ?? defaultMime(f), size, ...(f.text != null ? { text: f.text } : {}), ...(f.data != null ? { data: f.data } : {}) };
}
const defaultMime = (f) => (f.text != null ? "text/plain" : "application/octet-stream");

export function toStorage(stored) {
  return Array.isArray(stored) ? stored.map((m) => fromRecordMessage(rawOf(m))) : stored;
}

/** The relay's server side: whether it is served, the guards the app and its libraries named, the caller. */
export function relayServer(relaySetup) {
  if (relaySetup == null) return { served: true, access: { app: ["Public"] }, caller: { signedIn: false, roles: [] } };
  return {
    served: relaySetup.served !== false,
    access: { ...("access" in relaySetup ? { app: relaySetup.access } : {}), library: relaySetup.library_access ?? null },
    caller: { signedIn: !!relaySetup.caller?.signed_in, roles: relaySetup.caller?.roles ?? [] },
  };
}

/** The panel's props as the runtime's Panel takes them. */
export function panelProps(p) {
  return {
    open: p.open ?? undefined, initiallyOpen: p.initially_open, launcher: p.launcher, className: p.class_name,
    launcherClassName: p.launcher_class_name, panelClassName: p.panel_class_name, intro: p.intro, header: p.header,
    shortcut: p.shortcut, width: p.width, agentChat: p.agent_chat,
    overrides: Object.fromEntries(Object.entries(p.overrides ?? {}).map(([k, v]) => [k, { wrapsDefault: !!v.wraps_default }])),
  };
}
