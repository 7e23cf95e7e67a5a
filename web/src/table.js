// The trial table: every parameter and metric column, sort by any column, filter by
// state and by parameter ranges; 100 rows a page so 10,000 trials stay instant.
import { heldNote, paretoByTrial, paretoClass } from './charts.js';
import { el, fmtDuration, fmtValue, grouped, shownState, stateBadge, trialDuration } from './dom.js';
import { paretoText } from './pareto.js';

const PAGE = 100;
// Filters apply as the user types, once typing pauses this long.
const TYPING_MS = 300;

// A metric column named like the objective or a parameter is labelled "(last
// reported)": the objective is a completed trial's value (what ranks trials; none for a
// failed one), the metric what the trial last reported, a parameter what it was given.
function columnsOf(trials, summary) {
  const metrics = [];
  for (const t of trials) for (const k of Object.keys(t.metrics || {})) if (!metrics.includes(k)) metrics.push(k);
  const taken = new Set([summary.metric, ...summary.params]);
  return [
    { key: 'number', label: 'trial', get: (t) => t.number },
    { key: 'state', label: 'state', get: (t) => shownState(t, summary), cell: (t) => stateBadge(shownState(t, summary)) },
    { key: 'objective', label: `${summary.metric} (objective)`, get: (t) => t.objective },
    { key: 'duration', label: 'duration', get: (t) => trialDuration(t, summary), cell: (t) => fmtDuration(trialDuration(t, summary)) },
    ...paretoColumns(summary),
    ...summary.params.map((p) => ({ key: `p:${p}`, label: p, get: (t) => t.params[p], param: p })),
    ...metrics.map((m) => ({ key: `m:${m}`, label: taken.has(m) ? `${m} (last reported)` : m, get: (t) => (t.metrics || {})[m], metric: true })),
    { key: 'gpus', label: 'gpus', get: (t) => (t.gpus.length ? t.gpus.join(',') : 'cpu') },
  ];
}

// With several objectives: each objective's value and the Pareto rank as `status`
// writes it ("front", "2", "infeasible +0.25"), sorted by front then violation.
function paretoColumns(summary) {
  if (!summary.pareto) return [];
  const classes = paretoByTrial(summary);
  const entry = (t) => classes.get(t.number);
  return [
    ...summary.pareto.objectives.map((o, i) => ({ key: `o:${o.name}`, label: `${o.name} (${o.mode})`, get: (t) => (entry(t) ? entry(t).values[i] : null) })),
    { key: 'pareto', label: 'Pareto', get: (t) => (entry(t) ? (entry(t).feasible ? entry(t).rank : 1e9 + (entry(t).violation ?? 1e9)) : null),
      cell: (t) => (entry(t) ? el('span', { class: `pareto pareto-${paretoClass(entry(t))}` }, paretoText(entry(t))) : '-') },
  ];
}

const missing = (v) => v === null || v === undefined;

// Of a large experiment the page holds a sample (the summary's `held`): the table says
// which, and where every trial is listed.
function heldText(summary) {
  const note = heldNote(summary);
  return note ? ` (${note}; \`gpusweep status\` and \`export\` list every trial)` : '';
}

// Two values that are both there (visible() puts missing ones last).
function compare(a, b) {
  if (a === b) return 0;
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  return String(fmtValue(a)).localeCompare(String(fmtValue(b)));
}

// A filter box for one parameter: "lo..hi" for numbers, a substring for the rest.
function matches(value, text) {
  if (!text) return true;
  const range = text.match(/^\s*(-?[\d.eE+-]*)\s*\.\.\s*(-?[\d.eE+-]*)\s*$/);
  if (range && typeof value === 'number') {
    const lo = range[1] === '' ? -Infinity : Number(range[1]);
    const hi = range[2] === '' ? Infinity : Number(range[2]);
    return value >= lo && value <= hi;
  }
  return fmtValue(value ?? '').includes(text);
}

export class TrialTable {
  constructor(parent, experimentId, summary) {
    this.id = experimentId;
    this.summary = summary;
    this.sort = { key: 'number', dir: 1 };
    this.filters = {};
    this.state = '';
    this.page = 0;
    this.root = el('section', { class: 'panel wide', id: 'trials' });
    parent.append(this.root);
  }

  update(trials, summary) {
    this.trials = trials;
    this.summary = summary;
    this.render();
  }

  visible() {
    const { key, dir } = this.sort;
    const column = this.columns.find((c) => c.key === key) || this.columns[0];
    return this.trials
      .filter((t) => !this.state || shownState(t, this.summary) === this.state)
      .filter((t) => Object.entries(this.filters).every(([p, text]) => matches(t.params[p], text)))
      .sort((a, b) => {
        const x = column.get(a), y = column.get(b);
        // Trials without a value ('-') last whichever way the column sorts.
        if (missing(x) || missing(y)) return (missing(x) - missing(y)) || a.number - b.number;
        return dir * compare(x, y) || a.number - b.number;
      });
  }

