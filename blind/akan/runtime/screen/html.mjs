// A tiny, forgiving HTML reader: enough of the language to walk a rendered screen.
//
// It builds a tree of {tag, attrs, children, parent} element nodes and {text} text nodes. It is not a
// conforming HTML5 parser (no implied tags, no foreign content): a headless runtime reads markup its own
// components rendered, so well-formed input with void elements is what it has to handle.

const VOID = new Set(["area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"]);
const RAW_TEXT = new Set(["script", "style", "textarea", "title"]);
const ENTITIES = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'", nbsp: "\u00a0" };

/** @param {string} s */
export function decodeEntities(s) {
  return s.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (whole, body) => {
    if (body[0] === "#") {
      const code = body[1] === "x" || body[1] === "X" ? parseInt(body.slice(2), 16) : parseInt(body.slice(1), 10);
      return Number.isFinite(code) ? String.fromCodePoint(code) : whole;
    }
    return ENTITIES[body.toLowerCase()] ?? whole;
  });
}

function parseAttrs(source) {
  /** @type {Record<string, string>} */
  const attrs = {};
  const re = /([^\s=/>]+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+)))?/g;
  let m;
  while ((m = re.exec(source))) {
    attrs[m[1].toLowerCase()] = decodeEntities(m[2] ?? m[3] ?? m[4] ?? "");
  }
  return attrs;
}

/**
 * @param {string} html
 * @returns {{tag: string, attrs: Record<string,string>, children: any[], parent: any}} a synthetic root
 */
export function parseHtml(html) {
  const root = { tag: "#root", attrs: {}, children: [], parent: null };
  let current = root;
  let i = 0;
  const pushText = (text) => {
    if (text) current.children.push({ text: decodeEntities(text), parent: current });
  };
  while (i < html.length) {
    const lt = html.indexOf("<", i);
    if (lt < 0) { pushText(html.slice(i)); break; }
    pushText(html.slice(i, lt));
    if (html.startsWith("<!--", lt)) {
      const end = html.indexOf("-->", lt + 4);
      i = end < 0 ? html.length : end + 3;
      continue;
    }
    const gt = html.indexOf(">", lt);
    if (gt < 0) { pushText(html.slice(lt)); break; }
    const inner = html.slice(lt + 1, gt);
    i = gt + 1;
    if (inner.startsWith("!") || inner.startsWith("?")) continue;
    if (inner.startsWith("/")) {
      const name = inner.slice(1).trim().toLowerCase();
      let node = current;
      while (node && node.tag !== name) node = node.parent;
      if (node && node.parent) current = node.parent;
      continue;
    }
    const nameMatch = /^([a-zA-Z][\w-]*)/.exec(inner);
    if (!nameMatch) { pushText("<" + inner + ">"); continue; }
    const tag = nameMatch[1].toLowerCase();
    const selfClosing = inner.endsWith("/");
    const element = { tag, attrs: parseAttrs(inner.slice(nameMatch[0].length, selfClosing ? -1 : undefined)), children: [], parent: current };
    current.children.push(element);
    if (VOID.has(tag) || selfClosing) continue;
    if (RAW_TEXT.has(tag)) {
      const close = html.toLowerCase().indexOf(`</${tag}`, i);
      const end = close < 0 ? html.length : close;
      if (end > i) element.children.push({ text: tag === "textarea" || tag === "title" ? decodeEntities(html.slice(i, end)) : html.slice(i, end), parent: element });
      const closeGt = close < 0 ? html.length : html.indexOf(">", close);
      i = closeGt < 0 ? html.length : closeGt + 1;
      continue;
    }
    current = element;
  }
  return root;
}

/** Every element under `node`, in document order. */
export function* elements(node) {
  for (const child of node.children ?? []) {
    if (child.tag) {
      yield child;
      yield* elements(child);
    }
  }
}

/** The text of a subtree, whitespace collapsed. */
export function textOf(node) {
  if (node.text !== undefined) return node.text;
  return (node.children ?? []).map(textOf).join(" ").replace(/\s+/g, " ").trim();
}
