// The three pages: experiments, one experiment, one trial.
import * as charts from './charts.js';
import * as data from './data.js';
import { el, experimentBadge, experimentState, fmtDuration, fmtNumber, fmtTime, fmtValue, grouped, shownState, stateBadge, trialDuration } from './dom.js';
import { nasView } from './nas.js';
import { frontOption, hypervolumeOption } from './pareto.js';
import { lineageOption, paramsOption } from './pbt.js';
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

function experimentRows(list) {
  return list.map((e) => el('tr', { dataset: { experiment: e.id } },
    el('td', {}, el('a', { href: `#/e/${encodeURIComponent(e.id)}` }, e.name || e.id)),
    el('td', {}, e.error ? el('span', { class: 'error' }, e.error) : experimentBadge(e)),
    el('td', {}, e.error ? '' : `${(e.counts.completed || 0) + (e.counts.pruned || 0) + (e.counts.failed || 0)} / ${e.total}`),
    el('td', {}, e.best ? `${fmtNumber(e.best.value)} (trial ${e.best.trial}${e.best.label ? `, ${e.best.label}` : ''})` : '-'),
    el('td', {}, e.metric ? `${e.metric} (${e.mode})` : ''),
    el('td', { class: 'path' }, e.dir || '')));
}

// The list polls every POLL_MS whether or not a listed experiment runs: what it most
// often misses is a run started since it opened, which no listed state announces. An
// answer is a summary per experiment (the server re-reads a journal only when it
// changed); the table is redrawn only when the answer differs.
export async function experimentsPage(app) {
  stopPolling();
  charts.reset(signalDrawn);
  crumbs();
  setLive('');
  const first = await data.experiments();
  let shownText = JSON.stringify(first);
  const body = el('tbody', {}, experimentRows(first));
  app.replaceChildren(el('section', { class: 'panel wide' }, el('h3', {}, 'Experiments'),
    el('table', { class: 'trials', id: 'experiments' },
      el('thead', {}, el('tr', {}, ['experiment', 'state', 'done / planned', 'best (NAS: result)', 'metric', 'directory'].map((h) => el('th', {}, h)))),
      body)));
  signalDrawn();
  if (data.isReport()) return;
  let active = true;
  stopPolling = () => { active = false; };
  const poll = async () => {
    if (!active) return;
    try {
      const list = await data.experiments();
      if (!active) return;
      const text = JSON.stringify(list);
      if (text !== shownText) {
        shownText = text;
        body.replaceChildren(...experimentRows(list));
      }
      setLive('');
    } catch (e) {
      setLive(`update failed: ${e.message}`);
    }
    setTimeout(poll, POLL_MS);
  };
  setTimeout(poll, POLL_MS);
}

// One metric: its name and mode. Several: each, and the front's size (there is no
// single best; the summary's best is null then).
function objectiveText(s) {
  if (!s.pareto) return `objective ${s.metric} (${s.mode})`;
  const names = s.pareto.objectives.map((o) => `${o.name} (${o.mode})`).join(', ');
  // Counted over every completed trial, not only those the page holds of a large experiment.
  const { front, completed, infeasible } = s.pareto.counts;
  return `objectives ${names}; Pareto front: ${front} of ${completed} completed trials` +
    (infeasible ? `, ${infeasible} infeasible` : '');
}

function summaryLine(s) {
  const counts = Object.entries(s.counts).map(([state, n]) => `${grouped(n)} ${state}`).join(', ');
  return el('div', { class: 'summary' },
    el('h2', {}, s.name), experimentBadge(s),
    el('p', {}, `${grouped(s.recorded)} of ${grouped(s.total)} trials recorded (${counts || 'none yet'}); ${objectiveText(s)}`,
      s.best ? `; ${s.best.label ? 'result' : 'best'} ${fmtNumber(s.best.value)} by ` : '', s.best ? el('a', { href: `#/e/${encodeURIComponent(s.id)}/t/${s.best.trial}` }, `trial ${s.best.trial}`) : '',
      s.best && s.best.label ? ` (${s.best.label})` : '',
      s.scheduler ? `; scheduler ${s.scheduler.type} on ${s.scheduler.resource}` : ''),
    el('p', { class: 'path' }, s.dir));
}

