// The five tools every store surface publishes (guideline, "Built-In Tools"): navigate, goBack,
// readScreen, readState and highlight. There is no general wait tool on purpose.
//
// navigate accepts internal paths only and waits for the screen inside its own run; goBack walks this
// session's own history. readScreen and highlight read the zone's container when the session belongs to
// a zone. readScreen and readState are queries: the session takes no settle after them.

import { elements } from "./screen/html.mjs";
import { fitToLimit, readSection, render, resolve, sectionNames } from "./screen/read.mjs";

const isAppPath = (p) => typeof p === "string" && /^\/(?!\/)/.test(p) && !/^[a-z][a-z0-9+.-]*:/i.test(p) && !p.includes("\\");

/** The element a session may read: the whole page, or its zone's container. */
export function screenRoot(page, zone) {
  const tree = page.tree;
  if (!tree || !zone) return tree;
  for (const el of elements(tree)) if (el.attrs["data-agent-zone"] === zone) return el;
  return { tag: "#root", attrs: {}, children: [], parent: null };
}

const refusal = (root, name) => `No section or target named "${name}" is on screen. Sections on screen: ${sectionNames(root).join(", ") || "none"}.`;

/** @param {{page: import("./page.mjs").Page, history: string[], zone?: string|null, readKey: (key: string) => object}} ctx */
export function builtinTools(ctx) {
  const { page, history } = ctx;
  return [
    {
      name: "navigate", desc: "Go to another screen of this app. Takes an internal path such as /tasks/42.",
      args: [{ name: "path", type: "string" }],
      run: async ({ path }) => {
        if (!isAppPath(path)) return { error: `"${path}" is not a path inside this app; give a path starting with a single /` };
        history.push(path);
        page.route = path;
        await page.settle();
        return { route: page.route };
      },
    },
    {
      name: "goBack", desc: "Go back to the previous screen of this conversation.", args: [],
      run: async () => {
        if (history.length <= 1) return { error: "there is no earlier screen in this conversation" };
        history.pop();
        page.route = history[history.length - 1];
        await page.settle();
        return { route: page.route };
      },
    },
    {
      name: "readScreen", query: true,
      desc: "Read the rendered screen as compact text. Give `section` (an annotation, scope, id, skipped region or heading) to read one part.",
      args: [{ name: "section", type: "string", optional: true }],
      run: async ({ section } = {}) => {
        const root = screenRoot(page, ctx.zone);
        if (!root) return section ? refusal({ children: [] }, section) : fitToLimit(page.screenText.split("\n").map((text) => ({ text })));
        if (section === undefined || section === null || section === "") return fitToLimit(render(root));
        return readSection(root, section) ?? refusal(root, section);
      },
    },
    {
      name: "readState", query: true, desc: "Read the current value of one readable state key listed in the context.",
      args: [{ name: "key", type: "string" }],
      run: async ({ key }) => ctx.readKey(key),
    },
    {
      name: "highlight", desc: "Show the user where something is: scrolls to it and flashes it. Takes a section name as readScreen does.",
      args: [{ name: "target", type: "string" }],
      run: async ({ target }) => {
        const root = screenRoot(page, ctx.zone);
        if (!root || !resolve(root, target)) return { error: refusal(root ?? { children: [] }, target) };
        return { highlighted: target };
      },
    },
  ];
}
