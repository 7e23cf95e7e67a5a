// Several objectives (docs/config.md, "Several objectives and constraints"): the front
// as a scatter of two objectives (a matrix of every pair for more), infeasible trials
// marked apart, and the hypervolume as trials completed. Drawn from the summary's
// `pareto` section (web/pareto_json.h), which ranks as `status` and `best` do.
import { COLORS, PARETO_STYLE, paretoClass } from './charts.js';
import { escapeHtml, fmtNumber } from './dom.js';

// The rank as `status` writes it: "front", "2", "3", ... or "infeasible +0.25".
export function paretoText(t) {
  if (!t.feasible) return `infeasible +${fmtNumber(t.violation)}`;
  return t.front ? 'front' : String(t.rank + 1);
}

const CLASSES = ['dominated', 'front', 'infeasible'];
const PAIR_ROW_PX = 300;

// The pairs of objectives drawn: the one pair for two, every pair (i < j) for more.
function pairsOf(count) {
  const pairs = [];
  for (let i = 0; i < count; i += 1) for (let j = i + 1; j < count; j += 1) pairs.push([i, j]);
  return pairs;
}

export function frontOption(pareto, width) {
  const objectives = pareto.objectives;
  const pairs = pairsOf(objectives.length);
  const columns = Math.max(1, Math.min(pairs.length, Math.floor(width / 340)));
  const grid = [], xAxis = [], yAxis = [], series = [];
  pairs.forEach(([a, b], g) => {
    const row = Math.floor(g / columns), column = g % columns;
    grid.push({ left: `${(100 * column) / columns + 6}%`, width: `${100 / columns - 9}%`, top: row * PAIR_ROW_PX + 35, height: PAIR_ROW_PX - 85 });
    const label = (o) => `${o.name} (${o.mode})`;
    xAxis.push({ gridIndex: g, type: 'value', name: label(objectives[a]), nameLocation: 'middle', nameGap: 25, scale: true });
    // Left-aligned at the axis: centred there, a long name is cut off at the chart's edge.
    yAxis.push({ gridIndex: g, type: 'value', name: label(objectives[b]), nameTextStyle: { align: 'left' }, scale: true });
    const drawn = pareto.trials.filter((t) => t.values[a] !== null && t.values[b] !== null);
    for (const kind of CLASSES) {
      series.push({ name: kind, type: 'scatter', xAxisIndex: g, yAxisIndex: g, ...PARETO_STYLE[kind], pair: [a, b],
        data: drawn.filter((t) => paretoClass(t) === kind).map((t) => [t.values[a], t.values[b], t.trial]) });
    }
    // With two objectives the front is a staircase: joined in the first's order.
    if (objectives.length === 2) {
      const front = drawn.filter((t) => t.front).sort((x, y) => x.values[a] - y.values[a]);
      series.push({ name: 'front line', type: 'line', xAxisIndex: g, yAxisIndex: g, silent: true, showSymbol: false,
        lineStyle: { color: COLORS.best, width: 1, type: 'dashed' }, data: front.map((t) => [t.values[a], t.values[b]]) });
    }
  });
  const counts = Object.fromEntries(CLASSES.map((k) => [k, pareto.trials.filter((t) => paretoClass(t) === k).length]));
  return {
    height: Math.ceil(pairs.length / columns) * PAIR_ROW_PX,
    legend: { top: 0, right: 10, data: ['front', 'dominated', 'infeasible'] },
    grid, xAxis, yAxis, series,
    tooltip: { trigger: 'item', formatter: (p) => {
      const t = pareto.trials.find((x) => x.trial === p.value[2]);
      return t ? `trial ${escapeHtml(t.trial)}: ${escapeHtml(paretoText(t))}; ${objectives.map((o, i) => `${escapeHtml(o.name)} ${escapeHtml(fmtNumber(t.values[i]))}`).join(', ')}` : '';
    } },
    note: `${counts.front} on the front, ${counts.dominated} dominated, ${counts.infeasible} infeasible of ${pareto.trials.length} completed trials` +
      (pareto.trials.length < pareto.counts.completed ? ` the page holds (of ${pareto.counts.completed}; the front: ${pareto.counts.front})` : '') +
      (pairs.length > 1 ? `; every pair of the ${objectives.length} objectives` : ''),
  };
}

// The feasible trials' hypervolume after each completion, against one reference point.
export function hypervolumeOption(pareto) {
  const reference = pareto.reference
    ? pareto.objectives.map((o, i) => `${o.name}=${fmtNumber(pareto.reference[i])}`).join(', ') : '';
  return {
    grid: { left: 70, right: 20, top: 35, bottom: 40 },
    tooltip: { trigger: 'item', formatter: (p) => `after trial ${escapeHtml(p.value[2])} (${escapeHtml(p.value[0])} completed): ${escapeHtml(fmtNumber(p.value[1]))}` },
    xAxis: { type: 'value', name: 'completed trials', nameLocation: 'middle', nameGap: 25, minInterval: 1 },
    yAxis: { type: 'value', name: 'hypervolume', scale: true, axisLabel: { formatter: (v) => fmtNumber(v) } },
    series: [{ name: 'hypervolume', type: 'line', step: 'end', showSymbol: pareto.hypervolume.length < 200, symbolSize: 4,
      itemStyle: { color: COLORS.best }, data: pareto.hypervolume.map((h) => [h.completed, h.value, h.trial]) }],
    note: pareto.reference ? `reference ${reference}${pareto.reference_derived ? ' (derived: 10% of the range past the worst feasible value)' : ''}`
      : 'no feasible trial yet: no hypervolume',
  };
}
