"""The JavaScript side of the host: the API generated code sees, built so the guest cannot forge it.

Theory of operation. One setup script (``KERNEL``) runs in a fresh QuickJS context before any generated
code. It takes the three host callables the worker registered (``__host_call``, ``__host_settle``,
``__host_capture``) into its closure and deletes them from the global object, captures every intrinsic
it relies on later (``JSON.stringify``, ``Reflect.apply``, ``Promise.prototype.then`` ...), and only
then defines the guest API: tools, ``exit``, ``inspect``, ``chat.<component>``, registered objects, and
the session memory as globals. Tools, chat components and registered objects are ``EXTRAS``: parts the
per-program setup script brings along only when the program's configuration has them, because parsing
the kernel into every fresh context is most of a program's cost in the worker. They are plain function
expressions evaluated with the setup, before any generated code, and reach the kernel's captured
intrinsics only through the argument the kernel passes them.

Why so careful. Generated code runs in the same realm as the host's plumbing, so anything reachable
from the global object or a shared prototype is reachable from the guest: it could replace
``JSON.stringify``, add ``Object.prototype.toJSON``, or call the settle hook itself and have a program
that threw recorded as one that finished. Hence:

* the host callables are closure variables, never globals;
* the program is started by a one-shot ``__llmz_run`` that disarms itself before any generated code
  runs, and its settlement is observed with the captured ``then`` on a promise the guest never sees;
* everything the kernel sends to the host is a string it built itself: JSON text of guest values comes
  from the captured ``JSON.stringify`` on a null-prototype box, strings are quoted with it (which also
  escapes lone surrogates, so every crossing string is valid UTF-8), memory values are serialised by
  the kernel's own walk, and the settle message is concatenated by hand;
* errors the host made are remembered in a private ``WeakSet``, so only they keep their llmz ``code``
  and a guest cannot throw a look-alike (for instance a fake ``ThinkSignal``).

What the guest can still do is what it could do anyway: assign its own variables (calling the capture
hook directly amounts to that), or break the API for itself by overwriting the globals.

``program_source`` wraps the model's code as the body of an async function, so top-level ``await`` and
``return`` work; the body starts on line 2 of the evaluated source, which ``caller_line`` relies on.
"""

from __future__ import annotations

import json
from typing import Final

from reference.llmz import memory

MAX_DEPTH: Final = 64
"""Deepest nesting of a value that crosses between the program and the host. Deeper tool inputs, exit
payloads, props, inspections and memory values are refused as invalid values rather than crashing a
recursive encoder (our limit: the documents set none)."""

