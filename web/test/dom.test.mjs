// grouped (web/src/dom.js) writes what toLocaleString('en-US') writes for the integers
// the page groups (trial counts), without loading the locale data. Run by CTest.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { grouped } from '../src/dom.js';

test('grouped separates thousands as en-US does', () => {
  for (const n of [0, 7, 999, 1000, 9999, 10000, 12345, 100000, 999999, 1000000, 1234567890])
    assert.equal(grouped(n), n.toLocaleString('en-US'), String(n));
});
