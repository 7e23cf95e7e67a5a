// The three pages: experiments, one experiment, one trial.
import * as charts from './charts.js';
import * as data from './data.js';
import { el, fmtDuration, fmtNumber, fmtTime, fmtValue, stateBadge } from './dom.js';
import { TrialTable } from './table.js';

const POLL_MS = 2000;
let stopPolling = () => {};

function signalDrawn() {
  document.body.dataset.chartsDrawn = 'true';
  performance.mark('gpusweep-charts-drawn');
}

function crumbs(...parts) {
  document.getElementById('crumbs').replaceChildren(...parts.flatMap((p) => [' / ', p]));
}

function setLive(text) {
  document.getElementById('live').textContent = text;
}

export async function experimentsPage(app) {
  stopPolling();
  charts.reset(signalDrawn);
  crumbs();
  setLive('');
  const list = await data.experiments();
  const rows = list.map((e) => el('tr', { dataset: { experiment: e.id } },
    el('td', {}, el('a', { href: `#/e/${encodeURIComponent(e.id)}` }, e.name || e.id)),
    el('td', {}, e.error ? el('span', { class: 'error' }, e.error) : stateBadge(e.running ? 'running' : 'finished')),
    el('td', {}, e.error ? '' : `${(e.counts.completed || 0) + (e.counts.pruned || 0) + (e.counts.failed || 0)} / ${e.total}`),
    el('td', {}, e.best ? `${fmtNumber(e.best.value)} (trial ${e.best.trial})` : '-'),
    el('td', {}, e.metric ? `${e.metric} (${e.mode})` : ''),
    el('td', { class: 'path' }, e.dir || '')));
  app.replaceChildren(el('section', { class: 'panel wide' }, el('h3', {}, 'Experiments'),
    el('table', { class: 'trials', id: 'experiments' },
      el('thead', {}, el('tr', {}, ['experiment', 'state', 'done / planned', 'best', 'metric', 'directory'].map((h) => el('th', {}, h)))),
      el('tbody', {}, rows))));
  signalDrawn();
}

function summaryLine(s) {
  const counts = Object.entries(s.counts).map(([state, n]) => `${n} ${state}`).join(', ');
  return el('div', { class: 'summary' },
    el('h2', {}, s.name), stateBadge(s.running ? 'running' : 'finished'),
    el('p', {}, `${s.recorded} of ${s.total} trials recorded (${counts || 'none yet'}); objective ${s.metric} (${s.mode})`,
      s.best ? `; best ${fmtNumber(s.best.value)} by ` : '', s.best ? el('a', { href: `#/e/${encodeURIComponent(s.id)}/t/${s.best.trial}` }, `trial ${s.best.trial}`) : '',
      s.scheduler ? `; scheduler ${s.scheduler.type} on ${s.scheduler.resource}` : ''),
    el('p', { class: 'path' }, s.dir));
}

// Keeps the experiment's trials and points, merging what each poll brings.
class ExperimentState {
  constructor() { this.trials = new Map(); this.revision = 0; this.cursor = 0; this.points = { trial: [], attempt: [], step: [], value: [] }; }
  mergeTrials(t) { for (const trial of t.trials) this.trials.set(trial.number, trial); this.revision = t.revision; return t.trials.length; }
  mergePoints(p) {
    for (const k of ['trial', 'attempt', 'step', 'value']) for (const v of p[k]) this.points[k].push(v);
    this.cursor = p.cursor;
    return p.trial.length;
  }
  list() { return [...this.trials.values()].sort((a, b) => a.number - b.number); }
}

function drawCharts(grid, s, trials, points, importance) {
  charts.reset(signalDrawn);
  grid.replaceChildren();
  charts.draw(charts.panel(grid, 'Optimisation history'), charts.historyOption(trials, s));
  charts.draw(charts.panel(grid, 'Intermediate values'), charts.curvesOption(points, trials, s));
  charts.draw(charts.panel(grid, 'Parallel coordinates', 'wide'), charts.parallelOption(trials, s));
  if (importance) charts.draw(charts.panel(grid, 'Parameter importance (fANOVA)'), charts.importanceOption(importance));
  for (const name of s.params) charts.draw(charts.panel(grid, `Slice: ${name}`, 'small'), charts.sliceOption(trials, s, name));
}