KERNEL: Final = r"""
function (config, extras) {
  'use strict';
  const G = globalThis;
  const hostCall = G.__host_call, hostSettle = G.__host_settle, hostCapture = G.__host_capture;
  delete G.__host_call; delete G.__host_settle; delete G.__host_capture;

  const apply = Reflect.apply, defineProperty = Object.defineProperty, create = Object.create;
  const namesOf = Object.getOwnPropertyNames, describe = Object.getOwnPropertyDescriptor;
  const symbolsOf = Object.getOwnPropertySymbols, protoOf = Object.getPrototypeOf;
  const setProto = Object.setPrototypeOf;
  const keysOf = Object.keys, hasOwn = Object.prototype.hasOwnProperty, ObjectProto = Object.prototype;
  const isArray = Array.isArray, isFinite = Number.isFinite, sameValue = Object.is;
  const stringify = JSON.stringify, parse = JSON.parse, then = Promise.prototype.then;
  const ErrorCtor = Error, ProxyCtor = Proxy, StringCtor = String, SetCtor = Set;
  const setHas = Set.prototype.has, setAdd = Set.prototype.add;
  const WeakSetCtor = WeakSet, weakAdd = WeakSet.prototype.add, weakHas = WeakSet.prototype.has;
  const MAX_DEPTH = config.maxDepth, MAX_CHARS = config.maxChars;
  // Thrown by memEncode when the encoding alone is longer than memory can ever hold: the value is
  // unavailable (over capacity), and encoding the rest of a huge structure would only burn time.
  const TOO_LARGE = create(null);

  const own = (o, k) => apply(hasOwn, o, [k]);
  const quote = (s) => stringify(StringCtor(s));
  const field = (value) => ({ __proto__: null, value, writable: true, enumerable: true, configurable: true });
  const hostErrors = new WeakSetCtor();
  // What a failure that cannot even be described reports (building the description needs memory).
  const OUT_OF_MEMORY =
    '{"ok":false,"host":false,"code":null,"name":"InternalError","message":"out of memory","stack":""}';
  const noop = () => {};

  // -- values crossing to the host ---------------------------------------------------------------
  // Values cross to the host as JSON, and the engine's JSON.stringify recurses in C without a stack
  // check: a value nested 30,000 deep crashed the worker (issue 23). So every stringify of a guest value
  // goes through ``bounded``, a replacer that knows each object's depth (kept per holder) and throws
  // TOO_DEEP at the first level past its limit, long before the C stack is at risk. A value too deep for
  // the host is sent as TOO_DEEP_TEXT, which the host refuses exactly as any value past MAX_DEPTH.
  const TOO_DEEP = create(null);
  const ENC_DEPTH = MAX_DEPTH + 2;  // the host's bound, the kernel's box and one level of margin
  const TOO_DEEP_TEXT = '{"value":' + '['.repeat(ENC_DEPTH + 1) + ']'.repeat(ENC_DEPTH + 1) + '}';
  const GUEST_JSON_DEPTH = 4096;  // the guest's own JSON.stringify: deep, yet far from the C stack's end
  const WeakMapCtor = WeakMap, mapGet = WeakMap.prototype.get, mapSet = WeakMap.prototype.set;
  const RangeErrorCtor = RangeError;
  const bounded = (limit, inner) => {
    const depths = new WeakMapCtor();
    return function (key, x) {
      const depth = (apply(mapGet, depths, [this]) || 0) + 1;
      if (inner) x = apply(inner, this, [key, x]);
      if (x !== null && typeof x === 'object') {
        if (depth > limit) throw TOO_DEEP;
        apply(mapSet, depths, [x, depth]);
      }
      return x;
    };
  };

  const enc = (v) => {
    if (v === undefined) return '{"undefined":true}';
    const box = create(null);
    box.value = v;
    let text;
    try {
      try { text = stringify(box, bounded(ENC_DEPTH)); } catch (e) {
        if (e === TOO_DEEP) throw e;
        const seen = new SetCtor();
        text = stringify(box, bounded(ENC_DEPTH, (key, x) => {
          if (typeof x === 'bigint') return StringCtor(x);
          if (x && typeof x === 'object') {
            if (apply(setHas, seen, [x])) return '[Circular]';
            apply(setAdd, seen, [x]);
          }
          return x;
        }));
      }
    } catch (e) {
      if (e === TOO_DEEP) return TOO_DEEP_TEXT;
      throw e;
    }
    if (typeof text !== 'string') throw new ErrorCtor('the value cannot be encoded as JSON');
    return text;
  };

  // The guest's JSON.stringify, with the same guard: past GUEST_JSON_DEPTH levels it throws the
  // RangeError a JavaScript engine gives for a recursion too deep, instead of crashing the worker.
  const guestStringify = function stringify(value, replacer, space) {
    const tooDeep = () => new RangeErrorCtor('Maximum call stack size exceeded (value nested too deeply)');
    try {
      if (isArray(replacer)) {  // an allowlist: checked by a first pass, then applied as it is
        apply(stringifyCaptured, undefined, [value, bounded(GUEST_JSON_DEPTH)]);
        return apply(stringifyCaptured, undefined, [value, replacer, space]);
      }
      const inner = typeof replacer === 'function' ? replacer : undefined;
      return apply(stringifyCaptured, undefined, [value, bounded(GUEST_JSON_DEPTH, inner), space]);
    } catch (e) {
      if (e === TOO_DEEP) throw tooDeep();
      throw e;
    }
  };
  const stringifyCaptured = stringify;
  defineProperty(G.JSON, 'stringify', {
    __proto__: null, value: guestStringify, writable: true, configurable: true,
  });

  const fail = (message) => {
    const error = new ErrorCtor(message);
    defineProperty(error, 'code', field('INVALID_MEMORY_VALUE'));
    defineProperty(error, 'name', field('MemoryValueError'));
    apply(weakAdd, hostErrors, [error]);
    throw error;
  };

  // The tagged memory encoding. It is built from null-prototype objects and arrays, so the captured
  // JSON.stringify finds no toJSON a guest could have planted on Object.prototype or Array.prototype.
  const UNDEFINED_TAG = create(null), NEGATIVE_ZERO_TAG = create(null);
  UNDEFINED_TAG.$ = 'undefined';
  NEGATIVE_ZERO_TAG.$ = '-0';
  const memEncode = (value) => {
    const stack = create(null);
    let size = 0;  // a lower bound of the encoding's length
    const grow = (n) => { size += n; if (size > MAX_CHARS) throw TOO_LARGE; };
    const walk = (v, where, depth) => {
      if (v === undefined) { grow(16); return UNDEFINED_TAG; }
      if (v === null || typeof v === 'boolean') { grow(4); return v; }
      if (typeof v === 'string') { grow(v.length + 2); return v; }
      if (typeof v === 'number') {
        if (!isFinite(v)) fail(where + ': only finite numbers can be kept');
        grow(1);
        return sameValue(v, -0) ? NEGATIVE_ZERO_TAG : v;
      }
      if (typeof v !== 'object') fail(where + ': a ' + typeof v + ' cannot be kept in memory');
      if (depth >= MAX_DEPTH) {
        fail(where + ': values nested deeper than ' + MAX_DEPTH + ' levels cannot be kept');
      }
      for (let i = 0; i < depth; i++) {
        if (stack[i] === v) fail(where + ': a cyclic structure cannot be kept in memory');
      }
      stack[depth] = v;
      let out;
      if (isArray(v)) {
        out = setProto([], null);
        const length = v.length;
        grow(2);
        for (let i = 0; i < length; i++) {
          if (!(i in v)) fail(where + ': sparse arrays cannot be kept in memory');
          out[i] = walk(v[i], where + '[' + i + ']', depth + 1);
          grow(1);
        }
      } else {
        const proto = protoOf(v);
        if (proto !== ObjectProto && proto !== null) {
          fail(where + ': class instances cannot be kept in memory');
        }
        if (symbolsOf(v).length) fail(where + ': symbol keys cannot be kept in memory');
        const names = namesOf(v);
        const fields = create(null);
        grow(20);
        for (let i = 0; i < names.length; i++) {
          const key = names[i];
          const d = describe(v, key);
          if (own(d, 'get') || own(d, 'set')) {
            fail(where + '.' + key + ': accessor properties cannot be kept in memory');
          }
          grow(key.length + 4);
          fields[key] = walk(d.value, where + '.' + key, depth + 1);
        }
        out = create(null);
        out.$ = 'object';
        out.v = fields;
      }
      stack[depth] = undefined;
      return out;
    };
    return stringify(walk(value, 'value', 0));
  };

  // The memory's long texts travel beside its JSON (reference.llmz.memory.guest_state): the worker set
  // them as globals, taken off the global object here; the JSON holds {$: 'text', i} in their place.
  const texts = [];
  for (let i = 0; i < config.texts; i++) {
    texts[i] = G['__host_text_' + i];
    delete G['__host_text_' + i];
  }

  const memDecode = (node) => {
    if (isArray(node)) {
      const out = [];
      for (let i = 0; i < node.length; i++) out[i] = memDecode(node[i]);
      return out;
    }
    if (node === null || typeof node !== 'object') return node;
    if (node.$ === 'undefined') return undefined;
    if (node.$ === '-0') return -0;
    if (node.$ === 'text') return texts[node.i];
    const out = {};
    const names = keysOf(node.v);
    for (let i = 0; i < names.length; i++) {
      defineProperty(out, names[i], field(memDecode(node.v[names[i]])));
    }
    return out;
  };

  const refusal = (what) => () => {
    const error = new ErrorCtor(what + ' is read-only');
    defineProperty(error, 'code', field('INVALID_ASSIGNMENT'));
    defineProperty(error, 'name', field('AssignmentError'));
    apply(weakAdd, hostErrors, [error]);
    throw error;
  };
  const readonly = (value, what) => {
    if (value === null || typeof value !== 'object') return value;
    const refuse = refusal(what);
    return new ProxyCtor(value, {
      __proto__: null,
      get: (target, key) => readonly(target[key], what),
      set: refuse, defineProperty: refuse, deleteProperty: refuse, setPrototypeOf: refuse,
    });
  };

  // -- calls to the host -------------------------------------------------------------------------
  const dec = (text) => {
    const answer = parse(text);
    if (own(answer, 'hang')) return new Promise(noop);
    if (own(answer, 'error')) {
      const failure = answer.error;
      const error = new ErrorCtor(failure.message);
      defineProperty(error, 'name', field(failure.name || 'Error'));
      if (failure.code) defineProperty(error, 'code', field(failure.code));
      apply(weakAdd, hostErrors, [error]);
      throw error;
    }
    return own(answer, 'undefined') ? undefined : answer.value;
  };

  const settleQuietly = (promise) => {
    defineProperty(promise, 'constructor', field(undefined));
    return promise;
  };
  const pending = create(null);
  let pendingCount = 0;
  const remember = (entry) => { pending[pendingCount++] = entry; };

  G.inspect = (value) => { dec(hostCall('inspect', enc(value))); return value; };
  G.exit = (name, payload) => dec(hostCall('exit', quote(name), enc(payload)));
  // What only some programs need (tools, chat components, registered objects) is in EXTRAS: the setup
  // script brings the parts this program needs, so the others are never parsed. They get what they use
  // from the kernel's closure through this null-prototype kit, never through the global object.
  const kit = {
    __proto__: null, G, apply, create, defineProperty, keysOf, then, noop, ErrorCtor, ProxyCtor, StringCtor,
    hostCall, quote, enc, dec, memEncode, memDecode, refusal, settleQuietly, remember,
  };
  if (config.tools.length) extras.tools(kit, config.tools);
  if (config.chat) extras.chat(kit);

  // -- session memory and registered objects -----------------------------------------------------
  const state = parse(config.memory);
  // The texts the variables were loaded with: a variable that still holds the same text when the program
  // ends is reported as unchanged instead of encoded again (a kept text may be 16 MiB long, and quoting it
  // would be most of the program's cost); the host already holds its encoding, which is the text itself.
  const loadedTexts = create(null);
  for (const name of keysOf(state.variables)) {
    const value = memDecode(state.variables[name]);
    G[name] = value;
    if (typeof value === 'string') loadedTexts[name] = value;
  }
  const records = state.iterations.map(
    (r) => ({ id: r.id, hasResult: r.hasResult, result: memDecode(r.result) }));
  const returned = state.hasReturn ? memDecode(state.returned) : undefined;
  defineProperty(G, '$return', {
    __proto__: null, get: () => readonly(returned, '$return'), set: refusal('$return'),
    configurable: false });
  defineProperty(G, '$iterations', {
    __proto__: null, get: () => readonly(records, '$iterations'), set: refusal('$iterations'),
    configurable: false });

  const objects = parse(config.objects);
  if (keysOf(objects).length) extras.objects(kit, objects);

  // -- running the program and reporting how it ended ---------------------------------------------
  const none = create(null);
  let settled = false;

  const unawaited = () => {
    let out = '[', first = true;
    for (let i = 0; i < pendingCount; i++) {
      if (!pending[i].awaited) { out += (first ? '' : ',') + stringify(pending[i].name); first = false; }
    }
    return out + ']';
  };
  const messageOf = (e) => {
    try {
      return StringCtor(e && e.message !== undefined ? e.message : e);
    } catch (x) {
      return 'unprintable';
    }
  };
  const onValue = (v) => {
    if (settled) return;
    settled = true;
    let text = '{"ok":true,"none":true,"unawaited":[]}';
    try {
      if (v === none) {
        text = '{"ok":true,"none":true,"unawaited":' + unawaited() + '}';
      } else {
        let kept = 'null', problem = 'null', result = 'null', large = 'false';
        try {
          kept = memEncode(v);
        } catch (e) {
          if (e === TOO_LARGE) large = 'true'; else problem = quote(messageOf(e));
        }
        try { result = quote(enc(v)); } catch (e) { result = 'null'; }
        text = '{"ok":true,"result":' + result + ',"kept":' + kept + ',"problem":' + problem +
          ',"tooLarge":' + large + ',"unawaited":' + unawaited() + '}';
      }
    } catch (e) {
      text = OUT_OF_MEMORY;
    }
    hostSettle(text);
  };
  const onError = (e) => {
    if (settled) return;
    settled = true;
    let text = OUT_OF_MEMORY;
    try {
      const host = e !== null && (typeof e === 'object' || typeof e === 'function') &&
        apply(weakHas, hostErrors, [e]);
      let code = null, name = 'Error', stack = '';
      if (host) { code = e.code || null; }
      try { if (e && e.name) name = StringCtor(e.name); } catch (x) {}
      try { if (e && e.stack) stack = StringCtor(e.stack); } catch (x) {}
      text = '{"ok":false,"host":' + (host ? 'true' : 'false') + ',"code":' + (code ? quote(code) : 'null') +
        ',"name":' + quote(name) + ',"message":' + quote(messageOf(e)) + ',"stack":' + quote(stack) + '}';
    } catch (x) {}
    hostSettle(text);
  };
  const capture = (getters) => {
    if (settled) return;
    let out = '{', first = true;
    const take = (name, read) => {
      let entry;
      try {
        const value = read();
        // Unchanged only when memEncode would accept it as well (it refuses a text past MAX_CHARS).
        const same = own(loadedTexts, name) && loadedTexts[name] === value && value.length + 2 <= MAX_CHARS;
        entry = same ? '{"same":true}' : '{"ok":' + memEncode(value) + '}';
      } catch (e) {
        entry = e === TOO_LARGE ? '{"tooLarge":true}' : '{"error":' + quote(messageOf(e)) + '}';
      }
      out += (first ? '' : ',') + stringify(name) + ':' + entry;
      first = false;
    };
    for (let i = 0; i < config.declared.length; i++) {
      const name = config.declared[i];
      if (getters !== null && typeof getters === 'object' && own(getters, name)) take(name, getters[name]);
    }
    for (let i = 0; i < config.known.length; i++) {
      const name = config.known[i];
      if (!(getters !== null && typeof getters === 'object' && own(getters, name))) take(name, () => G[name]);
    }
    hostCapture(out + '}');
  };
  const run = (body) => {
    delete G.__llmz_run;
    let promise;
    try { promise = body(); } catch (e) { onError(e); return; }
    apply(then, settleQuietly(promise), [onValue, onError]);
  };
  defineProperty(G, '__llmz_none', { __proto__: null, value: none, writable: false, configurable: false });
  defineProperty(G, '__llmz_capture', {
    __proto__: null, value: capture, writable: false, configurable: false });
  defineProperty(G, '__llmz_run', { __proto__: null, value: run, writable: false, configurable: true });
}
"""


