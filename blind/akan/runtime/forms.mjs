// Forms (guideline, "Forms"): a control given the generated setter itself (no wrapping arrow) publishes it;
// reading a form publishes one patch tool that fills several fields at once.
//
// Theory of operation. A form is {model, fields, subscriptions, agent, postSets}; each field has a kind
// (plain, rows, composite, relation, base), an optional hidden/secret flag and the control that draws it
// here. `publishedControl` says whether a field's control publishes (by reference, enabled, not
// hidden/secret). The control's own tool applies its `transform`; the patch tool writes each plain field
// *through that same tool* so both writers normalize alike, and dispatches composites directly. Every
// write ends in `#written`, which runs the store's `_postSet<Field>` hook so the rule holds for every
// writer. A patch that names a field it may not write is refused whole: nothing is written.

const cap = (s) => s.charAt(0).toUpperCase() + s.slice(1);
const RELATION_PICKERS = new Set(["parent", "children"]);

const TRANSFORMS = {
  none: (v) => v,
  upper: (v) => (typeof v === "string" ? v.toUpperCase() : v),
  lower: (v) => (typeof v === "string" ? v.toLowerCase() : v),
  trim: (v) => (typeof v === "string" ? v.trim() : v),
  phone: (v) => {
    if (typeof v !== "string" && typeof v !== "number") return v;
    const d = String(v).replace(/\D/g, "");
    return d.length === 11 ? `${d.slice(0, 3)}-${d.slice(3, 7)}-${d.slice(7)}` : v;
  },
};

/** A control's transform: per element of a list, never on null. */
function transformOf(control) {
  const name = control.transform ?? (control.type === "phone" ? "phone" : "none");
  const one = TRANSFORMS[name] ?? TRANSFORMS.none;
  return (v) => (v === null || v === undefined ? v : Array.isArray(v) ? v.map(one) : one(v));
}

function scalarSchema(v) {
  if (typeof v === "boolean") return { type: "boolean" };
  if (Number.isInteger(v)) return { type: "integer" };
  if (typeof v === "number") return { type: "number" };
  if (Array.isArray(v)) return { type: "array", items: v.length ? scalarSchema(v[0]) : {} };
  if (v && typeof v === "object") return { type: "object" };
  return { type: "string" };
}

function valueSchema(field) {
  const t = field.control?.type;
  if (t === "parent" || t === "parentId") return { type: "string" };
  if (t === "children" || t === "childrenId") return { type: "array", items: { type: "string" } };
  if (field.kind === "rows") return { type: "array", items: { type: "object" } };
  return scalarSchema(field.value);
}

export class ModelForm {
  /** @param {{model: string, fields: object[], subscriptions?: number, agent?: boolean, postSets?: object[]}} spec */
  constructor(spec, warn) {
    this.model = spec.model;
    this.fields = spec.fields.map((f) => ({ ...f, kind: f.kind ?? "plain" }));
    this.values = Object.fromEntries(this.fields.map((f) => [f.name, structuredClone(f.value ?? null)]));
    this.subscriptions = spec.subscriptions ?? 1;
    this.agent = spec.agent !== false;
    this.hooks = new Map();
    for (const hook of spec.postSets ?? []) {
      const m = /^_postSet(.+)$/.exec(hook.name);
      const field = m && this.fields.find((f) => cap(f.name) === m[1]);
      if (!field) { warn(`akan store: ${hook.name} names no field of ${this.model}; the hook never runs`); continue; }
      if ((hook.shape ?? "method") !== "method") continue; // a class field or getter is not a prototype method: never registered
      this.hooks.set(field.name, hook);
    }
  }

  field(name) { return this.fields.find((f) => f.name === name); }
  secret(f) { return f.flag === "hidden" || f.flag === "secret"; }

  /** Does this field's own control publish a tool here? */
  publishedControl(f) {
    const c = f.control;
    if (!c || c.on_change === "inline" || c.disabled || this.secret(f) || f.kind === "base" || f.kind === "composite") return false;
    if (f.kind === "relation") return RELATION_PICKERS.has(c.type);
    return !RELATION_PICKERS.has(c.type);
  }

