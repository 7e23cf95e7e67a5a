// The dashboard's charts, drawn with ECharts (canvas renderer, no animation: a 10,000-
// trial sweep must draw in well under a second). Only the parts used are bundled.
import * as echarts from 'echarts/core';
import { BarChart, LineChart, LinesChart, ParallelChart, ScatterChart } from 'echarts/charts';
import {
  DataZoomComponent, GridComponent, LegendComponent, MarkLineComponent, ParallelComponent,
  TitleComponent, TooltipComponent, VisualMapComponent,
} from 'echarts/components';
import { CanvasRenderer } from 'echarts/renderers';
import { el, escapeHtml, fmtNumber, fmtValue } from './dom.js';

echarts.use([BarChart, LineChart, LinesChart, ParallelChart, ScatterChart, DataZoomComponent,
  GridComponent, LegendComponent, MarkLineComponent, ParallelComponent, TitleComponent,
  TooltipComponent, VisualMapComponent, CanvasRenderer]);

const COLORS = { completed: '#2f7ed8', pruned: '#e4a23d', failed: '#d9534f', running: '#8bbf4c', best: '#1b1b1b' };
const live = new Set();

// Calls `whenDrawn` once every chart made since the last reset() has rendered.
let pending = 0;
let whenDrawn = () => {};
export function reset(onAllDrawn) {
  for (const chart of live) chart.dispose();
  live.clear();
  pending = 0;
  whenDrawn = onAllDrawn;
}

// A chart in a titled panel. The panel gets data-drawn="true" once ECharts has rendered.
export function panel(parent, title, className = '') {
  const body = el('div', { class: 'chart' });
  const box = el('section', { class: `panel ${className}`, dataset: { chart: title } }, el('h3', {}, title), body);
  parent.append(box);
  return { box, body };
}

export function draw(target, option) {
  const chart = echarts.init(target.body, null, { renderer: 'canvas' });
  live.add(chart);
  pending += 1;
  let counted = false;
  chart.on('finished', () => {
    target.box.dataset.drawn = 'true';
    if (counted) return;
    counted = true;
    pending -= 1;
    if (pending === 0) whenDrawn();
  });
  chart.setOption({ animation: false, ...option });
  return chart;
}

window.addEventListener('resize', () => live.forEach((c) => c.resize()));

const better = (mode) => (mode === 'max' ? Math.max : Math.min);

// Objective of each finished trial against its number, and the best so far.
export function historyOption(trials, summary) {
  const pick = better(summary.mode);
  const done = trials.filter((t) => t.objective !== null && (t.state === 'completed' || t.state === 'pruned'));
  const bestLine = [];
  let best = null;
  for (const t of [...done].sort((a, b) => a.number - b.number)) {
    if (t.state !== 'completed') continue;
    best = best === null ? t.objective : pick(best, t.objective);
    bestLine.push([t.number, best]);
  }
  const series = ['completed', 'pruned'].map((state) => ({
    name: state, type: 'scatter', symbolSize: 5, large: true, itemStyle: { color: COLORS[state] },
    data: done.filter((t) => t.state === state).map((t) => [t.number, t.objective]),
  }));
  series.push({ name: 'best so far', type: 'line', step: 'end', showSymbol: false, data: bestLine, lineStyle: { color: COLORS.best } });
  return {
    legend: { top: 0 }, grid: { left: 60, right: 20, top: 30, bottom: 40 },
    tooltip: { trigger: 'item', formatter: (p) => `trial ${escapeHtml(p.value[0])}: ${escapeHtml(fmtNumber(p.value[1]))}` },
    xAxis: { type: 'value', name: 'trial', nameLocation: 'middle', nameGap: 25 },
    yAxis: { type: 'value', name: summary.metric, scale: true },
    series,
  };
}

