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

export async function experiments() {
  if (report) return [{ id: 'report', ...report.experiment }];
  return get('api/experiments');
}

export async function summary(id) {
  return report ? report.experiment : get(api(id, 'summary'));
}

// {revision, trials}: trials changed after `since`.
export async function trials(id, since = 0) {
  return report ? report.trials : get(api(id, `trials?since=${since}`));
}

// {cursor, trial[], attempt[], step[], value[]}: points appended after `after`.
export async function points(id, after = 0) {
  return report ? report.points : get(api(id, `points?after=${after}`));
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