// Keeps the trials and points the server sends the page, merging what each poll brings.
// Of a large experiment that is a sample (web/charted_trials.h); when the server chooses
// it anew (another `generation`), its answer is the whole new sample and says `reset`.
class ExperimentState {
  constructor() {
    this.trials = new Map(); this.revision = 0; this.cursor = 0; this.trialsGeneration = 0; this.pointsGeneration = 0;
    this.points = { trial: [], attempt: [], step: [], value: [] };
  }
  mergeTrials(t) {
    if (t.reset) this.trials.clear();
    for (const trial of t.trials) this.trials.set(trial.number, trial);
    this.revision = t.revision;
    this.trialsGeneration = t.generation;
    return t.trials.length + (t.reset ? 1 : 0);
  }
  mergePoints(p) {
    if (p.reset) this.points = { trial: [], attempt: [], step: [], value: [] };
    this.pointsGeneration = p.generation;
    for (const k of ['trial', 'attempt', 'step', 'value']) {
      if (!this.points[k].length) this.points[k] = p[k];  // the first answer: 200,000 numbers, no copy
      else for (const v of p[k]) this.points[k].push(v);
    }
    this.cursor = p.cursor;
    return p.trial.length;
  }
  list() { return [...this.trials.values()].sort((a, b) => a.number - b.number); }
}

const IMPORTANCE = 'Parameter importance (fANOVA)';
// The importance panels: one, or one per objective with several (the summary's pareto).
const importanceTitles = (s) => (s.pareto ? s.pareto.objectives.map((o) => `${IMPORTANCE}: ${o.name}`) : [IMPORTANCE]);

// The experiment page's charts, made once and then updated in place as data arrives.
class ExperimentCharts {
  constructor(grid) {
    this.grid = grid;
    this.panels = new Map();
    charts.reset(signalDrawn);
  }

  panel(title, className) {
    if (!this.panels.has(title)) this.panels.set(title, charts.panel(this.grid, title, className));
    return this.panels.get(title);
  }

  render(s, trials, points) {
    if (s.pbt) this.pbt(s.pbt, s.mode);
    if (s.pareto) this.pareto(s.pareto);
    // Of a large experiment the page holds a sample (the summary's `held`): each chart
    // over trials says so.
    const held = (option) => ({ ...option, note: charts.joinNotes(option.note, charts.heldNote(s)) });
    charts.draw(this.panel('Optimisation history'), held(charts.historyOption(trials, s)));
    charts.draw(this.panel('Intermediate values'), held(charts.curvesOption(points, trials, s)));
    const charted = charts.chartedParams(trials, s);
    charts.draw(this.panel('Parallel coordinates', 'wide'), held(charts.parallelOption(trials, s, charted)));
    // Their places, drawn when importance arrives: one per objective with several.
    for (const title of importanceTitles(s)) this.panel(title);
    if (charted.names.length) {
      const slices = this.panel('Slices', 'wide');
      charts.draw(slices, held(charts.slicesOption(trials, s, slices.body.clientWidth, charted)));
    }
    charts.allMade();
  }

  // A PBT experiment's lineage and schedules (web/src/pbt.js), first: what PBT is about.
  pbt(pbt, mode) {
    charts.draw(this.panel('PBT lineage', 'wide'), lineageOption(pbt, mode));
    const params = this.panel('PBT parameters over time', 'wide');
    charts.draw(params, paramsOption(pbt, params.body.clientWidth));
  }

  // Several objectives: the front and the hypervolume (web/src/pareto.js).
  pareto(pareto) {
    const front = this.panel('Pareto front', pareto.objectives.length > 2 ? 'wide' : '');
    charts.draw(front, frontOption(pareto, front.body.clientWidth));
    charts.draw(this.panel('Hypervolume history'), hypervolumeOption(pareto));
  }

  // Importance draws on its own: it never holds up or redraws the other charts.
  importance(result) {
    const draw = (title, one, what) => {
      if (!one.params.length) return;
      const stale = one.current ? '' : ' (updating: trials finished since)';
      const sampled = one.of > one.trials ? ` (a sample spread over all ${one.of})` : '';
      charts.draw(this.panel(title), { ...charts.importanceOption(one), note: `over ${one.trials} completed trials${sampled}${what}${stale}` },
        { counted: false, onDrawn: () => performance.mark('gpusweep-importance-drawn') });
    };
    if (!result.objectives) { draw(IMPORTANCE, result, ''); return; }
    for (const one of result.objectives) draw(`${IMPORTANCE}: ${one.objective}`, one, ` reporting ${one.objective} (${one.mode})`);
  }
}

// Fetches parameter importance until it is current for the trials the page shows:
// once after the first draw, again whenever a poll brings trials or the server says its
// answer lags behind (it recomputes at most every few seconds). One request at a time.
class ImportanceFollower {
  constructor(id, onResult) { this.id = id; this.onResult = onResult; this.busy = false; this.wanted = 0; this.have = -1; }

