// The record's `final`: the session's state at the end of the case, in the record's vocabulary.

import { recordMessage } from "./record.mjs";

export function finalOf(session, page, setup) {
  const final = {
    transcript: session.messages.map(recordMessage), tokens: session.tokens, composer: session.composerFiles.map((f) => f.name),
    is_running: session.isRunning, is_compacting: session.isCompacting, route: page.route, commands: session.commands,
  };
  const described = session.prompts.filter((p) => p.desc && session.commands.includes(`/${p.name}`));
  if (described.length) final.command_descriptions = Object.fromEntries(described.map((p) => [`/${p.name}`, p.desc]));
  if (setup.state) final.page_state = Object.fromEntries([...page.keys.entries()].filter(([k]) => k in setup.state).map(([k, v]) => [k, v.value ?? null]));
  return final;
}

export function panelView(d) {
  return {
    open: d.open, launcher: d.launcher, classes: d.classes, header: d.header, empty_state: d.emptyState,
    parts: Object.fromEntries(Object.entries(d.parts).map(([k, v]) => [k, { drawn_by: v.drawnBy, wraps: v.wraps }])),
    duties: d.duties, code_blocks: d.codeBlocks, layout: d.layout, lift: d.lift,
  };
}
