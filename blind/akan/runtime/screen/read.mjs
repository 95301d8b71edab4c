// readScreen and highlight over a parsed page (guideline, "Built-In Tools").
//
// Theory of operation: a screen is a tree from html.mjs. `isHidden` decides what nobody can see (hidden
// content never reads and never resolves). `render` walks a subtree into compact lines: headings with
// their anchors, links with their targets, control values with "(disabled)", passwords without value,
// the chat's own UI (data-agent-ui) left out, and skip regions replaced by a marker on a default read.
// `resolve` turns a name the agent saw into the element (or heading span) to read or highlight.

import { elements, textOf } from "./html.mjs";

export const READ_LIMIT = 8000;
const HEADING = /^h([1-6])$/;
const BLOCK = new Set(["div", "section", "main", "article", "aside", "header", "footer", "nav", "p", "ul", "ol", "li", "form", "table", "tr", "fieldset", "dl", "dt", "dd", "label", "body", "html"]);
const NEVER_READ = new Set(["script", "style", "template", "head", "noscript"]);

export function isHidden(el) {
  const a = el.attrs ?? {};
  if ("hidden" in a) return true;
  if ((a["aria-hidden"] ?? "").toLowerCase() === "true") return true;
  const style = (a.style ?? "").toLowerCase().replace(/\s+/g, "");
  if (style.includes("display:none") || style.includes("visibility:hidden")) return true;
  if (a.type === "hidden" && el.tag === "input") return true;
  return false;
}

/** Visible from the root down: no hidden ancestor, not inside the chat's own UI. */
export function isVisible(el) {
  for (let n = el; n && n.tag !== "#root"; n = n.parent) {
    if (isHidden(n) || "data-agent-ui" in (n.attrs ?? {}) || NEVER_READ.has(n.tag)) return false;
  }
  return true;
}

export const headingLevel = (el) => { const m = HEADING.exec(el.tag ?? ""); return m ? Number(m[1]) : 0; };
export const slug = (s) => s.toLowerCase().replace(/[^\p{L}\p{N}]/gu, "");
export const skipName = (el) => (el.attrs["data-agent-skip"] || el.tag);

/** The id or scope a heading names when it opens (is the first element of) such a container. */
function anchorOf(heading) {
  const parent = heading.parent;
  if (!parent || parent.tag === "#root") return null;
  const first = parent.children.find((c) => c.tag || (c.text ?? "").trim());
  if (first !== heading) return null;
  return parent.attrs["data-agent-scope"] || parent.attrs.id || null;
}

function controlLine(el) {
  const a = el.attrs;
  const disabled = "disabled" in a || a["aria-disabled"] === "true" ? " (disabled)" : "";
  const label = a["aria-label"] || a.name || a.id || a.placeholder || "";
  if (el.tag === "button") return `[button: ${textOf(el) || label}]${disabled}`;
  if (el.tag === "textarea") return `[textarea ${label}: ${textOf(el)}]${disabled}`;
  if (el.tag === "select") {
    const options = [...elements(el)].filter((o) => o.tag === "option");
    const chosen = options.find((o) => "selected" in o.attrs) ?? options[0];
    return `[select ${label}: ${chosen ? textOf(chosen) : ""}]${disabled}`;
  }
  const type = (a.type || "text").toLowerCase();
  if (type === "password") return `[password ${label}]${disabled}`;
  if (type === "checkbox" || type === "radio") return `[${type} ${label}: ${"checked" in a ? "checked" : "unchecked"}]${disabled}`;
  if (type === "submit" || type === "button") return `[button: ${a.value ?? label}]${disabled}`;
  return `[${type} ${label}: ${a.value ?? ""}]${disabled}`;
}

/**
 * Render a subtree into lines ({text, heading?}). The subtree's own root is never replaced by a skip
 * marker: naming a skip region reads it.
 */
