// Usage: tokens per day and model, the cache hit rate over time, recall
// rounds, upstream latency, and cost where [[prices]] are configured
// (GET /v1/stats/usage, admin). Charts are plain SVG with the numbers in a
// table beside them.
import { api } from '../api.js';
import { t } from '../i18n.js';
import { h, empty, number, percent, section } from '../ui.js';

const SVG = 'http://www.w3.org/2000/svg';
const RANGES = [7, 30, 90];

export async function render(main, ctx) {
  if (!ctx.can('admin')) {
    main.replaceChildren(h('h1', {}, t('nav.usage')), h('p', { class: 'notice' }, t('common.needs_admin')));
    return;
  }
  const days = RANGES.includes(Number(ctx.params.get('days'))) ? Number(ctx.params.get('days')) : 30;
  const { first_day: firstDay, days: rows } = await api(`/v1/stats/usage?days=${days}`);
  const range = h('div', { class: 'row', role: 'group', 'aria-label': t('usage.range') }, RANGES.map((n) =>
    h('a', { class: 'button', href: `#/usage?days=${n}`, 'aria-current': n === days ? 'true' : null }, t('usage.days', { n }))));
  main.replaceChildren(h('div', { class: 'row spread' }, h('h1', {}, t('nav.usage')), range));
  if (!rows.length) {
    main.append(empty(t('usage.none', { day: firstDay })));
    return;
  }
  const dayList = allDays(firstDay, days);
  const perDay = new Map(dayList.map((d) => [d, { input: 0, output: 0, read: 0, write: 0, requests: 0, failed: 0, rounds: 0, fb: [], total: [], cost: 0 }]));
  const models = new Map();
  let currency = null;
  for (const r of rows) {
    const d = perDay.get(r.day);
    if (!d) continue;
    d.input += r.input_tokens; d.output += r.output_tokens; d.read += r.cache_read_tokens; d.write += r.cache_write_tokens;
    d.requests += r.requests; d.failed += r.failed; d.rounds += r.recall_rounds;
    if (r.first_byte_ms_avg !== null) d.fb.push([r.first_byte_ms_avg, r.requests]);
    d.total.push([r.total_ms_avg, r.requests]);
    if (r.cost !== null) { d.cost += r.cost; currency = r.currency; }
    const m = models.get(r.model) || { model: r.model, requests: 0, input: 0, output: 0, read: 0, cost: null, currency: r.currency };
    m.requests += r.requests; m.input += r.input_tokens; m.output += r.output_tokens; m.read += r.cache_read_tokens;
    if (r.cost !== null) m.cost = (m.cost || 0) + r.cost;
    models.set(r.model, m);
  }
  const series = dayList.map((day) => ({ day, ...perDay.get(day) }));
  const weighted = (pairs) => {
    const n = pairs.reduce((s, [, w]) => s + w, 0);
    return n ? pairs.reduce((s, [v, w]) => s + v * w, 0) / n : null;
  };
  const totals = series.reduce((s, d) => ({ input: s.input + d.input, read: s.read + d.read, output: s.output + d.output,
    requests: s.requests + d.requests, failed: s.failed + d.failed, rounds: s.rounds + d.rounds, cost: s.cost + d.cost }),
  { input: 0, read: 0, output: 0, requests: 0, failed: 0, rounds: 0, cost: 0 });

  main.append(
    h('div', { class: 'grid-stats section' },
      stat(number(totals.requests), t('usage.requests')),
      stat(percent(totals.input ? totals.read / totals.input : 0), t('usage.hit_rate')),
      stat(number(totals.input + totals.output), t('usage.tokens')),
      stat(number(totals.rounds), t('usage.recall_rounds')),
      stat(number(totals.failed), t('usage.failed')),
      stat(currency ? `${number(totals.cost, 2)} ${currency}` : '–', currency ? t('usage.cost') : t('usage.no_prices'))),
    section(t('usage.tokens_per_day'), legend([['c1', t('usage.uncached')], ['c2', t('usage.cache_read')], ['c3', t('usage.cache_write')], ['c4', t('usage.output')]]),
      barChart(series, [(d) => Math.max(0, d.input - d.read - d.write), (d) => d.read, (d) => d.write, (d) => d.output], t('usage.tokens_per_day'))),
    section(t('usage.hit_rate_over_time'), lineChart(series.map((d) => (d.input ? d.read / d.input : null)), series, { max: 1, format: percent, label: t('usage.hit_rate_over_time') })),
    section(t('usage.recall_rounds_per_day'), barChart(series, [(d) => d.rounds], t('usage.recall_rounds_per_day'))),
    section(t('usage.latency'), legend([['c1', t('usage.first_byte')], ['c2', t('usage.total')]]),
      lineChart(series.map((d) => weighted(d.fb)), series, { second: series.map((d) => weighted(d.total)), format: (v) => `${number(v)} ms`, label: t('usage.latency') })),
    section(t('usage.by_model'), modelTable([...models.values()])),
    h('details', { class: 'section' }, h('summary', {}, t('usage.table')), dayTable(rows)));
}

function stat(n, label) {
  return h('div', { class: 'stat' }, h('span', { class: 'n' }, n), h('span', { class: 'l' }, label));
}

function allDays(first, n) {
  const [y, m, d] = first.split('-').map(Number);
  return Array.from({ length: n }, (_, i) => new Date(Date.UTC(y, m - 1, d + i)).toISOString().slice(0, 10));
}

