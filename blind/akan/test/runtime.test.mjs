// Unit checks of the runtime's pure parts: `node --test blind/akan/test/`. Each name says the behaviour
// and the guideline section it comes from.

import { test } from "node:test";
import assert from "node:assert/strict";
import { sanitize, STOPPED_TEXT } from "../runtime/transcript.mjs";
import { cutIndex } from "../runtime/compaction.mjs";
import { fitToLimit, render, readSection } from "../runtime/screen/read.mjs";
import { parseHtml } from "../runtime/screen/html.mjs";
import { refusalFor, MB } from "../runtime/attachments.mjs";
import { splitArgs, menu } from "../runtime/commands.mjs";
import { agentView, MASKED } from "../runtime/state.mjs";
import { catalogue } from "../runtime/tools.mjs";

const call = (id) => ({ id, name: "t", args: {} });

test("sanitize answers a call left without a result, and says it was stopped (Slash Commands And The Transcript)", () => {
  const out = sanitize([{ role: "user", text: "go" }, { role: "assistant", text: "", toolCalls: [call("a"), call("b")] }, { role: "tool", callId: "a", text: "1" }]);
  assert.deepEqual(out.map((m) => m.role), ["user", "assistant", "tool", "tool"]);
  assert.equal(out[3].callId, "b");
  assert.equal(out[3].text, STOPPED_TEXT);
});

test("sanitize drops a result whose call is gone, as after a capped store", () => {
  const out = sanitize([{ role: "tool", callId: "x", text: "late" }, { role: "user", text: "hi" }]);
  assert.deepEqual(out, [{ role: "user", text: "hi" }]);
});

test("the compaction cut never opens the kept part on a tool result; it prefers a user message in the tail", () => {
  const wire = [{ role: "user" }, { role: "assistant" }, { role: "tool" }, { role: "user" }, { role: "assistant" }];
  assert.equal(cutIndex(wire, 3), 3);
  const oneTurn = [{ role: "user" }, { role: "assistant" }, { role: "tool" }, { role: "tool" }, { role: "tool" }];
  assert.equal(cutIndex(oneTurn, 2), 1);
});

test("a read cut at the limit keeps what precedes it and names the headings below the cut (Built-In Tools)", () => {
  const lines = [{ text: "x".repeat(9000) }, { text: "## Later", heading: "Later" }];
  const read = fitToLimit(lines, 8000);
  assert.equal(read.length <= 8000, true);
  assert.match(read, /^x{7000}/);
  assert.match(read, /Later/);
});

test("readScreen never reads a password, the chat's own UI, or hidden content; a skip region leaves a marker", () => {
  const root = parseHtml('<main><h1>Login</h1><input type="password" value="hunter2"><div data-agent-ui>chat</div>' +
    '<p hidden>secret</p><p style="display: none">gone</p><footer data-agent-skip="site footer">links</footer></main>');
  const text = render(root).map((l) => l.text).join("\n");
  assert.doesNotMatch(text, /hunter2|chat|secret|gone|links/);
  assert.match(text, /\[skipped: site footer\]/);
  assert.match(readSection(root, "site footer"), /links/);
});

test("a heading resolves by its letters and digits and reads until a heading at its own level", () => {
  const root = parseHtml("<h2>Open Items (3)</h2><p>one</p><h3>Sub</h3><p>two</p><h2>Closed</h2><p>three</p>");
  const read = readSection(root, "open-items-3");
  assert.match(read, /one[\s\S]*two/);
  assert.doesNotMatch(read, /three/);
});

test("the paperclip refuses by name: duplicate, over 4 MB, a sixth file, over 8 MB in total (Attachments And Speech)", () => {
  const f = (name, size) => ({ name, size });
  assert.equal(refusalFor(f("a", 1), [f("a", 1)]).reason, "duplicate");
  assert.equal(refusalFor(f("big", 4 * MB + 1), []).reason, "file-too-large");
  assert.equal(refusalFor(f("f6", 1), ["1", "2", "3", "4", "5"].map((n) => f(n, 1))).reason, "too-many-files");
  assert.equal(refusalFor(f("c", 3 * MB), [f("a", 3 * MB), f("b", 3 * MB)]).reason, "message-too-large");
  assert.match(refusalFor(f("big", 5 * MB), []).text, /big/);
});

test("prompt arguments split on whitespace, a quoted span staying one; built-ins win the menu", () => {
  assert.deepEqual(splitArgs('t1 "look at the totals"'), ["t1", "look at the totals"]);
  assert.deepEqual(menu([{ name: "new" }, { name: "review" }]).map((c) => c.name), ["new", "retry", "compact", "copy", "help", "tools", "review"]);
});

test("readState strips visual fields, masks with a mask model, refuses populated secrets without one (Reading State)", () => {
  const key = { value: { title: "a", blur: "xx", token: "s3" }, secret: ["token"], visual: ["blur"] };
  assert.ok("refused" in agentView("k", key));
  assert.deepEqual(agentView("k", { ...key, mask: [] }).value, { title: "a", token: MASKED });
  assert.deepEqual(agentView("k", { ...key, value: { title: "a", blur: "xx", token: "" } }).value, { title: "a", token: "" });
});

test("an argument no schema describes withdraws the tool with a warning; shared repeats are one entry (Publishing A Tool)", () => {
  const run = async () => null;
  const { tools, clashes, warnings } = catalogue([], [
    { name: "edit", args: [{ name: "x", type: "Map" }], run },
    { name: "remove", args: [], shared: true, run }, { name: "remove", args: [], shared: true, run },
    { name: "open", args: [], run }, { name: "open", args: [], run },
  ]);
  assert.equal(tools.has("edit"), false);
  assert.match(warnings[0], /edit.*x.*Map/);
  assert.deepEqual(clashes, [{ name: "open", registrations: 2 }]);
});