export function render(node, { skipRegions = true } = {}) {
  const out = [];
  let inline = [];
  const flush = () => { const t = inline.join(" ").replace(/\s+/g, " ").trim(); if (t) out.push({ text: t }); inline = []; };
  const walk = (n, top) => {
    if (n.text !== undefined) { inline.push(n.text); return; }
    if (NEVER_READ.has(n.tag) || isHidden(n) || "data-agent-ui" in n.attrs) return;
    if (!top && skipRegions && "data-agent-skip" in n.attrs) { flush(); out.push({ text: `[skipped: ${skipName(n)}]` }); return; }
    const level = headingLevel(n);
    if (level) {
      flush();
      const anchor = anchorOf(n);
      out.push({ text: `${"#".repeat(level)} ${textOf(n)}${anchor ? ` (#${anchor})` : ""}`, heading: textOf(n) });
      return;
    }
    if (n.tag === "a") { inline.push(`[${textOf(n)}](${n.attrs.href ?? ""})`); return; }
    if (["input", "select", "textarea", "button"].includes(n.tag)) { inline.push(controlLine(n)); return; }
    if (n.tag === "br") { flush(); return; }
    const block = BLOCK.has(n.tag);
    if (block) flush();
    for (const c of n.children) walk(c, false);
    if (block) flush();
  };
  walk(node, true);
  flush();
  return out;
}

/**
 * Cut a read at the limit, character-exact: everything before the limit stays readable. A cut read ends
 * by naming the headings that begin below the cut, so the agent can still ask for them by name.
 */
export function fitToLimit(lines, limit = READ_LIMIT) {
  const full = lines.map((l) => l.text).join("\n");
  if (full.length <= limit) return full;
  const starts = [];
  let at = 0;
  for (const l of lines) { starts.push(at); at += l.text.length + 1; }
  let cut = limit;
  let tail = "";
  for (let round = 0; round < 4; round++) {
    const below = lines.filter((l, i) => l.heading && starts[i] >= cut).map((l) => l.heading);
    tail = `\n[cut at ${limit} characters; headings below: ${below.join(" | ") || "none"}]`;
    const next = Math.max(0, limit - tail.length);
    if (next === cut) break;
    cut = next;
  }
  return (full.slice(0, cut) + tail).slice(0, limit);
}

/** Every name a section or target may take on this screen, for refusals. */
export function sectionNames(root) {
  const names = [];
  for (const el of elements(root)) {
    if (!isVisible(el)) continue;
    for (const attr of ["data-akan-action", "data-akan-state", "data-agent-scope", "id"]) if (el.attrs[attr]) names.push(el.attrs[attr]);
    if ("data-agent-skip" in el.attrs) names.push(skipName(el));
    if (headingLevel(el)) names.push(textOf(el));
  }
  return [...new Set(names)];
}

/**
 * Resolve a name: exact annotations, scopes, ids and skip names first, then a heading by letters and
 * digits. A heading resolves to the span from it up to the next heading at the same or a higher level.
 * @returns {{element: any} | {heading: any, span: any[]} | null}
 */
export function resolve(root, name) {
  const visible = [...elements(root)].filter(isVisible);
  for (const el of visible) {
    const a = el.attrs;
    if (a["data-akan-action"] === name || a["data-akan-state"] === name || a["data-agent-scope"] === name || a.id === name) return { element: el };
    if ("data-agent-skip" in a && skipName(el) === name) return { element: el };
  }
  const wanted = slug(name);
  const heading = wanted && visible.find((el) => headingLevel(el) && slug(textOf(el)) === wanted);
  if (!heading) return null;
  return { heading, span: headingSpan(root, heading) };
}

/** The nodes after a heading, in document order, until a heading at the same or a higher level. */
function headingSpan(root, heading) {
  const level = headingLevel(heading);
  const span = [];
  let started = false;
  let stopped = false;
  const walk = (n) => {
    if (stopped) return;
    if (n === heading) { started = true; return; }
    if (n.tag && headingLevel(n) && started && headingLevel(n) <= level) { stopped = true; return; }
    if (started && (n.text !== undefined || !containsHeadingAtOrAbove(n, level))) { span.push(n); return; }
    for (const c of n.children ?? []) walk(c);
  };
  walk(root);
  return span;
}

function containsHeadingAtOrAbove(node, level) {
  for (const el of elements(node)) if (headingLevel(el) && headingLevel(el) <= level) return true;
  return false;
}

export function readSection(root, name) {
  const found = resolve(root, name);
  if (!found) return null;
  if (found.element) return fitToLimit(render(found.element, { skipRegions: true }));
  return fitToLimit(render({ tag: "div", attrs: {}, children: [found.heading, ...found.span] }));
}