// Learning curves: one polyline per trial attempt, pruned trials marked where they
// stopped, the scheduler's rungs as vertical lines.
export function curvesOption(points, trials, summary) {
  const byKey = new Map();
  for (let i = 0; i < points.trial.length; i += 1) {
    const key = points.trial[i] * 1000 + points.attempt[i];
    let line = byKey.get(key);
    if (!line) byKey.set(key, (line = { trial: points.trial[i], coords: [] }));
    line.coords.push([points.step[i], points.value[i]]);
  }
  const state = new Map(trials.map((t) => [t.number, t.state]));
  const lines = [];
  const stops = [];
  for (const line of byKey.values()) {
    line.coords.sort((a, b) => a[0] - b[0]);
    lines.push({ coords: line.coords });
    if (state.get(line.trial) === 'pruned') stops.push([...line.coords[line.coords.length - 1], line.trial]);
  }
  // 'lines' series do not size the axes: give them the data's extent.
  let [x0, x1, y0, y1] = [Infinity, -Infinity, Infinity, -Infinity];
  for (let i = 0; i < points.step.length; i += 1) {
    x0 = Math.min(x0, points.step[i]); x1 = Math.max(x1, points.step[i]);
    y0 = Math.min(y0, points.value[i]); y1 = Math.max(y1, points.value[i]);
  }
  for (const r of summary.rungs || []) { x0 = Math.min(x0, r); x1 = Math.max(x1, r); }
  const pad = (y1 - y0) * 0.05 || 1;
  const extent = isFinite(x0) ? { x: { min: x0, max: x1 }, y: { min: y0 - pad, max: y1 + pad } } : { x: {}, y: {} };
  const rungs = (summary.rungs || []).map((r) => ({ xAxis: r, label: { formatter: `rung ${fmtNumber(r)}` } }));
  return {
    grid: { left: 60, right: 20, top: 30, bottom: 40 },
    tooltip: { trigger: 'item', formatter: (p) => (p.seriesName === 'stopped'
      ? `trial ${escapeHtml(p.value[2])} pruned at ${escapeHtml(fmtNumber(p.value[0]))}` : '') },
    xAxis: { type: 'value', name: summary.scheduler ? summary.scheduler.resource : 'step', nameLocation: 'middle', nameGap: 25, ...extent.x },
    yAxis: { type: 'value', name: summary.metric, ...extent.y, axisLabel: { showMinLabel: false, showMaxLabel: false, formatter: (v) => fmtNumber(v) } },
    series: [
      { name: 'curves', type: 'lines', coordinateSystem: 'cartesian2d', polyline: true, large: true,
        largeThreshold: 500, lineStyle: { width: 1, opacity: 0.45, color: COLORS.completed }, data: lines,
        markLine: rungs.length ? { silent: true, symbol: 'none', lineStyle: { color: '#999', type: 'dashed' }, data: rungs } : undefined },
      { name: 'stopped', type: 'scatter', symbol: 'x', symbolSize: 7, large: true, itemStyle: { color: COLORS.failed }, data: stops },
    ],
  };
}

// Distinct values of a parameter; numeric when every value is a number.
function axisOf(trials, name) {
  const values = trials.map((t) => t.params[name]).filter((v) => v !== undefined);
  const numeric = values.every((v) => typeof v === 'number');
  const categories = numeric ? null : [...new Set(values.map(fmtValue))].sort();
  return { numeric, categories };
}

export function parallelOption(trials, summary) {
  const done = trials.filter((t) => t.state === 'completed' && t.objective !== null);
  const names = summary.params;
  const axes = names.map((name) => ({ name, ...axisOf(done, name) }));
  const parallelAxis = axes.map((a, i) => (a.numeric
    ? { dim: i, name: a.name, type: 'value', scale: true }
    : { dim: i, name: a.name, type: 'category', data: a.categories }));
  parallelAxis.push({ dim: names.length, name: summary.metric, type: 'value', scale: true });
  const values = done.map((t) => [...axes.map((a) => (a.numeric ? t.params[a.name] : fmtValue(t.params[a.name]))), t.objective]);
  const objectives = done.map((t) => t.objective);
  return {
    parallel: { left: 60, right: 80, top: 40, bottom: 30 },
    parallelAxis,
    visualMap: objectives.length ? { show: false, dimension: names.length, min: Math.min(...objectives), max: Math.max(...objectives),
      inRange: { color: summary.mode === 'max' ? ['#d0d8e8', '#1f5fa8'] : ['#1f5fa8', '#d0d8e8'] } } : undefined,
    series: [{ type: 'parallel', lineStyle: { width: 1, opacity: 0.5 }, data: values, progressive: 0 }],
  };
}

// One small scatter of the objective against one parameter.
export function sliceOption(trials, summary, name) {
  const done = trials.filter((t) => t.state === 'completed' && t.objective !== null && t.params[name] !== undefined);
  const axis = axisOf(done, name);
  return {
    grid: { left: 50, right: 10, top: 10, bottom: 40 },
    tooltip: { trigger: 'item', formatter: (p) => `trial ${escapeHtml(p.value[2])}: ${escapeHtml(name)}=${escapeHtml(p.value[0])}` },
    xAxis: axis.numeric ? { type: 'value', name, nameLocation: 'middle', nameGap: 25, scale: true }
      : { type: 'category', name, nameLocation: 'middle', nameGap: 25, data: axis.categories, axisLabel: { interval: 0, width: 120, overflow: 'truncate' } },
    yAxis: { type: 'value', scale: true },
    series: [{ type: 'scatter', symbolSize: 4, large: true, itemStyle: { color: COLORS.completed },
      data: done.map((t) => [axis.numeric ? t.params[name] : fmtValue(t.params[name]), t.objective, t.number]) }],
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
    legend: { top: 0, type: 'scroll' }, grid: { left: 60, right: 20, top: 30, bottom: 40 },
    tooltip: { trigger: 'axis', valueFormatter: (v) => escapeHtml(fmtNumber(v)) },
    xAxis: { type: 'value', name: 'step', nameLocation: 'middle', nameGap: 25, scale: true },
    yAxis: { type: 'value', scale: true },
    series: keys.map((k) => ({ name: k, type: 'line', showSymbol: results.length < 60,
      data: results.filter((r) => typeof r.values[k] === 'number').map((r) => [r.step, r.values[k]]) })),
  };
}
