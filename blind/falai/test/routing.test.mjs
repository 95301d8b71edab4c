// The routing thresholds (triggers guide, "How a message picks its flow", steps 3 and 4).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { pickFloor, validScores } from '../lib/runtime/routing.mjs';

const none = { catchAll: null, lone: null };

test('a new flow needs 40 when nobody is asking', () => {
  assert.equal(pickFloor({ scored: ['a'], scores: { a: 39 }, askingFlowId: null, ...none }).winner, null);
  assert.equal(pickFloor({ scored: ['a'], scores: { a: 40 }, askingFlowId: null, ...none }).winner, 'a');
});

test('a rival takes the floor only 15 above the asking flow and from 40 up', () => {
  const ask = (/** @type {number} */ asking, /** @type {number} */ rival) =>
    pickFloor({ scored: ['mine', 'rival'], scores: { mine: asking, rival }, askingFlowId: 'mine', ...none }).winner;
  assert.equal(ask(50, 64), null);
  assert.equal(ask(50, 65), 'rival');
  assert.equal(ask(20, 39), null);
  assert.equal(ask(20, 40), 'rival');
});

test('the catch-all starts only when no score reaches 40', () => {
  assert.equal(pickFloor({ scored: ['a'], scores: { a: 39 }, askingFlowId: null, catchAll: 'c', lone: null }).winner, 'c');
  assert.equal(pickFloor({ scored: ['a'], scores: { a: 41 }, askingFlowId: null, catchAll: 'c', lone: null }).winner, 'a');
});

test('ties go to the flow passed first', () => {
  assert.equal(pickFloor({ scored: ['a', 'b'], scores: { a: 70, b: 70 }, askingFlowId: null, ...none }).winner, 'a');
});

test('scores outside 0..100 are not scores', () => {
  assert.deepEqual(validScores({ a: 101, b: -1, c: '50', d: 100 }, ['a', 'b', 'c', 'd']), { d: 100 });
});