  want(revision) {
    this.wanted = Math.max(this.wanted, revision);
    if (this.busy || this.have >= this.wanted) return;
    this.busy = true;
    data.importance(this.id).then((result) => {
      this.busy = false;
      if (this.stopped || !result || !result.params) return;
      if (result.params.length) this.onResult(result);
      this.have = result.current ? Math.max(result.revision, this.wanted) : result.revision;
      if (this.have < this.wanted && !this.stopped) setTimeout(() => this.want(this.wanted), POLL_MS);
    });
  }

  stop() { this.stopped = true; }
}

export async function experimentPage(app, id) {
  stopPolling();
  const [s, t, p] = await Promise.all([data.summary(id), data.trials(id), data.points(id)]);
  performance.mark('gpusweep-data-received');
  s.id = id;
  const state = new ExperimentState();
  state.mergeTrials(t);
  state.mergePoints(p);
  crumbs(el('a', { href: `#/e/${encodeURIComponent(id)}` }, s.name));
  const head = el('div', {});
  const tournament = el('section', { class: 'panel wide', id: 'nas', hidden: true }, el('h3', {}, 'NAS tournament'), el('div', {}));
  const grid = el('div', { class: 'grid' });
  app.replaceChildren(head, tournament, grid);
  const table = new TrialTable(app, id, s);
  const view = new ExperimentCharts(grid);
  let renderMs = 0;
  const render = (summary) => {
    const began = performance.now();
    summary.id = id;
    head.replaceChildren(summaryLine(summary));
    if (summary.nas) {
      tournament.hidden = false;
      tournament.lastChild.replaceChildren(...nasView(summary.nas));
    }
    const trials = state.list();
    // The table first: the page's drawn mark (set by the last chart) then says both.
    table.update(trials, summary);
    view.render(summary, trials, state.points);
    renderMs = performance.now() - began;
  };
  render(s);
  performance.mark('gpusweep-render-returned');
  const importance = new ImportanceFollower(id, (result) => view.importance(result));
  // After the first draw: the page is usable before the forest's answer comes.
  requestAnimationFrame(() => setTimeout(() => importance.want(s.revision || 0), 0));
  stopPolling = () => importance.stop();
  if (data.isReport() || !s.running) { setLive(data.isReport() ? 'report' : ''); return; }
  setLive('live');
  let active = true;
  stopPolling = () => { active = false; importance.stop(); };
  // A 10,000-trial sweep takes a while to redraw: never spend more than a fifth of the
  // time redrawing.
  const next = () => setTimeout(poll, Math.max(POLL_MS, 4 * renderMs));
  const poll = async () => {
    if (!active) return;
    try {
      const [summary, nt, np] = await Promise.all([data.summary(id), data.trials(id, state.revision, state.trialsGeneration), data.points(id, state.cursor, state.pointsGeneration)]);
      if (!active) return;
      if (state.mergeTrials(nt) + state.mergePoints(np) > 0 || summary.running !== s.running) {
        render(summary);
        importance.want(state.revision);
      }
      s.running = summary.running;
      setLive(summary.running ? 'live' : experimentState(summary));
      if (!summary.running) return;
    } catch (e) {
      setLive(`update failed: ${e.message}`);
    }
    next();
  };
  next();
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
    el('div', { class: 'summary' }, el('h2', {}, `Trial ${t.number}`), stateBadge(shownState(t, s)),
      el('p', {}, `${s.metric} ${fmtNumber(t.objective)}; attempt ${t.attempt}; ${t.gpus.length ? `GPUs ${t.gpus.join(',')}` : 'CPU'}; started ${fmtTime(t.start)}; ran ${fmtDuration(trialDuration(t, s))}`,
        ended ? `; ${ended}` : '', t.budget !== null ? `; budget ${fmtNumber(t.budget)}` : '',
        d.judged ? `; last judged at rung ${d.judged.rung} (${s.scheduler ? s.scheduler.resource : 'budget'} ${fmtNumber(d.judged.resource)}): ${d.judged.verdict}` : ''),
      t.reason ? el('p', { class: 'reason' }, t.reason) : '',
      el('p', { class: 'path' }, d.dir)),
    el('section', { class: 'panel' }, el('h3', {}, 'Parameters'), keyValues(t.params)),
    grid,
    d.decisions.length ? el('section', { class: 'panel wide' }, el('h3', {}, 'Scheduler decisions'), el('ul', { class: 'decisions' }, d.decisions.map((line) => el('li', {}, line)))) : '',
    el('section', { class: 'panel wide' }, el('h3', {}, 'output.log (tail)'), el('pre', { class: 'log', id: 'log-tail' }, d.log_tail || '(empty)')));
  if (d.results.length) charts.draw(charts.panel(grid, 'Metrics over steps', 'wide'), charts.trialMetricsOption(d.results));
  charts.allMade();
}