EXTRAS: Final = {
    "tools": r"""
function (kit, names) {
  'use strict';
  const { G, apply, create, then, noop, ErrorCtor, hostCall, quote, enc, dec, settleQuietly, remember } = kit;
  const track = (name, promise) => {
    const entry = create(null);
    entry.name = name;
    entry.awaited = false;
    remember(entry);
    apply(then, settleQuietly(promise), [undefined, noop]);
    const mark = () => { entry.awaited = true; };
    return {
      then(onValue, onError) { mark(); return apply(then, promise, [onValue, onError]); },
      catch(onError) { mark(); return apply(then, promise, [undefined, onError]); },
      finally(onDone) {
        mark();
        return apply(then, promise, [
          (v) => { onDone(); return v; },
          (e) => { onDone(); throw e; },
        ]);
      },
    };
  };
  const toolSource = (name) => (input) => {
    let stack = '';
    try { const s = new ErrorCtor().stack; if (typeof s === 'string') stack = s; } catch (e) {}
    return track(name, (async () => dec(hostCall('tool', quote(name), enc(input), quote(stack))))());
  };
  for (const name of names) G[name] = toolSource(name);
}
""",
    "chat": r"""
function (kit) {
  'use strict';
  const { G, ProxyCtor, hostCall, quote, enc, dec } = kit;
  G.chat = new ProxyCtor({}, {
    __proto__: null,
    get(_target, name) {
      if (typeof name !== 'string') return undefined;
      return (props) => dec(hostCall('component', quote(name), enc(props)));
    },
  });
}
""",
    "objects": r"""
function (kit, objects) {
  'use strict';
  const { G, defineProperty, keysOf, ProxyCtor, StringCtor } = kit;
  const { hostCall, quote, dec, memEncode, memDecode, refusal } = kit;
  for (const objName of keysOf(objects)) {
    const target = {};
    for (const prop of keysOf(objects[objName])) {
      let current = memDecode(objects[objName][prop]);
      defineProperty(target, prop, {
        __proto__: null,
        enumerable: true,
        get: () => current,
        set: (v) => {
          dec(hostCall('object_set', quote(objName), quote(prop), memEncode(v)));
          current = v;
        },
      });
    }
    const refuse = (key) => refusal(objName + '.' + StringCtor(key))();
    G[objName] = new ProxyCtor(target, {
      __proto__: null,
      set(t, key, value) { if (!(key in t)) refuse(key); t[key] = value; return true; },
      defineProperty: (t, key) => refuse(key),
      deleteProperty: (t, key) => refuse(key),
    });
  }
}
""",
}
"""The kernel's parts that only some programs need, each a function the kernel calls with its kit: tools
(with the bookkeeping of unawaited calls), ``chat.<component>`` and registered objects. ``kernel_source``
puts into the setup script only the parts its program's configuration needs, so a program without tools,
chat or objects never parses them; the kernel fails at setup, loudly, if a needed part is missing."""