function legend(items) {
  return h('div', { class: 'legend' }, items.map(([cls, label]) => h('span', {}, h('i', { class: cls }), label)));
}

function svg(tag, attrs = {}, ...children) {
  const el = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
  for (const c of children) el.append(c);
  return el;
}

const W = 640, H = 180, PAD_L = 48, PAD_B = 22, PAD_T = 8;

function frame(label, max, format) {
  const root = svg('svg', { class: 'chart', viewBox: `0 0 ${W} ${H}`, role: 'img', 'aria-label': label });
  root.append(svg('title', {}, label));
  for (const f of [0, 0.5, 1]) {
    const y = PAD_T + (H - PAD_T - PAD_B) * (1 - f);
    root.append(svg('line', { class: 'axis', x1: PAD_L, x2: W, y1: y, y2: y }),
      svg('text', { x: PAD_L - 6, y: y + 4, 'text-anchor': 'end' }, format(max * f)));
  }
  return root;
}

function xLabels(root, series, x) {
  const step = Math.max(1, Math.ceil(series.length / 7));
  series.forEach((d, i) => {
    if (i % step === 0) root.append(svg('text', { x: x(i), y: H - 6, 'text-anchor': 'middle' }, d.day.slice(5)));
  });
}

function barChart(series, parts, label) {
  const max = Math.max(1, ...series.map((d) => parts.reduce((s, f) => s + f(d), 0)));
  const root = frame(label, max, (v) => compact(v));
  const slot = (W - PAD_L) / series.length;
  const scale = (H - PAD_T - PAD_B) / max;
  series.forEach((d, i) => {
    let y = H - PAD_B;
    parts.forEach((f, k) => {
      const v = f(d);
      if (!v) return;
      const height = v * scale;
      y -= height;
      root.append(svg('rect', { x: PAD_L + i * slot + slot * 0.15, y, width: slot * 0.7, height, class: `s${k + 1}` },
        svg('title', {}, `${d.day}: ${number(v)}`)));
    });
  });
  xLabels(root, series, (i) => PAD_L + i * slot + slot / 2);
  return root;
}

function lineChart(values, series, { max, second, format, label }) {
  const all = [...values, ...(second || [])].filter((v) => v !== null);
  const top = max ?? Math.max(1, ...all);
  const root = frame(label, top, format);
  const slot = (W - PAD_L) / series.length;
  const x = (i) => PAD_L + i * slot + slot / 2;
  const y = (v) => PAD_T + (H - PAD_T - PAD_B) * (1 - v / top);
  [values, second].filter(Boolean).forEach((line, k) => {
    const points = line.map((v, i) => (v === null ? null : [x(i), y(v)]));
    let path = '';
    points.forEach((p, i) => { if (p) path += `${path && points[i - 1] ? 'L' : 'M'}${p[0].toFixed(1)},${p[1].toFixed(1)}`; });
    root.append(svg('path', { d: path, class: `line l${k + 1}` }));
    points.forEach((p, i) => {
      if (p) root.append(svg('circle', { cx: p[0], cy: p[1], r: 3, class: `s${k + 1}` }, svg('title', {}, `${series[i].day}: ${format(line[i])}`)));
    });
  });
  xLabels(root, series, x);
  return root;
}

function compact(v) {
  if (v >= 1e6) return `${(v / 1e6).toFixed(1)}M`;
  if (v >= 1e3) return `${(v / 1e3).toFixed(0)}k`;
  return String(Math.round(v));
}

function modelTable(models) {
  return h('div', { class: 'table-wrap' }, h('table', {},
    h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, t('usage.model')), h('th', { class: 'num', scope: 'col' }, t('usage.requests')),
      h('th', { class: 'num', scope: 'col' }, t('usage.input')), h('th', { class: 'num', scope: 'col' }, t('usage.output')),
      h('th', { class: 'num', scope: 'col' }, t('usage.hit_rate')), h('th', { class: 'num', scope: 'col' }, t('usage.cost')))),
    h('tbody', {}, models.map((m) => h('tr', {}, h('td', { class: 'mono' }, m.model || t('usage.no_model')),
      h('td', { class: 'num' }, number(m.requests)), h('td', { class: 'num' }, number(m.input)), h('td', { class: 'num' }, number(m.output)),
      h('td', { class: 'num' }, percent(m.input ? m.read / m.input : 0)),
      h('td', { class: 'num' }, m.cost === null ? t('usage.unpriced') : `${number(m.cost, 2)} ${m.currency}`))))));
}

function dayTable(rows) {
  const cols = [['day', (r) => r.day], ['model', (r) => r.model], ['requests', (r) => number(r.requests)], ['failed', (r) => number(r.failed)],
    ['input', (r) => number(r.input_tokens)], ['output', (r) => number(r.output_tokens)], ['hit_rate', (r) => percent(r.hit_rate)],
    ['recall_rounds', (r) => number(r.recall_rounds)], ['first_byte', (r) => (r.first_byte_ms_avg === null ? '–' : `${number(r.first_byte_ms_avg)} ms`)],
    ['total', (r) => `${number(r.total_ms_avg)} ms`], ['cost', (r) => (r.cost === null ? '–' : `${number(r.cost, 4)} ${r.currency}`)]];
  return h('div', { class: 'table-wrap' }, h('table', {},
    h('thead', {}, h('tr', {}, cols.map(([k]) => h('th', { scope: 'col' }, t(`usage.${k}`))))),
    h('tbody', {}, rows.map((r) => h('tr', {}, cols.map(([, f]) => h('td', {}, f(r))))))));
}
