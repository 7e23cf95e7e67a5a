// The dashboard's ordering (web/src/objective.js) on the cases the C++ contract's test
// (src/common/objective_test.cc) checks. Run by CTest: node --test web/test/.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { better, order } from '../src/objective.js';

test('better follows the direction', () => {
  assert.equal(better('max', 2, 1), true);
  assert.equal(better('max', 1, 2), false);
  assert.equal(better('min', 1, 2), true);
  assert.equal(better('min', 1, 1), false);
});

test('missing and NaN rank after every number and tie with each other', () => {
  for (const mode of ['min', 'max']) {
    assert.ok(order(mode, -Infinity, null) < 0);
    assert.ok(order(mode, Infinity, NaN) < 0);
    assert.ok(order(mode, NaN, 0) > 0);
    assert.equal(order(mode, NaN, undefined), 0);
    assert.equal(order(mode, 3, 3), 0);
  }
  assert.ok(order('max', Infinity, 1e308) < 0);
  assert.ok(order('min', Infinity, 1e308) > 0);
});

test('sorting puts the best first, keeps ties in order and missing values last', () => {
  const values = [{ v: 0.5 }, { v: NaN }, { v: 0.9, id: 'first' }, { v: null }, { v: 0.1 }, { v: 0.9, id: 'second' }];
  const sorted = [...values].sort((a, b) => order('max', a.v, b.v));
  assert.deepEqual(sorted.map((x) => x.id ?? x.v), ['first', 'second', 0.5, 0.1, NaN, null]);
  const ascending = [...values].sort((a, b) => order('min', a.v, b.v)).map((x) => x.v);
  assert.deepEqual(ascending, [0.1, 0.5, 0.9, 0.9, NaN, null]);
});
