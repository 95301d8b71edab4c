// The page an in-page agent lives on: route and history, the rendered HTML, and what mounted components
// declared (tools, readable keys, guides, local values). A headless stand-in for the browser.
//
// `settle()` is ScreenSettle.wait(): it resolves once no change is pending on the page (a store action's
// fetch landing a tick after the body returned), bounded so a page that never goes quiet cannot hold a
// turn.

import { elements, parseHtml } from "./screen/html.mjs";

const tick = () => new Promise((resolve) => setImmediate(resolve));
const SETTLE_BOUND_TICKS = 50;

export class Page {
  /** @param {{route?: string, html?: string|null, screen?: string, observe?: (type: string, detail: object) => void}} init */
  constructor(init = {}) {
    this.route = init.route ?? "/";
    this.html = init.html ?? null;
    this.screenText = init.screen ?? "";
    this.pending = 0;
    this.observe = init.observe ?? (() => {});
    /** @type {object[]} tool declarations of mounted components */
    this.declarations = [];
    /** @type {Map<string, object>} subscribed store keys */
    this.keys = new Map();
    /** @type {object[]} st.useState / st.expose values */
    this.locals = [];
    /** @type {{text: string, layout: string, zone?: string|null}[]} */
    this.guides = [];
    /** @type {Map<string, boolean>} named dropdowns and whether each is open */
    this.dropdowns = new Map();
    this._tree = null;
    this._treeOf = null;
  }

  /** The rendered page; a closed dropdown's menu (data-agent-dropdown) is mounted but hidden. */
  get tree() {
    if (this.html == null) return null;
    const key = this.html + JSON.stringify([...this.dropdowns]);
    if (this._treeOf !== key) {
      this._tree = parseHtml(this.html);
      this._treeOf = key;
      for (const el of elements(this._tree)) {
        const ns = el.attrs["data-agent-dropdown"];
        if (ns !== undefined && !this.dropdowns.get(ns)) el.attrs.hidden = "";
      }
    }
    return this._tree;
  }

  /** Change the page a moment from now, as a fetch committing after the action returned would. */
  landLater(html) {
    this.pending++;
    setImmediate(() => { this.html = html; this.pending--; });
  }

  async settle() {
    this.observe("settle", { phase: "start" });
    await tick();
    for (let i = 0; this.pending > 0 && i < SETTLE_BOUND_TICKS; i++) await tick();
    this.observe("settle", { phase: "end" });
  }

  /** Is a declaration mounted on the current route? (`route` is a path prefix) */
  mounted(decl) {
    if (decl.when && !decl.when()) return false;
    return !decl.route || routeUnder(this.route, decl.route);
  }
}

/** Path-segment prefix: /tasks is under /tasks and /, not under /task. */
export function routeUnder(route, prefix) {
  if (prefix === "/") return true;
  const p = prefix.replace(/\/$/, "");
  return route === p || route.startsWith(p + "/");
}