  header() {
    return el('tr', {}, this.columns.map((c) => el('th', {
      class: 'sortable', title: 'sort', dataset: { key: c.key },
      onclick: () => { this.sort = { key: c.key, dir: this.sort.key === c.key ? -this.sort.dir : 1 }; this.render(); },
    }, c.label, this.sort.key === c.key ? (this.sort.dir > 0 ? ' ▲' : ' ▼') : '')));
  }

  // Each keystroke is kept in this.filters at once (a live re-render meanwhile shows it
  // and already filters by it); the table redraws once typing pauses, or on Enter.
  filterRow() {
    const apply = () => { clearTimeout(this.typing); this.page = 0; this.render(); };
    return el('tr', { class: 'filters' }, this.columns.map((c) => el('th', {}, c.param ? el('input', {
      type: 'search', placeholder: 'lo..hi or text', value: this.filters[c.param] || '', 'data-param': c.param,
      oninput: (e) => { this.filters[c.param] = e.target.value; clearTimeout(this.typing); this.typing = setTimeout(apply, TYPING_MS); },
      onchange: (e) => { if (this.filters[c.param] !== e.target.value) { this.filters[c.param] = e.target.value; apply(); } },
    }) : '')));
  }

  // Where the user is in the table before a redraw replaces its elements: the focused
  // control (a filter box being typed into, the state menu), its caret, the scroll.
  where() {
    const focused = document.activeElement;
    const scroll = this.root.querySelector('.scroll');
    if (!focused || !this.root.contains(focused)) return { scrollLeft: scroll ? scroll.scrollLeft : 0 };
    return { scrollLeft: scroll.scrollLeft, selector: focused.dataset.param !== undefined ? `input[data-param="${CSS.escape(focused.dataset.param)}"]` : focused.id ? `#${CSS.escape(focused.id)}` : null,
      caret: focused.tagName === 'INPUT' ? [focused.selectionStart, focused.selectionEnd, focused.selectionDirection] : null };
  }

  restore(where) {
    const scroll = this.root.querySelector('.scroll');
    // A new table starts scrolled to 0: setting it anyway forced a layout in the middle
    // of the page's first render (bench/web, profiled).
    if (scroll && where.scrollLeft) scroll.scrollLeft = where.scrollLeft;
    const control = where.selector && this.root.querySelector(where.selector);
    if (!control) return;
    control.focus({ preventScroll: true });
    if (where.caret) control.setSelectionRange(...where.caret);
  }

  row(t) {
    const pareto = this.pareto.get(t.number);
    return el('tr', { dataset: { trial: t.number, ...(pareto ? { pareto: paretoClass(pareto) } : {}) },
      class: pareto ? `pareto-${paretoClass(pareto)}` : undefined }, this.columns.map((c) => el('td', {},
      c.key === 'number' ? el('a', { href: `#/e/${encodeURIComponent(this.id)}/t/${t.number}` }, t.number)
        : c.cell ? c.cell(t) : fmtValue(c.get(t) ?? '-'))));
  }

  render() {
    const where = this.where();
    this.columns = columnsOf(this.trials, this.summary);
    this.pareto = paretoByTrial(this.summary);  // each row's mark, looked up once per render
    const rows = this.visible();
    const pages = Math.max(1, Math.ceil(rows.length / PAGE));
    this.page = Math.min(this.page, pages - 1);
    const shown = rows.slice(this.page * PAGE, (this.page + 1) * PAGE);
    const states = [...new Set(this.trials.map((t) => shownState(t, this.summary)))].sort();
    const stateSelect = el('select', { id: 'state-filter', onchange: (e) => { this.state = e.target.value; this.page = 0; this.render(); } },
      el('option', { value: '' }, 'every state'), states.map((s) => el('option', { value: s, selected: s === this.state }, s)));
    const pager = el('span', { class: 'pager' },
      el('button', { disabled: this.page === 0, onclick: () => { this.page -= 1; this.render(); } }, '‹'),
      ` page ${this.page + 1} of ${pages} `,
      el('button', { disabled: this.page >= pages - 1, onclick: () => { this.page += 1; this.render(); } }, '›'));
    this.root.replaceChildren(
      el('h3', {}, 'Trials'),
      el('div', { class: 'toolbar' }, stateSelect, el('span', { id: 'trial-count' }, `${grouped(rows.length)} of ${grouped(this.trials.length)} trials`, heldText(this.summary)), pager),
      el('div', { class: 'scroll' }, el('table', { class: 'trials' },
        el('thead', {}, this.header(), this.filterRow()), el('tbody', {}, shown.map((t) => this.row(t))))));
    this.restore(where);
  }
}