export async function experimentPage(app, id) {
  stopPolling();
  const [s, t, p] = await Promise.all([data.summary(id), data.trials(id), data.points(id)]);
  let importance = null;  // fetched after the first draw: a large sweep's forest takes a while
  s.id = id;
  const state = new ExperimentState();
  state.mergeTrials(t);
  state.mergePoints(p);
  crumbs(el('a', { href: `#/e/${encodeURIComponent(id)}` }, s.name));
  const head = el('div', {});
  const grid = el('div', { class: 'grid' });
  app.replaceChildren(head, grid);
  const table = new TrialTable(app, id, s);
  let current = s;
  const render = (summary) => {
    summary.id = id;
    current = summary;
    head.replaceChildren(summaryLine(summary));
    const trials = state.list();
    drawCharts(grid, summary, trials, state.points, importance);
    table.update(trials, summary);
  };
  render(s);
  data.importance(id).then((result) => {
    if (!result || !result.params || !result.params.length) return;
    importance = result;
    render(current);
  });
  if (data.isReport() || !s.running) { setLive(data.isReport() ? 'report' : ''); return; }
  setLive('live');
  let active = true;
  stopPolling = () => { active = false; };
  const poll = async () => {
    if (!active) return;
    try {
      const [summary, nt, np] = await Promise.all([data.summary(id), data.trials(id, state.revision), data.points(id, state.cursor)]);
      if (state.mergeTrials(nt) + state.mergePoints(np) > 0 || summary.running !== s.running) render(summary);
      s.running = summary.running;
      setLive(summary.running ? 'live' : 'finished');
      if (!summary.running) return;
    } catch (e) {
      setLive(`update failed: ${e.message}`);
    }
    setTimeout(poll, POLL_MS);
  };
  setTimeout(poll, POLL_MS);
}

function keyValues(object) {
  return el('table', { class: 'kv' }, el('tbody', {}, Object.entries(object).map(([k, v]) => el('tr', {}, el('th', {}, k), el('td', {}, fmtValue(v))))));
}

export async function trialPage(app, id, number) {
  stopPolling();
  charts.reset(signalDrawn);
  const d = await data.trialDetail(id, number);
  const s = await data.summary(id);
  const t = d.trial;
  crumbs(el('a', { href: `#/e/${encodeURIComponent(id)}` }, s.name), el('span', {}, `trial ${number}`));
  setLive('');
  const ended = t.signal ? `killed by ${t.signal}` : t.exit_code !== null ? `exit ${t.exit_code}` : '';
  const grid = el('div', { class: 'grid' });
  app.replaceChildren(
    el('div', { class: 'summary' }, el('h2', {}, `Trial ${t.number}`), stateBadge(t.state),
      el('p', {}, `${s.metric} ${fmtNumber(t.objective)}; attempt ${t.attempt}; ${t.gpus.length ? `GPUs ${t.gpus.join(',')}` : 'CPU'}; started ${fmtTime(t.start)}; ran ${fmtDuration((t.end || Date.now() / 1000) - t.start)}`,
        ended ? `; ${ended}` : '', t.budget !== null ? `; budget ${fmtNumber(t.budget)} (rung ${t.rung})` : ''),
      t.reason ? el('p', { class: 'reason' }, t.reason) : '',
      el('p', { class: 'path' }, d.dir)),
    el('section', { class: 'panel' }, el('h3', {}, 'Parameters'), keyValues(t.params)),
    grid,
    d.decisions.length ? el('section', { class: 'panel wide' }, el('h3', {}, 'Scheduler decisions'), el('ul', { class: 'decisions' }, d.decisions.map((line) => el('li', {}, line)))) : '',
    el('section', { class: 'panel wide' }, el('h3', {}, 'output.log (tail)'), el('pre', { class: 'log', id: 'log-tail' }, d.log_tail || '(empty)')));
  if (d.results.length) charts.draw(charts.panel(grid, 'Metrics over steps', 'wide'), charts.trialMetricsOption(d.results));
  else signalDrawn();
}
