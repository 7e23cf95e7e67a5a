// The dashboard's charts, drawn with ECharts (canvas renderer, no animation: a 10,000-
// trial sweep must draw in well under a second). Only the parts used are bundled.
import * as echarts from 'echarts/core';
import { BarChart, LineChart, LinesChart, ParallelChart, ScatterChart } from 'echarts/charts';
import {
  GridComponent, LegendPlainComponent, MarkLineComponent, ParallelComponent, TooltipComponent,
  VisualMapContinuousComponent,
} from 'echarts/components';
import { CanvasRenderer } from 'echarts/renderers';
import { el, escapeHtml, fmtNumber, fmtValue, grouped } from './dom.js';
import { better, order } from './objective.js';

echarts.use([BarChart, LineChart, LinesChart, ParallelChart, ScatterChart, GridComponent,
  LegendPlainComponent, MarkLineComponent, ParallelComponent, TooltipComponent,
  VisualMapContinuousComponent, CanvasRenderer]);

export const COLORS = { completed: '#2f7ed8', pruned: '#e4a23d', failed: '#d9534f', running: '#8bbf4c', best: '#1b1b1b', rung: '#7a4fb8' };
// A trial state's colour in the charts (grey for the states drawn nowhere else).
export const stateColor = (state) => COLORS[state] || '#9aa5b5';
const live = new Set();

// Calls `whenDrawn` once every chart made since the last reset() has rendered, after
// allMade() said no more are coming (ECharts may render a chart within setOption, so
// "none pending" alone would fire after the first).
let pending = 0;
let made = false;
let fired = false;
let whenDrawn = () => {};
export function reset(onAllDrawn) {
  for (const chart of live) chart.dispose();
  live.clear();
  pending = 0;
  made = false;
  fired = false;
  whenDrawn = onAllDrawn;
}

function settle() {
  if (fired || !made || pending > 0) return;
  fired = true;  // once per reset()
  whenDrawn();
}

export function allMade() {
  made = true;
  settle();
}

// A chart in a titled panel. The panel gets data-drawn="true" once ECharts has rendered.
export function panel(parent, title, className = '') {
  const body = el('div', { class: 'chart' });
  const note = el('p', { class: 'note muted' });
  const box = el('section', { class: `panel ${className}`, dataset: { chart: title } }, el('h3', {}, title), body, note);
  parent.append(box);
  return { box, body, note, chart: null };
}

// Draws `option` in `target`: the first time a new chart (counted for whenDrawn unless
// `counted` is false), later the same chart with the option replaced, which costs far
// less than a new one. `onDrawn` runs after each render. An option's `note` is shown
// under the chart and its `height` (px) sizes the chart's box.
export function draw(target, { note, height, ...option }, { counted = true, onDrawn = () => {} } = {}) {
  target.note.textContent = note || '';
  const resized = height !== undefined && target.body.style.height !== `${height}px`;
  if (resized) target.body.style.height = `${height}px`;
  if (target.chart) {
    if (resized) target.chart.resize();
    target.chart.setOption({ animation: false, ...option }, { notMerge: true, lazyUpdate: false });
    return target.chart;
  }
  const chart = echarts.init(target.body, null, { renderer: 'canvas' });
  target.chart = chart;
  live.add(chart);
  if (counted) pending += 1;
  let first = counted;
  chart.on('finished', () => {
    target.box.dataset.drawn = 'true';
    onDrawn();
    if (!first) return;
    first = false;
    pending -= 1;
    settle();
  });
  chart.setOption({ animation: false, ...option });
  return chart;
}

// For the browser tests: the chart drawn in a panel, found by its title.
window.gpusweepChart = (title) => {
  const box = [...document.querySelectorAll('section[data-chart]')].find((b) => b.dataset.chart === title);
  return box ? echarts.getInstanceByDom(box.querySelector('.chart')) : null;
};

window.addEventListener('resize', () => live.forEach((c) => c.resize()));

// Small squares for the many-point scatters: ECharts' large mode paints symbols under 4
// px with one fillRect each, anything else as a path (10,000 circles were most of the
// paint of a 10,000-trial page, bench/web).
const BULK_SYMBOL = 'rect';
const BULK_SIZE = 3.5;

