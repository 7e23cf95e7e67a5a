// Population-based training (docs/config.md, "Population-based training"): the lineage
// (each member's segments over time, a line from the checkpoint each segment continued,
// an arrow where it copied another member's) and each member's params over the
// resource. Drawn from the summary's `pbt` section (web/pbt_json.h).
import { stateColor } from './charts.js';
import { escapeHtml, fmtNumber, fmtValue } from './dom.js';

const EXPLOIT = '#d9534f';
const CONTINUED = '#9aa5b5';

// The segments keyed by trial, for the lines' parent ends.
const byTrial = (pbt) => new Map(pbt.segments.map((s) => [s.trial, s]));

// Segment k's label with the resource range it trains (the same for every member).
function segmentLabel(pbt, k) {
  const s = pbt.segments.find((x) => x.segment === k);
  return s ? `${k} (${pbt.resource} ${fmtNumber(s.from)}-${fmtNumber(s.to)})` : String(k);
}

// A completed segment's colour says how it ranked in its generation (the members
// ranked against each other at that resource): dark for the best, light for the worst,
// in the objective's direction; other segments take their state's colour.
function segmentShade(pbt, mode) {
  const range = new Map();
  for (const s of pbt.segments) {
    if (s.state !== 'completed' || s.score === null) continue;
    const [lo, hi] = range.get(s.segment) || [s.score, s.score];
    range.set(s.segment, [Math.min(lo, s.score), Math.max(hi, s.score)]);
  }
  const light = [208, 216, 232], dark = [31, 95, 168];
  return (s) => {
    if (s.state !== 'completed' || s.score === null) return stateColor(s.state);
    const [lo, hi] = range.get(s.segment);
    const up = hi > lo ? (s.score - lo) / (hi - lo) : 1;
    const t = mode === 'min' ? 1 - up : up;
    return `rgb(${light.map((c, i) => Math.round(c + t * (dark[i] - c))).join(',')})`;
  };
}

// x: segment, y: member. A segment is a point (its state's colour); a line joins it to
// the segment whose checkpoint it continued: grey for the member's own, an arrow for
// an exploit (copied from another member).
export function lineageOption(pbt, mode) {
  const segments = byTrial(pbt);
  const line = (s) => { const p = segments.get(s.parent); return { coords: [[p.segment, p.member], [s.segment, s.member]], trial: s.trial, parent: s.parent }; };
  const linked = pbt.segments.filter((s) => s.parent !== null && segments.has(s.parent));
  const lastSegment = Math.max(0, ...pbt.segments.map((s) => s.segment));
  const resource = pbt.resource;
  const shade = segmentShade(pbt, mode);
  return {
    height: Math.max(220, 60 + 36 * pbt.population),
    grid: { left: 80, right: 30, top: 30, bottom: 40 },
    legend: { top: 0, data: ['segments', 'continued', 'exploit'] },
    tooltip: { trigger: 'item', formatter: (p) => {
      if (p.seriesName === 'segments') {
        const s = segments.get(p.value[2]);
        return `trial ${escapeHtml(s.trial)}: member ${escapeHtml(s.member)}, segment ${escapeHtml(s.segment)} (${escapeHtml(resource)} ${escapeHtml(fmtNumber(s.from))}-${escapeHtml(fmtNumber(s.to))}), score ${escapeHtml(fmtNumber(s.score))}`;
      }
      return `trial ${escapeHtml(p.data.trial)} continued trial ${escapeHtml(p.data.parent)}'s checkpoint${p.seriesName === 'exploit' ? ' (exploit)' : ''}`;
    } },
    // Category axes: a segment or a member is a slot, not a quantity (points and line
    // ends are given as slot indices).
    xAxis: { type: 'category', name: 'segment', nameLocation: 'middle', nameGap: 25,
      data: Array.from({ length: lastSegment + 1 }, (_, k) => segmentLabel(pbt, k)) },
    yAxis: { type: 'category', inverse: true, data: pbt.members.map((m) => `member ${m.member}`) },
    series: [
      { name: 'continued', type: 'lines', coordinateSystem: 'cartesian2d', lineStyle: { color: CONTINUED, width: 1.5, opacity: 0.9 },
        data: linked.filter((s) => !s.exploit).map(line) },
      { name: 'exploit', type: 'lines', coordinateSystem: 'cartesian2d', symbol: ['none', 'arrow'], symbolSize: 9,
        lineStyle: { color: EXPLOIT, width: 2, opacity: 1 }, data: linked.filter((s) => s.exploit).map(line) },
      { name: 'segments', type: 'scatter', symbolSize: 11, z: 3,
        data: pbt.segments.map((s) => ({ value: [s.segment, s.member, s.trial], itemStyle: { color: shade(s) } })) },
    ],
    note: `${pbt.population} members, ${pbt.segments.length} segments, ${pbt.exploits.length} exploits (red arrows: a member copied another's checkpoint; grey: it continued its own); a segment's shade: its rank in its generation, darkest best`,
  };
}

