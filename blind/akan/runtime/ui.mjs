// What akanjs/ui components publish on their own (guideline, "What `akanjs/ui` Publishes For You").
//
// Each mounted component becomes tool declarations on the page. Components that may appear more than
// once per screen (Tab, Dialog, Dropdown) publishes nothing without a namespace. Modals publish their verbs
// only while open; row wrappers take the row's id as `modelId` instead of closing over it, so every row's
// registration is the same declaration (`shared`). A component tool answers {done: <name>, ...arguments}.

const MODEL_ID = [{ name: "modelId", type: "string" }];

/**
 * @param {import("./page.mjs").Page} page
 * @param {{type: string, namespace?: string|null, model?: string|null, open?: boolean,
 *   typeNameToRemove?: boolean, confirmClose?: boolean, onCancel?: boolean}} c
 * @param {{modals: Map<string, boolean>, dismissed: (d: object) => void}} ui shared modal state
 */
export function declarationsOf(page, c, ui) {
  const done = (name, after) => async (args = {}) => { after?.(args); return { done: name, ...args }; };
  const tool = (name, args, run, extra = {}) => ({ name, desc: `${name} (${c.type})`, args, run, shared: true, ...extra });
  const ns = c.namespace;
  const modalOpen = (kind) => () => !!ui.modals.get(kind);
  const open = (kind, value) => () => ui.modals.set(kind, value);
  switch (c.type) {
    case "Model.NewWrapper": case "Model.New":
      return [tool(ns ? `newIn${ns}` : "new", [], done(ns ? `newIn${ns}` : "new"))];
    case "Model.EditWrapper": return [tool("edit", MODEL_ID, done("edit", open("edit", true)))];
    case "Model.ViewWrapper": return [tool("view", MODEL_ID, done("view", open("view", true)))];
    case "Model.RemoveWrapper": case "Model.Remove": return [tool("remove", MODEL_ID, done("remove"))];
    case "Model.SureToRemove": return c.typeNameToRemove ? [] : [tool("remove", MODEL_ID, done("remove"))];
    case "Data.ListContainer": case "Model.AdminPanel":
      return [tool("new", [], done("new")), tool("edit", MODEL_ID, done("edit", open("edit", true))),
        tool("view", MODEL_ID, done("view", open("view", true))), tool("remove", MODEL_ID, done("remove"))];
    case "Load.Units": case "Load.Pagination": case "Data.Pagination":
      return [tool(`setPageOf${c.model ?? ""}`, [{ name: "page", type: "integer" }], done(`setPageOf${c.model ?? ""}`))];
    case "Tab":
      return ns ? [tool(`switchTabIn${ns}`, [{ name: "tab", type: "string" }], done(`switchTabIn${ns}`), { shared: false })] : [];
    case "Dropdown": {
      if (!ns) return [];
      page.dropdowns.set(ns, !!c.open);
      page.locals.push({ name: `dropdownIn${ns}`, read: () => ({ open: !!page.dropdowns.get(ns) }) });
      return [tool(`openDropdownIn${ns}`, [], done(`openDropdownIn${ns}`, () => page.dropdowns.set(ns, true)), { shared: false }),
        tool(`closeDropdownIn${ns}`, [], done(`closeDropdownIn${ns}`, () => page.dropdowns.set(ns, false)), { shared: false })];
    }
    case "Dialog": {
      if (!ns) return [];
      // Its close is published only while the dialog is open: a closed dialog draws no X to press.
      let isOpen = !!c.open;
      const name = `closeDialogIn${ns}`;
      return [tool(name, [], async () => {
        // The dialog's own dismissal: confirmClose prompts first (no answer comes, so it stays open), and
        // onCancel fires only on a dismissal that happened.
        const closed = !c.confirmClose;
        const onCancelRan = closed && !!c.onCancel;
        if (closed) isOpen = false;
        ui.dismissed({ namespace: ns, confirmAsked: !!c.confirmClose, onCancelRan, closed });
        return { done: name, closed };
      }, { shared: false, when: () => isOpen })];
    }
    case "Model.EditModal":
      if (c.open) ui.modals.set("edit", true);
      return [tool("submit", [], done("submit", open("edit", false)), { when: modalOpen("edit") }),
        tool("cancelEditOf", [], done("cancelEditOf", open("edit", false)), { when: modalOpen("edit") })];
    case "Model.ViewModal":
      if (c.open) ui.modals.set("view", true);
      return [tool("closeViewOf", [], done("closeViewOf", open("view", false)), { when: modalOpen("view") })];
    case "Model.ViewEditModal":
      if (c.open) ui.modals.set("view", true);
      return [tool("edit", MODEL_ID, done("edit", open("edit", true)), { when: modalOpen("view") }),
        tool("submit", [], done("submit", () => { ui.modals.set("edit", false); ui.modals.set("view", false); }), { when: modalOpen("view") }),
        tool("closeViewOf", [], done("closeViewOf", open("view", false)), { when: modalOpen("view") })];
    // The shell. The guideline says these publish their controls but names none of the tools, so the
    // names below are this runtime's own. ThemeToggle also opts the `theme` key onto the surface.
    case "Layout.Sider": return [tool("toggleSider", [], done("toggleSider"), { shared: false })];
    case "System.SelectLanguage":
      return [tool("selectLanguage", [{ name: "language", type: "string" }], done("selectLanguage"), { shared: false })];
    case "Link.Back": return [tool("followBackLink", [], done("followBackLink"), { shared: false })];
    case "System.ThemeToggle":
      page.keys.set("theme", { value: "light" });
      return [tool("toggleTheme", [], done("toggleTheme"), { shared: false })];
    default:
      return [];
  }
}
