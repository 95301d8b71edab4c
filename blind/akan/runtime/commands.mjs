// Slash commands (guideline, "Slash Commands And The Transcript").
//
// Six built-ins, listed first: /new (alias /clear), /retry, /compact, /copy, /help, /tools. Then the
// app's prompt() endpoints, each as its own command, except one whose name a built-in or alias takes
// (the built-in wins and the prompt is left out of the menu). Arguments are positional,
// whitespace-separated, and a double-quoted span stays one argument.

export const BUILTINS = ["new", "retry", "compact", "copy", "help", "tools"];
export const ALIASES = { clear: "new" };

/** @returns {{name: string, args: string[]} | null} */
export function parseCommand(text) {
  const m = /^\/(\S+)\s*([\s\S]*)$/.exec(text.trim());
  if (!m) return null;
  return { name: m[1], args: splitArgs(m[2]) };
}

export function splitArgs(rest) {
  const args = [];
  const re = /"([^"]*)"|(\S+)/g;
  let m;
  while ((m = re.exec(rest))) args.push(m[1] ?? m[2]);
  return args;
}

export const builtinFor = (name) => (BUILTINS.includes(name) ? name : ALIASES[name] ?? null);

/** The `/` menu: built-ins, then prompts no built-in or alias shadows. */
export function menu(prompts) {
  const taken = new Set([...BUILTINS, ...Object.keys(ALIASES)]);
  return [...BUILTINS.map((n) => ({ name: n })), ...prompts.filter((p) => !taken.has(p.name))];
}

export function helpText(prompts) {
  const lines = [
    "Commands:",
    "/new (or /clear): start a new conversation",
    "/retry: send your last message again",
    "/compact: summarize the conversation so far",
    "/copy: copy the conversation with the route and time",
    "/help: show this list",
    "/tools: list what the assistant can do on this screen",
  ];
  for (const p of menu(prompts).slice(BUILTINS.length)) lines.push(`/${p.name}${p.desc ? `: ${p.desc}` : ""}`);
  return lines.join("\n");
}
