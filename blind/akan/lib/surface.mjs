// The page's side of a case: what mounted components declare (setup.tools, state, guides, local values,
// akanjs/ui components) and what the person does to them (unmount, render, click).

import { catalogue } from "../runtime/tools.mjs";
import { declarationsOf } from "../runtime/ui.mjs";
import { filler, expandFiller } from "./filler.mjs";

const SCALAR_SET = new Set(["string", "integer", "number", "boolean"]);
const cap = (s) => s.charAt(0).toUpperCase() + s.slice(1);

export function mountSurface(page, setup, ui, events) {
  for (const t of setup.tools ?? []) page.declarations.push(pageTool(page, t));
  for (const [name, k] of Object.entries(setup.state ?? {})) page.keys.set(name, { ...k, mask: k.mask ?? null });
  page.guides = (setup.guides ?? []).map((g) => ({ text: g.text, layout: g.layout ?? "/", zone: g.zone ?? null }));
  const setters = new Set(); // two states whose names differ only in the first letter's case must not share one
  for (const l of setup.local_state ?? []) {
    if (!l.name) continue;
    const local = { name: l.name, value: l.value ?? null, zone: l.zone ?? null };
    page.locals.push(local);
    if (l.api !== "useState" || !l.set) continue;
    if (!SCALAR_SET.has(l.set)) {
      events.push({ type: "console", level: "warn", text: `akan agent: st.useState("${l.name}") is read-only for the agent: its set type ${l.set} has no schema` });
      continue;
    }
    let setter = `set${cap(l.name)}`;
    for (let n = 2; setters.has(setter); n++) setter = `set${cap(l.name)}_${n}`;
    setters.add(setter);
    page.declarations.push({ name: setter, desc: `Set ${l.name}.`, args: [{ name: "value", type: l.set }], zone: l.zone ?? null,
      run: async ({ value }) => { local.value = value; return { key: l.name, value }; } });
  }
  for (const comp of setup.components ?? []) {
    const spec = { ...comp, typeNameToRemove: comp.type_name_to_remove, confirmClose: comp.confirm_close, onCancel: comp.on_cancel };
    page.declarations.push(...declarationsOf(page, spec, ui));
  }
}

/** A declared st.tool whose body answers with the case's fixed result. */
export function pageTool(page, t) {
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

export function announceDeclarations(page, events, known) {
  const { clashes, warnings } = catalogue([], page.declarations.filter((d) => page.mounted(d)));
  if (known.size === 0) for (const w of warnings) events.push({ type: "console", level: "warn", text: w });
  for (const clash of clashes) if (!known.has(clash.name)) events.push({ type: "tool_clash", name: clash.name, registrations: clash.registrations });
  page.knownClashes = clashes.map((x) => x.name);
}
export const lastClashes = (page) => page.knownClashes ?? [];

export function unmount(page, step) {
  const tools = new Set(step.tools ?? []);
  page.declarations = page.declarations.filter((d) => !tools.has(d.name));
  for (const k of step.state ?? []) { page.keys.delete(k); page.locals = page.locals.filter((l) => l.name !== k); }
  const guides = new Set(step.guides ?? []);
  page.guides = page.guides.filter((g) => !guides.has(g.text));
}

export async function click(page, step) {
  const decl = page.declarations.find((d) => d.name === step.tool);
  if (!decl) throw new Error(`click: no declaration named ${step.tool}`);
  await decl.run(step.arguments ?? {}, { signal: new AbortController().signal });
  await page.settle();
}
