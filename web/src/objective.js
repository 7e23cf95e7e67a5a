// objective.js — the dashboard's one ordering of objective values: the browser's copy of
// the contract in include/gpusweep/objective.h (the page cannot call the C++; the server
// sends the mode as "min" or "max"). A missing value (null, undefined or NaN) ranks after
// every number and ties with another missing one; between numbers the better one in the
// experiment's mode ranks first. Every comparison of objective values in web/src goes
// through `order`; web/test/objective.test.mjs checks it case by case against the C++
// contract's cases (src/common/objective_test.cc).

const missing = (v) => v === null || v === undefined || Number.isNaN(v);

// Negative when a ranks before b, positive when after, 0 on a tie: a sort comparator
// (Array.prototype.sort is stable, so ties keep their order).
export function order(mode, a, b) {
  if (missing(a) || missing(b)) return (missing(a) ? 1 : 0) - (missing(b) ? 1 : 0);
  if (a === b) return 0;
  const aBetter = mode === 'max' ? a > b : a < b;
  return aBetter ? -1 : 1;
}

// a is strictly better than b.
export const better = (mode, a, b) => order(mode, a, b) < 0;