  #written(name, value) {
    this.values[name] = value;
    const hook = this.hooks.get(name);
    if (hook) {
      const list = Array.isArray(this.values[hook.appends_to]) ? [...this.values[hook.appends_to]] : [];
      list.push(...(Array.isArray(value) ? value : [value]));
      this.values[hook.appends_to] = list;
    }
    return value;
  }

  /** The control's own setter: transform, then write. */
  setThroughControl(f, value) {
    const stored = f.kind === "relation" ? value : transformOf(f.control)(value);
    return this.#written(f.name, stored);
  }

  declarations() {
    const decls = [];
    const M = this.model;
    for (const f of this.fields) {
      if (!this.publishedControl(f)) continue;
      const F = cap(f.name);
      decls.push({ name: `set${F}On${M}`, desc: `Set ${f.name} on the ${M} form.`, args: [{ name: "value", schema: valueSchema(f) }],
        run: async ({ value }) => ({ written: { [f.name]: this.setThroughControl(f, value) } }) });
      if (f.kind === "relation") {
        decls.push({ name: `loadOptions${F}On${M}`, desc: `List the ${f.name} choices as {id, label}.`, args: [], query: true,
          run: async () => (f.options ?? []).map((o) => ({ id: o.id, label: o.label ?? "" })) });
      }
      if (f.kind === "rows") {
        decls.push({ name: `add${F}On${M}`, desc: `Append rows to ${f.name}.`, args: [{ name: "rows", schema: { type: "array", items: { type: "object" } } }],
          run: async ({ rows }) => ({ written: { [f.name]: this.#written(f.name, [...(this.values[f.name] ?? []), ...(rows ?? [])]) } }) });
        decls.push({ name: `sub${F}On${M}`, desc: `Remove rows of ${f.name} by position (positions as before the call).`,
          args: [{ name: "positions", schema: { type: "array", items: { type: "integer" } } }],
          run: async ({ positions }) => {
            const drop = new Set(positions ?? []);
            return { written: { [f.name]: this.#written(f.name, (this.values[f.name] ?? []).filter((_, i) => !drop.has(i))) } };
          } });
      }
      if (f.control.type === "draggable") {
        decls.push({ name: `move${F}On${M}`, desc: `Move one entry of ${f.name} from one position to another.`,
          args: [{ name: "from", type: "integer" }, { name: "to", type: "integer" }],
          run: async ({ from, to }) => {
            const list = [...(this.values[f.name] ?? [])];
            if (from < 0 || from >= list.length || to < 0 || to >= list.length) return { error: `positions must be between 0 and ${list.length - 1}` };
            const [moved] = list.splice(from, 1);
            list.splice(to, 0, moved);
            return { written: { [f.name]: this.#written(f.name, list) } };
          } });
      }
    }
    if (this.subscriptions > 0 && this.agent) decls.push(this.#patchTool());
    return decls;
  }

  #patchable(f) { return (f.kind === "plain" || f.kind === "composite" || f.kind === "rows") && !this.secret(f); }

  #patchTool() {
    const properties = Object.fromEntries(this.fields.filter((f) => this.#patchable(f)).map((f) => [f.name, valueSchema(f)]));
    return {
      name: `fill${this.model}Form`, shared: true, desc: `Fill several fields of the ${this.model} form at once; fields left out keep their values.`,
      args: [{ name: "patch", schema: { type: "object", properties } }],
      run: async ({ patch }) => this.#patch(patch ?? {}),
    };
  }

  #patch(patch) {
    const onScreen = this.fields.filter((f) => f.kind !== "composite" && this.#patchable(f) && this.publishedControl(f)).map((f) => f.name);
    for (const name of Object.keys(patch)) {
      const f = this.field(name);
      if (!f || !this.#patchable(f)) return { error: `the form cannot write "${name}": it is not a field an agent may fill` };
      if (f.kind !== "composite" && !this.publishedControl(f)) {
        return { error: `the form cannot write "${name}": no enabled control for it is on screen. Fields on screen: ${onScreen.join(", ") || "none"}` };
      }
    }
    const written = {};
    for (const [name, value] of Object.entries(patch)) {
      const f = this.field(name);
      written[name] = f.kind === "composite" ? this.#written(name, value) : this.setThroughControl(f, value);
    }
    return { written };
  }
}