// Scatter points as one flat Float64Array of `dims.length` numbers each, with the
// series' `dimensions` (ECharts' typed-array data): no array per point for the page to
// allocate and setOption to clone, which at 37,000 points cost more than drawing them.
function packed(items, dims, row) {
  const flat = new Float64Array(items.length * dims.length);
  items.forEach((item, i) => flat.set(row(item), i * dims.length));
  return { data: flat, dimensions: dims };
}

// Several objectives (the summary's `pareto`, web/pareto_json.h): each completed trial
// is on the feasible front, dominated, or infeasible, and every chart of trials marks
// the front and the infeasible ones the same way as the Pareto panel draws them.
export function paretoClass(t) {
  if (!t.feasible) return 'infeasible';
  return t.front ? 'front' : 'dominated';
}
export function paretoByTrial(summary) {
  return new Map(((summary.pareto || {}).trials || []).map((t) => [t.trial, t]));
}
export const PARETO_STYLE = {
  front: { symbol: 'circle', symbolSize: 9, itemStyle: { color: '#1e9e4a' } },
  dominated: { symbol: 'circle', symbolSize: 6, itemStyle: { color: COLORS.completed, opacity: 0.7 } },
  infeasible: { symbol: 'triangle', symbolSize: 8, itemStyle: { color: COLORS.failed } },
};
// Overlays on a scatter of trials: a ring round each front trial, a triangle on each
// infeasible one; `row` gives a trial's point, `axes` the grid's axis indices.
const MARKS = { front: { name: 'Pareto front', symbol: 'emptyCircle', symbolSize: 11, itemStyle: { color: '#1e9e4a', borderWidth: 2 } },
  infeasible: { name: 'infeasible', symbol: 'triangle', symbolSize: 9, itemStyle: { color: COLORS.failed } } };
function paretoMarks(trials, summary, row, axes = {}) {
  if (!summary.pareto) return [];
  const classes = paretoByTrial(summary);
  return Object.entries(MARKS).map(([kind, style]) => ({ type: 'scatter', z: 4, ...axes, ...style,
    data: trials.filter((t) => classes.has(t.number) && paretoClass(classes.get(t.number)) === kind).map(row) }));
}

// Notes shown under a chart, joined; empty ones left out.
export const joinNotes = (...notes) => notes.filter(Boolean).join('; ');

// What the page holds of a large experiment (the summary's `held`, web/charted_trials.h):
// '' when it holds every trial.
export function heldNote(summary) {
  const h = summary.held;
  if (!h || h.held >= h.recorded) return '';
  return `the page holds ${grouped(h.held)} of ${grouped(h.recorded)} trials: ` +
    `the best ${grouped(h.best)}, every unfinished one and 1 in ${h.stride} of the rest, a sample spread over the run`;
}

// Objective of each finished trial against its number, and the best so far.
export function historyOption(trials, summary) {
  const done = trials.filter((t) => t.objective !== null && (t.state === 'completed' || t.state === 'pruned'));
  const bestLine = [];
  let best = null;
  let last = null;
  for (const t of [...done].sort((a, b) => a.number - b.number)) {
    if (t.state !== 'completed') continue;
    last = t.number;
    const next = best === null || better(summary.mode, t.objective, best) ? t.objective : best;
    if (next !== best) bestLine.push([t.number, next]);  // a step line: its changes draw it
    best = next;
  }
  if (last !== null && bestLine[bestLine.length - 1][0] !== last) bestLine.push([last, best]);
  const series = ['completed', 'pruned'].map((state) => ({
    name: state, type: 'scatter', symbol: BULK_SYMBOL, symbolSize: BULK_SIZE, large: true, itemStyle: { color: COLORS[state] },
    ...packed(done.filter((t) => t.state === state), ['trial', 'objective'], (t) => [t.number, t.objective]),
  }));
  // A NAS search's evaluations differ in stage, data size and epochs: a running best
  // across them would name a cheap round-1 score, never the search's result.
  series.push(...paretoMarks(done.filter((t) => t.state === 'completed'), summary, (t) => [t.number, t.objective]));
  // Several objectives: the first alone has no "best" (the Pareto panel shows the front).
  if (!summary.nas && !summary.pareto) series.push({ name: 'best so far', type: 'line', step: 'end', showSymbol: false, data: bestLine, lineStyle: { color: COLORS.best } });
  return {
    note: summary.pareto ? `${summary.metric}, the first of ${summary.pareto.objectives.length} objectives: no best-so-far line (see the Pareto front); rings: the front, triangles: infeasible`
      : summary.nas ? 'evaluations of every stage (rounds on growing data, winner samples, confirms, the retrain): not comparable across stages, so no best-so-far line; the result is the retrain' : '',
    legend: { top: 0 }, grid: { left: 60, right: 20, top: 30, bottom: 40 },
    tooltip: { trigger: 'item', formatter: (p) => `trial ${escapeHtml(p.value[0])}: ${escapeHtml(fmtNumber(p.value[1]))}` },
    xAxis: { type: 'value', name: 'trial', nameLocation: 'middle', nameGap: 25 },
    yAxis: { type: 'value', name: summary.metric, scale: true },
    series,
  };
}

