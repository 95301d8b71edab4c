// The chat panel as a headless state machine (guideline, "Mounting The Chat", "Slash Commands And The
// Transcript": the composer, the `/` menu, history walking, the launcher and its shortcut).
//
// Theory of operation. The panel owns the composer (text and caret line), the `/` menu (open while the
// text is a bare `/word` and not dismissed), the history of what was sent (seeded from the transcript's
// user messages) and whether it is open (its own state, or the app's controlled `open` prop, in which case
// it only asks through onOpenChange). `key(name)` is one key press and reports what the composer shows
// after it. Nothing here changes what is posted: Enter hands the text to the session's `send`.

import { menu as commandMenu } from "./commands.mjs";

export const MAX_ROWS = 5; // "a few lines" before the textarea scrolls: this runtime's choice
export const SM_BREAKPOINT = 640; // at this width and wider the panel is a card, below it the whole screen
export const SLOTS = ["AgentLauncher", "AgentBubble", "AgentComposer", "AgentApproval", "AgentQuestion", "AgentMenu", "AgentMarkdown", "AgentCode"];
const DEFAULT_NAMES = { AgentLauncher: "DefaultLauncher", AgentBubble: "DefaultBubble", AgentComposer: "DefaultComposer", AgentApproval: "DefaultApproval",
  AgentQuestion: "DefaultQuestion", AgentMenu: "DefaultMenu", AgentMarkdown: "DefaultMarkdown", AgentCode: "DefaultCode" };
export const EMPTY_STATE = "Ask anything about this page.";

export class Panel {
  /**
   * @param {object} props the AgentChat props: open, onOpenChange, initiallyOpen, launcher, className,
   *   launcherClassName, panelClassName, intro, header, overrides, shortcut, agentChat
   * @param {{send: (text: string) => Promise<void>, prompts: object[], messages: () => object[]}} chat
   */
  constructor(props, chat, emit) {
    this.props = props;
    this.chat = chat;
    this.emit = emit;
    this.controlled = typeof props.open === "boolean";
    this.ownOpen = props.initiallyOpen !== false;
    this.text = "";
    this.caretLine = 0;
    this.menuDismissed = false;
    this.highlight = 0;
    this.historyIndex = null; // null: at the bottom (the draft)
    this.draft = "";
    this.width = props.width ?? 1280;
    this.keyboard = 0;
  }

  get open() { return this.controlled ? this.props.open : this.ownOpen; }

  setOpen(open) {
    if (open === this.open && !this.controlled) return;
    if (this.controlled) { this.props.onOpenChange?.(open); this.emit("openChange", { open, controlled: true }); return; }
    this.ownOpen = open;
    this.emit("openChange", { open, controlled: false });
  }

  /** Sent user messages, oldest first: the arrows walk these. */
  history() { return this.chat.messages().filter((m) => m.role === "user" && !m.summary).map((m) => m.text); }

  menuRows() {
    const m = /^\/(\S*)$/.exec(this.text);
    if (!m || this.menuDismissed) return null;
    const rows = commandMenu(this.chat.prompts).map((c) => `/${c.name}`).filter((name) => name.slice(1).startsWith(m[1]));
    return rows.length ? rows : null;
  }

  type(text, caretLine) {
    this.text = text;
    const lines = text.split("\n").length;
    this.caretLine = caretLine ?? lines - 1;
    this.menuDismissed = false;
    this.highlight = 0;
    this.historyIndex = null;
    return this.view(null);
  }

