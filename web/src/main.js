// The dashboard's entry point: a hash router over three pages. The same bundle runs
// under `gpusweep serve` (data from /api) and inside `gpusweep report` files (data
// inlined as window.GPUSWEEP_REPORT).
import * as data from './data.js';
import { el } from './dom.js';
import { experimentPage, experimentsPage, trialPage } from './pages.js';

async function route() {
  const app = document.getElementById('app');
  document.body.dataset.chartsDrawn = 'false';
  const hash = location.hash.replace(/^#/, '') || '/';
  const trial = hash.match(/^\/e\/([^/]+)\/t\/(\d+)$/);
  const experiment = hash.match(/^\/e\/([^/]+)$/);
  try {
    if (trial) await trialPage(app, decodeURIComponent(trial[1]), Number(trial[2]));
    else if (experiment) await experimentPage(app, decodeURIComponent(experiment[1]));
    else if (data.isReport()) await experimentPage(app, 'report');
    else await experimentsPage(app);
  } catch (e) {
    console.error(e);  // the stack, for the browser's console and the tests' logs
    app.replaceChildren(el('p', { class: 'error' }, `Could not load this page: ${e.message}`));
  }
}

function start() {
  performance.mark('gpusweep-script-ran');  // the bundle fetched, compiled and run
  window.addEventListener('hashchange', route);
  route();
}

if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', start);
else start();