// One grid per parameter (as the slices are), one step line per member: its value over
// each segment's resource range, so an exploit shows as a jump to the donor's (explored)
// value. Parameters whose values are not all numbers get category axes.
export function paramsOption(pbt, width) {
  const names = [...new Set(pbt.segments.flatMap((s) => Object.keys(s.params)))]
    .filter((n) => pbt.segments.every((s) => s.params[n] === undefined || typeof s.params[n] !== 'object' || s.params[n] === null));
  const columns = Math.max(1, Math.min(names.length, Math.floor(width / 420)));
  const rowPx = 230;
  const segments = byTrial(pbt);
  const grid = [], xAxis = [], yAxis = [], series = [];
  names.forEach((name, i) => {
    const row = Math.floor(i / columns), column = i % columns;
    const values = pbt.segments.map((s) => s.params[name]).filter((v) => v !== undefined);
    const numeric = values.every((v) => typeof v === 'number');
    const categories = numeric ? null : [...new Set(values.map(fmtValue))].sort();
    const logScale = numeric && values.every((v) => v > 0) && Math.max(...values) / Math.min(...values) > 10;
    grid.push({ left: `${(100 * column) / columns + 6}%`, width: `${100 / columns - 9}%`, top: row * rowPx + 30, height: rowPx - 75 });
    xAxis.push({ gridIndex: i, type: 'value', name: pbt.resource, nameLocation: 'middle', nameGap: 22, scale: true });
    yAxis.push(numeric ? { gridIndex: i, type: logScale ? 'log' : 'value', name, scale: true, axisLabel: { formatter: (v) => fmtNumber(v) } }
      : { gridIndex: i, type: 'category', name, data: categories });
    for (const member of pbt.members) {
      const data = [];
      for (const trial of member.trials) {
        const s = segments.get(trial);
        if (!s || s.params[name] === undefined || s.to === null) continue;
        const y = numeric ? s.params[name] : fmtValue(s.params[name]);
        data.push([s.from, y, s.trial], [s.to, y, s.trial]);
      }
      series.push({ name: `member ${member.member}`, type: 'line', xAxisIndex: i, yAxisIndex: i, showSymbol: false, data, param: name });
    }
  });
  return {
    height: Math.max(1, Math.ceil(names.length / columns)) * rowPx,
    legend: { top: 0, type: 'plain', data: pbt.members.map((m) => `member ${m.member}`) },
    grid, xAxis, yAxis, series,
    tooltip: { trigger: 'item', formatter: (p) => `member ${escapeHtml(p.seriesName.split(' ')[1])}, trial ${escapeHtml(p.value[2])}: ${escapeHtml(fmtValue(p.value[1]))} at ${escapeHtml(pbt.resource)} ${escapeHtml(fmtNumber(p.value[0]))}` },
    note: names.length ? '' : 'no parameter to draw',
  };
}
