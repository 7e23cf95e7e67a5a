// The NAS tournament view (docs/nas.md): per block, which topologies played which round,
// where each was eliminated and with what value, the survivors and the winner; then the
// stage records and the retrain's result. Plain DOM: a few dozen topologies.
import { el, fmtDuration, fmtNumber } from './dom.js';

// Under constraints (docs/nas.md, "Constraints") a value that broke one carries its
// violation (null: a constraint metric not reported): ' (infeasible +5)'.
function infeasible(violation) {
  if (violation === undefined || violation === 0) return '';
  return violation === null ? ' (infeasible: not reported)' : ` (infeasible +${fmtNumber(violation)})`;
}

// One block as a table: a row per topology, a column per round. A cell says the
// topology played that round ('in'), was eliminated there ('out', the value and, when it
// broke a constraint, its violation), or is empty (gone before it).
function blockTable(block, policy) {
  const out = new Map(block.eliminated.map((e) => [e.topology, e]));
  const rounds = Math.max(block.round, ...block.eliminated.map((e) => e.round), 0);
  const lastRound = (t) => (out.has(t) ? out.get(t).round : rounds);
  const topologies = [...block.survivors, ...out.keys()].sort((a, b) => lastRound(b) - lastRound(a) || a - b);
  const header = el('tr', {}, el('th', {}, 'topology'),
    Array.from({ length: rounds }, (_, r) => el('th', {}, `round ${r + 1}`)), el('th', {}, ''));
  const rows = topologies.map((t) => {
    const e = out.get(t);
    const cells = Array.from({ length: rounds }, (_, r) => {
      if (e && r + 1 === e.round) {
        const text = `${fmtNumber(e.value)}${infeasible(e.violation)}`;
        return el('td', { class: 'nas-out', title: `${policy} ${text}` }, `out ${text}`);
      }
      return el('td', { class: r + 1 <= lastRound(t) ? 'nas-in' : '' }, r + 1 <= lastRound(t) ? 'in' : '');
    });
    const note = t === block.winner ? 'winner' : e ? `eliminated in round ${e.round}` : 'survivor';
    return el('tr', { dataset: { topology: t, state: t === block.winner ? 'winner' : e ? 'eliminated' : 'survivor' } },
      el('td', {}, `topology ${t}`), cells, el('td', { class: t === block.winner ? 'nas-winner' : 'muted' }, note));
  });
  const confirm = block.confirm_trial === null ? ''
    : `; confirmed by trial ${block.confirm_trial} with ${fmtNumber(block.confirm_score)}${infeasible(block.confirm_violation)}`;
  return el('div', { class: 'nas-block', dataset: { block: block.block } },
    el('h4', {}, `Block ${block.block}: round ${block.round}, ${block.survivors.length} left`,
      block.winner === null ? '' : `, winner topology ${block.winner}`, confirm),
    el('div', { class: 'scroll' }, el('table', { class: 'trials nas' }, el('thead', {}, header), el('tbody', {}, rows))));
}

function stagesTable(stages) {
  const head = ['block', 'stage', 'round', 'done / planned', 'failed', 'infeasible', 'data', 'epochs', 'best', 'cost'];
  return el('table', { class: 'trials nas-stages' },
    el('thead', {}, el('tr', {}, head.map((h) => el('th', {}, h)))),
    el('tbody', {}, stages.map((s) => el('tr', {},
      [s.block, s.stage, s.round || '', `${s.finished} / ${s.evaluations}`, s.failed, s.infeasible ?? 0,
        s.data_size || 'all', s.epochs,
        fmtNumber(s.best), fmtDuration(s.cost_seconds)].map((v) => el('td', {}, v))))));
}

// The panel's contents for `nas` (the summary's NasProgressJson object).
export function nasView(nas) {
  const result = nas.retrain_score === null ? ''
    : `; retrain ${fmtNumber(nas.retrain_score)}${infeasible(nas.retrain_violation)}${nas.retrain_test_acc === null ? '' : `, test_acc ${fmtNumber(nas.retrain_test_acc)}`}`;
  return [
    el('p', {}, `${nas.search}, elimination ${nas.elimination}: ${nas.topologies} topologies, ${nas.evaluations} evaluations planned${result}`),
    ...nas.blocks.map((b) => blockTable(b, nas.elimination)),
    el('h4', {}, 'Stages'),
    el('div', { class: 'scroll' }, stagesTable(nas.stages)),
  ];
}
