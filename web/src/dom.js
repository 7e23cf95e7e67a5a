// DOM helpers. Every piece of data reaches the page as a text node or an attribute
// value set through the DOM, never through innerHTML, so a parameter value holding
// HTML or script shows as text.

export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (key.startsWith('on')) node.addEventListener(key.slice(2), value);
    else if (key === 'dataset') Object.assign(node.dataset, value);
    else node.setAttribute(key, value === true ? '' : String(value));
  }
  for (const child of children.flat()) {
    if (child === undefined || child === null || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

// For chart tooltips, which ECharts renders as HTML.
export function escapeHtml(text) {
  return String(text).replace(/[&<>"']/g, (c) => ({
    '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;',
  }[c]));
}

export function fmtNumber(value) {
  if (value === null || value === undefined) return '-';
  if (typeof value !== 'number') return typeof value === 'object' ? JSON.stringify(value) : String(value);
  if (Number.isInteger(value)) return String(value);
  return Number(value.toPrecision(6)).toString();
}

// An integer with thousands separators, "100,000": toLocaleString's first call loads
// Chromium's locale data, ~35 ms of a page's first render (bench/web, profiled).
export function grouped(n) {
  return String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

export function fmtValue(value) {
  return typeof value === 'number' ? fmtNumber(value) : (typeof value === 'string' ? value : JSON.stringify(value));
}

export function fmtDuration(seconds) {
  if (seconds === null || seconds === undefined || !isFinite(seconds)) return '-';
  const s = Math.max(0, Math.round(seconds));
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`;
  return `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`;
}

export function fmtTime(unix) {
  if (!unix) return '-';
  const d = new Date(unix * 1000);
  const pad = (n) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
}

export function stateBadge(state) {
  return el('span', { class: `state state-${state}` }, state);
}

// What an experiment's badge says: the server's state (running, finished, or
// interrupted: no gpusweep runs it and it left trials unfinished).
export function experimentState(summary) {
  return summary.state || (summary.running ? 'running' : 'finished');
}

const STATE_TITLES = {
  interrupted: 'no gpusweep is running this experiment, yet trials are left unfinished: the run stopped or died; `gpusweep run` on its config resumes it',
};

export function experimentBadge(summary) {
  const state = experimentState(summary);
  const badge = stateBadge(state);
  if (STATE_TITLES[state]) badge.title = STATE_TITLES[state];
  return badge;
}

// A trial as the page shows it. One the journal has as running while no gpusweep runs
// its experiment was left behind by a run that died (kill -9, a crash, a reboot): it is
// shown interrupted (a resumed run runs it again), with no duration, not one that grows.
export function shownState(trial, summary) {
  return trial.state === 'running' && summary.running === false ? 'interrupted' : trial.state;
}

export function trialDuration(trial, summary) {
  if (trial.end) return trial.end - trial.start;
  return summary.running === false ? null : Date.now() / 1000 - trial.start;
}
