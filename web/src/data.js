// Where the page's data comes from: the server's JSON endpoints (serve), or the data
// inlined into the file (report). Both give the same shapes.

const report = window.GPUSWEEP_REPORT;

export const isReport = () => Boolean(report);

async function get(path) {
  const response = await fetch(path, { cache: 'no-store' });
  const body = await response.json().catch(() => ({ error: `HTTP ${response.status}` }));
  if (!response.ok) throw new Error(body.error || `HTTP ${response.status}`);
  return body;
}

const api = (id, what) => `api/e/${encodeURIComponent(id)}/${what}`;

// An experiment page's three requests start as this bundle starts, before the chart
// library's modules run (this module runs first): the answers travel meanwhile. Each is
// taken by the page's first ask for it.
const early = new Map();
const opening = !report && location.hash.match(/^#\/e\/([^/]+)$/);
if (opening) {
  for (const what of ['summary', 'trials?since=0', 'points?after=0']) {
    const path = api(decodeURIComponent(opening[1]), what);
    const answer = get(path);
    answer.catch(() => {});  // a failure is the page's to report, when it asks
    early.set(path, answer);
  }
}

function take(path) {
  const answer = early.get(path);
  early.delete(path);
  return answer || get(path);
}

export async function experiments() {
  if (report) return [{ id: 'report', ...report.experiment }];
  return get('api/experiments');
}

export async function summary(id) {
  return report ? report.experiment : take(api(id, 'summary'));
}

// `generation`: of the held sample the page has (web/charted_trials.h); 0 for none.
const ofGeneration = (generation) => (generation ? `&generation=${generation}` : '');

// {revision, generation, reset, trials}: held trials changed after `since` (every held
// trial when `reset`).
export async function trials(id, since = 0, generation = 0) {
  return report ? report.trials : take(api(id, `trials?since=${since}${ofGeneration(generation)}`));
}

// {generation, reset, cursor, trial[], attempt[], step[], value[]}: held trials' points
// appended after `after` (all of them when `reset`).
export async function points(id, after = 0, generation = 0) {
  return report ? report.points : take(api(id, `points?after=${after}${ofGeneration(generation)}`));
}

export async function trialDetail(id, number) {
  if (report) {
    const detail = report.details[String(number)];
    if (!detail) throw new Error(`trial ${number}'s page is not in this report (it holds the best ${Object.keys(report.details).length})`);
    return detail;
  }
  return get(api(id, `trial/${number}`));
}

export async function importance(id) {
  if (report) return report.importance || null;
  return get(api(id, 'importance')).catch(() => null);
}
