// The triggers guide's own examples, played on the runtime (the expected values are the ones the
// guide prints in its comments).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createAgent } from '../lib/runtime/index.mjs';
import { fakeClock, fakeProvider, HOUR } from './helpers.mjs';

const fields = { nome: { type: 'string', ask: 'Ask for the name.' } };

test('a message run is named <flowId>#<messageId>', async () => {
  const provider = fakeProvider([{ json: { scores: { orcamento: 80 } } }, { text: 'Qual é o seu nome?' }]);
  const agent = createAgent({ name: 'Ana', provider, fields, clock: fakeClock().now,
    flows: [{ id: 'orcamento', name: 'Orçamento', on: [{ message: ['pede um orçamento'] }], steps: [{ id: 'quem', collect: ['nome'] }] }] });
  const r = await agent.turn({ sessionId: 's1', message: 'quanto custa?', id: 'm1' });
  assert.equal(r.started[0]?.runId, 'orcamento#m1');
  assert.equal(r.messages[0]?.text, 'Qual é o seu nome?');
  const replay = await agent.turn({ sessionId: 's1', message: 'quanto custa?', id: 'm1' });
  assert.deepEqual([replay.outcomes[0]?.code, replay.changed], ['duplicate-input', false]);
});

test('a mention say answers in the one understand call; the catch-all stays quiet', async () => {
  const provider = fakeProvider([{ json: { mentions: { pediu_humano: true } } }]);
  const agent = createAgent({ name: 'Ana', provider, fields, clock: fakeClock().now,
    actions: { chamar_humano: { run: () => ({ ok: true }) } },
    flows: [
      { id: 'triagem', name: 'Triagem', on: [{ message: [] }], steps: [{ id: 'quem', collect: ['nome'] }] },
      { id: 'pediu_humano', name: 'Pediu humano', on: [{ mention: ['pede uma pessoa'] }],
        steps: [{ id: 's', say: 'Claro. Já chamo alguém.' }, { id: 'a', do: 'chamar_humano' }] },
    ] });
  const r = await agent.turn({ sessionId: 's1', message: 'quero falar com uma pessoa', id: 'm1' });
  assert.deepEqual(r.messages.map((m) => [m.kind, m.text]), [['verbatim', 'Claro. Já chamo alguém.']]);
  assert.equal(r.llmCalls, 1);
});

test('silence: armed after the reply, fired 24h later, the run speaks first', async () => {
  const clock = fakeClock();
  const provider = fakeProvider([{ text: 'Oi! Qual é o seu nome?' }, { text: 'Ainda faz sentido?' }]);
  const owner = { lead: { owner: 'ai' } };
  const agent = createAgent({ name: 'Ana', provider, fields, clock: clock.now,
    flows: [
      { id: 'triagem', name: 'Triagem', on: [{ message: [] }], steps: [{ id: 'quem', collect: ['nome'] }] },
      { id: 'retomar', name: 'Retomar', on: [{ silence: '24h', if: (/** @type {any} */ s) => s.context.lead.owner === 'ai' }],
        steps: [{ id: 'p1', prompt: 'Retome.' }, { id: 'w1', wait: '2d', else: 'end' }, { id: 'p2', prompt: 'Última.' }] },
    ] });
  const t1 = await agent.turn({ sessionId: 's1', context: owner, message: 'oi', id: 'm1' });
  const spokeAt = clock.now();
  assert.deepEqual(t1.schedule, [{ key: `silence:retomar:s1:${spokeAt}`, at: spokeAt + 24 * HOUR }]);
  clock.advance(24 * HOUR);
  const t2 = await agent.turn({ sessionId: 's1', context: owner, wake: t1.schedule[0].key });
  assert.deepEqual([t2.started.map((s) => s.flowId), t2.llmCalls], [['retomar'], 1]);
  assert.equal(provider.asked[1].newMessage, false);
  const again = await agent.turn({ sessionId: 's1', context: owner, wake: t1.schedule[0].key });
  assert.deepEqual([again.outcomes[0]?.code, again.changed], ['silence-broken', false]);
});

test('an event with after parks the run: no model call, a start wake, awaiting-trigger', async () => {
  const clock = fakeClock();
  const agent = createAgent({ name: 'Ana', provider: fakeProvider([]), clock: clock.now, events: { stage_entered: {} },
    flows: [{ id: 'interesse', name: 'Interesse', on: [{ event: 'stage_entered', after: '1h' }], steps: [{ id: 'p', prompt: 'Pergunte.' }] }] });
  const r = await agent.turn({ sessionId: 's1', event: 'stage_entered', payload: { stageId: 'negociacao' }, key: 'stage:7' });
  assert.equal(r.llmCalls, 0);
  assert.equal(r.schedule[0]?.key, `interesse#stage:7:start:${clock.now() + HOUR}`);
  assert.equal(r.outcomes[0]?.code, 'awaiting-trigger');
  const again = await agent.turn({ sessionId: 's1', event: 'stage_entered', key: 'stage:7' });
  assert.deepEqual(again.skipped, [{ flowId: 'interesse', code: 'already-claimed' }]);
});

test('start: input renders into say, zero calls, an unknown flow is flow-gone', async () => {
  const agent = createAgent({ name: 'Ana', provider: fakeProvider([]), clock: fakeClock().now,
    flows: [{ id: 'boas-vindas', name: 'Boas-vindas', steps: [{ id: 'oi', say: 'Oi, {{input.nome}}.' }] }] });
  const r = await agent.turn({ sessionId: 's1', start: { flow: 'boas-vindas', input: { nome: 'Ana' }, key: 'signup:456' } });
  assert.deepEqual([r.messages[0]?.text, r.llmCalls, r.started[0]?.runId], ['Oi, Ana.', 0, 'boas-vindas#signup:456']);
  const gone = await agent.turn({ sessionId: 's1', start: { flow: 'nada', key: 'k' } });
  assert.deepEqual(gone.skipped, [{ flowId: 'nada', code: 'flow-gone' }]);
});