// At most this many learning curves are drawn: past a few hundred the overview is a band
// anyway, and 10,000 polylines were the largest share of a 10,000-trial page's drawing
// (bench/web). Every curve is on its trial's page.
const CURVES_MAX = 1000;

// The curves drawn: all, or the trials of the best fifth of CURVES_MAX and an evenly
// spaced sample of the rest (in trial order). `lines` are [trial, point indices].
function curveSample(lines, trials, mode) {
  if (lines.length <= CURVES_MAX) return { lines, note: '' };
  const objective = new Map(trials.filter((t) => t.objective !== null).map((t) => [t.number, t.objective]));
  const ranked = [...lines].sort((a, b) => order(mode, objective.get(a[0]), objective.get(b[0])));
  const top = ranked.slice(0, CURVES_MAX / 5);
  const chosen = new Set(top);
  const rest = lines.filter((line) => !chosen.has(line));
  const every = rest.length / (CURVES_MAX - top.length);
  for (let i = 0; i < CURVES_MAX - top.length; i += 1) chosen.add(rest[Math.floor(i * every)]);
  return { lines: lines.filter((line) => chosen.has(line)),
    note: `curves of ${CURVES_MAX} of ${lines.length} trial attempts: the best ${top.length} trials' and an even sample of the rest; every pruned trial's stop is marked` };
}