DEFINITION: Final = "globalThis.__llmz_kernel = " + KERNEL.strip() + ";"
"""Defines the kernel without running it. A worker evaluates this ahead of time in a fresh context, while
the host is busy elsewhere: parsing the kernel is most of the cost of starting a program.

The function is not wrapped in parentheses, here or in ``kernel_source``: at an opening parenthesis
QuickJS scans ahead to the matching one to tell an arrow function's parameters from an expression, so a
parenthesised kernel is tokenised twice (a fifth of its parse). The kernel's line numbers, which stack
traces of errors thrown inside it carry, are unchanged: it still starts on line 1."""


def kernel_source(
    *,
    tools: list[str],
    chat: bool,
    objects_state: str,
    declared: list[str],
    known: list[str],
    max_chars: int,
    texts: int = 0,
) -> str:
    """The setup script for one program: the predefined kernel (``DEFINITION``), taken off the global
    object and applied to this program's configuration. The session memory's JSON text is not in it: the
    worker sets it as the string global ``__host_memory`` (see ``jsworker``), which the script takes off
    the global object too, because parsing up to 16 MiB as a string literal costs ten times as much. Nor
    are its ``texts`` long texts, which the worker sets as ``__host_text_<i>`` globals."""
    config = {
        "tools": tools,
        "chat": chat,
        "objects": objects_state,
        "declared": declared,
        "known": known,
        "maxDepth": MAX_DEPTH,
        "maxChars": max_chars,
        "texts": texts,
    }
    needed = {"tools": bool(tools), "chat": chat, "objects": objects_state.strip() != "{}"}
    extras = "".join(f"{name}: {EXTRAS[name].strip()}, " for name, used in needed.items() if used)
    return (  # a block, not a parenthesised function: see DEFINITION
        "{ const kernel = globalThis.__llmz_kernel, memory = globalThis.__host_memory; "
        "delete globalThis.__llmz_kernel; delete globalThis.__host_memory; const config = "
        + json.dumps(config)
        + "; config.memory = memory; kernel(config, { __proto__: null, "
        + extras
        + "}); }"
    )


def program_source(code: str) -> str:
    """The evaluated program: the model's code as an async function body (line 2 onwards), a sentinel
    return for running off the end (no result, llmz.memory.has-result), and the variable capture."""
    getters = ", ".join(f"{json.dumps(name)}: () => {name}" for name in memory.declared_names(code))
    return (
        "__llmz_run(async function () { try {\n"
        + memory.hoist_declarations(code)
        + "\n;return __llmz_none;\n} finally { __llmz_capture({"
        + getters
        + "}) } });"
    )