  async key(key) {
    const rows = this.menuRows();
    const extra = {};
    if (key === "Cmd+L" || key === "Ctrl+L") {
      extra.captured = this.props.shortcut !== false;
      if (extra.captured) this.setOpen(!this.open);
    } else if (rows && (key === "ArrowUp" || key === "ArrowDown")) {
      this.highlight = (this.highlight + (key === "ArrowDown" ? 1 : rows.length - 1)) % rows.length;
    } else if (rows && key === "Tab") {
      this.type(rows[this.highlight] + " ");
    } else if (rows && key === "Enter") {
      extra.picked = rows[this.highlight];
      this.type("");
      await this.chat.send(extra.picked);
    } else if (key === "Escape") {
      if (rows) this.menuDismissed = true; else this.setOpen(false);
    } else if (key === "Enter") {
      const text = this.text;
      this.type("");
      if (text.trim()) await this.chat.send(text);
    } else if (key === "Shift+Enter") {
      const lines = this.text.split("\n");
      lines.splice(this.caretLine + 1, 0, "");
      this.text = lines.join("\n");
      this.caretLine += 1;
    } else if (key === "ArrowUp" || key === "ArrowDown") this.#walk(key === "ArrowUp" ? -1 : 1);
    return this.view(key, extra);
  }

  /** The arrows step through earlier messages only with the caret on the first (up) or last (down) line. */
  #walk(direction) {
    const lines = this.text.split("\n").length;
    if (direction < 0 && this.caretLine !== 0) { this.caretLine -= 1; return; }
    if (direction > 0 && this.caretLine !== lines - 1) { this.caretLine += 1; return; }
    const sent = this.history();
    if (direction < 0) {
      if (!sent.length) return;
      if (this.historyIndex === null) { this.draft = this.text; this.historyIndex = sent.length; }
      if (this.historyIndex === 0) return;
      this.historyIndex -= 1;
      this.text = sent[this.historyIndex];
      this.caretLine = 0;
    } else {
      if (this.historyIndex === null) return;
      this.historyIndex += 1;
      this.text = this.historyIndex >= sent.length ? this.draft : sent[this.historyIndex];
      if (this.historyIndex >= sent.length) this.historyIndex = null;
      this.caretLine = this.text.split("\n").length - 1;
    }
  }

  view(key, extra = {}) {
    const lines = this.text.split("\n").length;
    const rows = this.menuRows();
    return { key, text: this.text, caretLine: this.caretLine, rows: Math.min(lines, MAX_ROWS), scrolls: lines > MAX_ROWS,
      menu: rows ? { rows, highlighted: rows[this.highlight] } : null, panelOpen: this.open, ...extra };
  }

  resize({ width, keyboard }) {
    if (width != null) this.width = width;
    if (keyboard != null) this.keyboard = keyboard;
    return { width: this.width, keyboard: this.keyboard, layout: this.layout, lift: this.lift };
  }

  get layout() { return this.width < SM_BREAKPOINT ? "full-screen" : "card"; }
  get lift() { return this.keyboard > 0 ? this.keyboard : 0; }

  /** What the panel draws. */
  drawn(messages) {
    const p = this.props;
    const overrides = p.overrides ?? {};
    const parts = Object.fromEntries(SLOTS.map((slot) => [slot, overrides[slot]
      ? { drawnBy: "override", wraps: overrides[slot].wrapsDefault ? DEFAULT_NAMES[slot] : null }
      : { drawnBy: DEFAULT_NAMES[slot], wraps: null }]));
    return {
      open: this.open,
      launcher: { drawn: p.launcher !== false, classes: [p.className, p.launcherClassName].filter(Boolean) },
      classes: [p.className, p.panelClassName].filter(Boolean),
      header: ["clear", "close", ...(p.header ?? [])],
      emptyState: messages.length ? null : p.intro ?? EMPTY_STATE,
      parts,
      duties: p.agentChat ? [] : ["slash-commands", "compaction-notice", "approval-gate"],
      codeBlocks: messages.filter((m) => m.role === "assistant").flatMap((m) => codeBlocks(m.text)),
      layout: this.layout, lift: this.lift,
    };
  }
}

/** Fenced blocks of a reply, each handed to the AgentCode slot with its language. */
export function codeBlocks(text) {
  const out = [];
  const re = /```([^\n`]*)\n([\s\S]*?)```/g;
  let m;
  while ((m = re.exec(text ?? ""))) out.push({ slot: "AgentCode", language: m[1].trim() || null, code: m[2].replace(/\n$/, "") });
  return out;
}