// Learning curves: one polyline per trial attempt, pruned trials marked where they
// stopped, the scheduler's rungs as vertical dashed lines. The polylines go to ECharts
// as one flat Float64Array ([n, x1, y1, ..., xn, yn, n', ...], the 'lines' series'
// large format): thousands of curves draw in one pass, without an object each.
export function curvesOption(points, trials, summary) {
  const byKey = new Map();  // trial attempt -> [trial, indices into points in step order]
  for (let i = 0; i < points.trial.length; i += 1) {
    const key = points.trial[i] * 1000 + points.attempt[i];
    let line = byKey.get(key);
    if (!line) byKey.set(key, (line = [points.trial[i]]));
    line.push(i);
  }
  const state = new Map(trials.map((t) => [t.number, t.state]));
  const lastAttempt = new Map();  // a pruned trial stopped in its last attempt
  for (let i = 0; i < points.trial.length; i += 1) lastAttempt.set(points.trial[i], Math.max(lastAttempt.get(points.trial[i]) || 0, points.attempt[i]));
  const stops = [];
  let size = 0;
  for (const line of byKey.values()) {
    if (line.some((k, j) => j > 1 && points.step[k] < points.step[line[j - 1]])) {
      const sorted = line.slice(1).sort((a, b) => points.step[a] - points.step[b]);
      line.splice(1, sorted.length, ...sorted);
    }
    const last = line[line.length - 1];
    const trial = line[0];
    if (state.get(trial) === 'pruned' && points.attempt[last] === lastAttempt.get(trial)) stops.push([points.step[last], points.value[last], trial]);
  }
  const sample = curveSample([...byKey.values()], trials, summary.mode);
  for (const line of sample.lines) size += 1 + 2 * (line.length - 1);
  const flat = new Float64Array(size);
  let at = 0;
  for (const line of sample.lines) {
    flat[at++] = line.length - 1;
    for (let j = 1; j < line.length; j += 1) { flat[at++] = points.step[line[j]]; flat[at++] = points.value[line[j]]; }
  }
  // 'lines' series do not size the axes: give them the data's extent.
  let [x0, x1, y0, y1] = [Infinity, -Infinity, Infinity, -Infinity];
  for (let i = 0; i < points.step.length; i += 1) {
    const x = points.step[i], y = points.value[i];
    if (x < x0) x0 = x;
    if (x > x1) x1 = x;
    if (y < y0) y0 = y;
    if (y > y1) y1 = y;
  }
  for (const r of summary.rungs || []) { x0 = Math.min(x0, r); x1 = Math.max(x1, r); }
  const pad = (y1 - y0) * 0.05 || 1;
  const extent = isFinite(x0) ? { x: { min: x0, max: x1 }, y: { min: y0 - pad, max: y1 + pad } } : { x: {}, y: {} };
  // Labelled by budget (the trial page and decisions number rungs from 0: 'rung 0 (epoch 1)').
  const resource = summary.scheduler ? summary.scheduler.resource : 'step';
  const rungs = (summary.rungs || []).map((r) => ({ xAxis: r, label: { formatter: `${resource} ${fmtNumber(r)}` } }));
  return {
    grid: { left: 60, right: 20, top: 30, bottom: 40 },
    tooltip: { trigger: 'item', formatter: (p) => (p.seriesName === 'stopped'
      ? `trial ${escapeHtml(p.value[2])} pruned at ${escapeHtml(fmtNumber(p.value[0]))}` : '') },
    xAxis: { type: 'value', name: summary.scheduler ? summary.scheduler.resource : 'step', nameLocation: 'middle', nameGap: 25, ...extent.x },
    yAxis: { type: 'value', name: summary.metric, ...extent.y, axisLabel: { showMinLabel: false, showMaxLabel: false, formatter: (v) => fmtNumber(v) } },
    series: [
      // No curves (every trial failed first, or none reported a step): an empty array,
      // since ECharts' large-lines path throws on an empty typed array.
      { name: 'curves', type: 'lines', coordinateSystem: 'cartesian2d', polyline: true, silent: true,
        lineStyle: { width: 1, opacity: sample.lines.length > 300 ? 0.2 : 0.45, color: COLORS.completed },
        ...(flat.length ? { large: true, largeThreshold: 0, dimensions: ['value'], data: flat } : { data: [] }) },
      { name: 'stopped', type: 'scatter', ...(stops.length > 2000 ? { symbol: BULK_SYMBOL, symbolSize: BULK_SIZE, large: true } : { symbol: 'diamond', symbolSize: 6 }), itemStyle: { color: COLORS.failed }, data: stops },
      // On a series of their own: a markLine on the flat 'lines' data breaks ECharts.
      { name: 'rungs', type: 'scatter', data: [], silent: true,
        markLine: rungs.length ? { silent: true, symbol: 'none', animation: false, lineStyle: { color: COLORS.rung, type: 'dashed', width: 1.5 }, data: rungs } : undefined },
    ],
    note: joinNotes(sample.note, [...byKey.values()].some((line) => line.length > 2) ? ''
      : 'no trial has reported two steps yet: a curve needs values at two or more steps (trials that report only a final value have none)'),
  };
}


// A parameter's axis: numeric when every value is a number and the search space does
// not declare it a choice (channels [16, 32, 64] are three options, not a range), else
// its distinct values as categories (in numeric order when they are numbers).
function axisOf(trials, name, summary) {
  const values = trials.map((t) => t.params[name]).filter((v) => v !== undefined);
  const numbers = values.every((v) => typeof v === 'number');
  if (numbers && !(summary.choice_params || []).includes(name)) return { numeric: true, categories: null };
  const distinct = numbers ? [...new Set(values)].sort((a, b) => a - b) : [...new Set(values.map(fmtValue))].sort();
  return { numeric: false, categories: distinct.map(fmtValue) };
}

// Whether at least two trials have `name` and all of them the same value.
function constant(trials, name) {
  let first, seen = 0;
  for (const t of trials) {
    const v = t.params[name];
    if (v === undefined) continue;
    if (seen === 0) first = v;
    else if (v !== first) return false;
    seen += 1;
  }
  return seen > 1;
}

// The parameters the charts draw, and a note naming the rest: values that are lists or
// objects (a NAS evaluation's architecture, a list of layer widths) have no order and no
// short label; the table and each trial's page show them. A parameter with one value
// in every trial (a fixed seed, a choice of one) would be an axis with nothing on it.
export function chartedParams(trials, summary) {
  const structured = (name) => trials.some((t) => t.params[name] !== null && typeof t.params[name] === 'object');
  const left = summary.params.filter(structured);
  const fixed = summary.params.filter((name) => !left.includes(name) && constant(trials, name));
  return { names: summary.params.filter((name) => !left.includes(name) && !fixed.includes(name)),
    note: joinNotes(left.length ? `not drawn: ${left.join(', ')} (lists or objects; shown in the table)` : '',
      fixed.length ? `not drawn: ${fixed.join(', ')} (the same value in every trial)` : '') };
}


// At most this many lines in parallel coordinates: each is its own canvas path, and past
// a few thousand the picture is a solid band anyway.
const PARALLEL_MAX = 1000;

// The trials parallel coordinates draw: all, or the best fifth of PARALLEL_MAX and an
// evenly spaced sample (by trial number) of the others. {trials, note}.
function parallelSample(done, mode) {
  if (done.length <= PARALLEL_MAX) return { trials: done, note: '' };
  const ranked = [...done].sort((a, b) => order(mode, a.objective, b.objective));
  const top = ranked.slice(0, PARALLEL_MAX / 5);
  const rest = ranked.slice(top.length).sort((a, b) => a.number - b.number);
  const every = rest.length / (PARALLEL_MAX - top.length);
  const sample = [];
  for (let i = 0; i < PARALLEL_MAX - top.length; i += 1) sample.push(rest[Math.floor(i * every)]);
  return { trials: [...sample, ...top], note: `${PARALLEL_MAX} of ${done.length} completed trials: the best ${top.length} and an even sample of the rest` };
}

// The front's and the infeasible trials' lines again on top, in their colours.
function parallelMarks(done, values, summary) {
  if (!summary.pareto) return [];
  const classes = paretoByTrial(summary);
  const of = (kind) => values.filter((_, i) => classes.has(done[i].number) && paretoClass(classes.get(done[i].number)) === kind);
  return [
    { name: 'Pareto front', type: 'parallel', lineStyle: { width: 2, opacity: 0.9, color: '#1e9e4a' }, data: of('front'), progressive: 0 },
    { name: 'infeasible', type: 'parallel', lineStyle: { width: 1.5, opacity: 0.9, color: COLORS.failed, type: 'dashed' }, data: of('infeasible'), progressive: 0 },
  ];
}

// `charted`: chartedParams' answer.
export function parallelOption(trials, summary, charted) {
  const sample = parallelSample(trials.filter((t) => t.state === 'completed' && t.objective !== null), summary.mode);
  const done = sample.trials;
  // A line needs a value on every axis: a parameter some trials lack (a conditional one,
  // inactive in them) gets no axis here rather than a made-up value; slices show it.
  const partial = charted.names.filter((name) => done.some((t) => t.params[name] === undefined));
  const names = charted.names.filter((name) => !partial.includes(name));
  const axes = names.map((name) => ({ name, ...axisOf(done, name, summary) }));
  const parallelAxis = axes.map((a, i) => (a.numeric
    ? { dim: i, name: a.name, type: 'value', scale: true }
    : { dim: i, name: a.name, type: 'category', data: a.categories }));
  parallelAxis.push({ dim: names.length, name: summary.metric, type: 'value', scale: true });
  const values = done.map((t) => [...axes.map((a) => (a.numeric ? t.params[a.name] : fmtValue(t.params[a.name]))), t.objective]);
  const objectives = done.map((t) => t.objective);
  return {
    parallel: { left: 60, right: 80, top: 40, bottom: 30 },
    parallelAxis,
    visualMap: objectives.length ? { show: false, seriesIndex: 0, dimension: names.length, min: Math.min(...objectives), max: Math.max(...objectives),
      inRange: { color: summary.mode === 'max' ? ['#d0d8e8', '#1f5fa8'] : ['#1f5fa8', '#d0d8e8'] } } : undefined,
    series: [{ type: 'parallel', lineStyle: { width: 1, opacity: 0.5 }, data: values, progressive: 0 }, ...parallelMarks(done, values, summary)],
    note: joinNotes(sample.note, charted.note,
      partial.length ? `no axis: ${partial.join(', ')} (only some trials have them; see the slices)` : ''),
  };
}

// Every parameter's slice (the objective against that parameter) in one chart: a grid
// per parameter, SLICE_ROW_PX high, as many to a row as `width` px hold. One ECharts
// instance, not one per parameter: each instance costs its own canvas, model and
// layout passes, which were most of a page's fixed drawing cost (bench/web).
const SLICE_ROW_PX = 220;
const SLICE_MIN_WIDTH_PX = 330;

// `charted`: chartedParams' answer, at least one name.
export function slicesOption(trials, summary, width, charted) {
  const names = charted.names;
  const columns = Math.max(1, Math.min(names.length, Math.floor(width / SLICE_MIN_WIDTH_PX)));
  const done = trials.filter((t) => t.state === 'completed' && t.objective !== null);
  const grid = [], xAxis = [], yAxis = [], series = [], axes = [];
  names.forEach((name, i) => {
    const row = Math.floor(i / columns), column = i % columns;
    const have = done.filter((t) => t.params[name] !== undefined);
    const axis = axisOf(have, name, summary);
    const index = new Map((axis.categories || []).map((c, k) => [c, k]));  // category -> x
    axes.push(axis);
    grid.push({ left: `${(100 * column) / columns + 4.5}%`, width: `${100 / columns - 6}%`, top: row * SLICE_ROW_PX + 10, height: SLICE_ROW_PX - 50 });
    xAxis.push(axis.numeric ? { gridIndex: i, type: 'value', name, nameLocation: 'middle', nameGap: 25, scale: true }
      : { gridIndex: i, type: 'category', name, nameLocation: 'middle', nameGap: 25, data: axis.categories, axisLabel: { interval: 0, width: 120, overflow: 'truncate' } });
    yAxis.push({ gridIndex: i, type: 'value', scale: true });
    series.push({ name, type: 'scatter', xAxisIndex: i, yAxisIndex: i, symbol: BULK_SYMBOL, symbolSize: BULK_SIZE, large: true, itemStyle: { color: COLORS.completed },
      ...packed(have, ['x', 'objective', 'trial'], (t) => [axis.numeric ? t.params[name] : index.get(fmtValue(t.params[name])), t.objective, t.number]) });
  });
  // After every slice's own series, so series i stays parameter i's (the tooltip's axes).
  names.forEach((name, i) => {
    const have = done.filter((t) => t.params[name] !== undefined);
    const index = new Map((axes[i].categories || []).map((c, k) => [c, k]));
    series.push(...paretoMarks(have, summary, (t) => [axes[i].numeric ? t.params[name] : index.get(fmtValue(t.params[name])), t.objective, t.number],
      { xAxisIndex: i, yAxisIndex: i, tooltip: { show: false } }));
  });
  return {
    height: Math.ceil(names.length / columns) * SLICE_ROW_PX,
    grid, xAxis, yAxis, series, note: charted.note,
    tooltip: { trigger: 'item', formatter: (p) => {
      const axis = axes[p.seriesIndex];
      const x = axis.numeric ? fmtNumber(p.value[0]) : axis.categories[p.value[0]];
      return `trial ${escapeHtml(p.value[2])}: ${escapeHtml(p.seriesName)}=${escapeHtml(x)}, ${escapeHtml(fmtNumber(p.value[1]))}`;
    } },
  };
}

export function importanceOption(importance) {
  const rows = [...importance.params].sort((a, b) => a.importance - b.importance);
  return {
    grid: { left: 120, right: 30, top: 10, bottom: 30 },
    tooltip: { trigger: 'item', formatter: (p) => `${escapeHtml(p.name)}: ${escapeHtml(fmtNumber(p.value))}` },
    xAxis: { type: 'value', max: 1 },
    yAxis: { type: 'category', data: rows.map((r) => r.name) },
    series: [{ type: 'bar', data: rows.map((r) => r.importance), itemStyle: { color: COLORS.completed } }],
  };
}

// A trial's reported numbers over its steps, one line per key.
export function trialMetricsOption(results) {
  const keys = [];
  for (const r of results) for (const [k, v] of Object.entries(r.values)) if (typeof v === 'number' && !keys.includes(k)) keys.push(k);
  return {
    legend: { top: 0 }, grid: { left: 60, right: 20, top: 30, bottom: 40 },
    tooltip: { trigger: 'axis', valueFormatter: (v) => escapeHtml(fmtNumber(v)) },
    xAxis: { type: 'value', name: 'step', nameLocation: 'middle', nameGap: 25, scale: true },
    yAxis: { type: 'value', scale: true },
    series: keys.map((k) => ({ name: k, type: 'line', showSymbol: results.length < 60,
      data: results.filter((r) => typeof r.values[k] === 'number').map((r) => [r.step, r.values[k]]) })),
  };
}
