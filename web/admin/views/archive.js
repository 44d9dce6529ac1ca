// Archive: search every conversation (words or exact, a date range, one
// conversation); a conversation view that scrolls to the hit; a timeline of
// the days with messages, by month; forget a message or a conversation.
//   #/archive?q=…            search
//   #/archive/c/{id}?m={mid}  a conversation around a message
//   #/archive/day/{day}       the conversations of a day
import { api, enc } from '../api.js';
import { t, lang } from '../i18n.js';
import { h, load, empty, section, actionButton, dialog, field, highlighted, messageText, wallTime, toast } from '../ui.js';
import { messageBubble } from './today.js';

const PAGE = 60;

export async function render(main, ctx) {
  const [mode, arg] = ctx.parts;
  if (mode === 'c' && arg) return conversation(main, ctx, arg);
  if (mode === 'day' && arg) return day(main, arg);
  return searchPage(main, ctx);
}

async function searchPage(main, ctx) {
  const p = ctx.params;
  const query = h('input', { type: 'search', name: 'q', value: p.get('q') || '', required: true });
  const exact = h('input', { type: 'checkbox', name: 'exact', checked: p.get('exact') === '1' });
  const after = h('input', { type: 'date', name: 'after', value: p.get('after') || '' });
  const before = h('input', { type: 'date', name: 'before', value: p.get('before') || '' });
  const conv = h('select', { name: 'conversation' }, h('option', { value: '' }, t('archive.all_conversations')));
  const results = h('div', { 'aria-live': 'polite' });
  const form = h('form', { class: 'card', role: 'search' },
    field(t('archive.query'), query),
    h('div', { class: 'form-grid cols' }, field(t('archive.after'), after), field(t('archive.before'), before)),
    field(t('archive.conversation'), conv),
    h('div', { class: 'actions' }, h('label', { class: 'inline' }, exact, t('archive.exact')),
      h('button', { type: 'submit', class: 'primary' }, t('archive.search'))));
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const q = new URLSearchParams({ q: query.value.trim() });
    if (exact.checked) q.set('exact', '1');
    if (after.value) q.set('after', after.value);
    if (before.value) q.set('before', before.value);
    if (conv.value) q.set('conversation', conv.value);
    location.hash = `#/archive?${q}`;
  });
  const timeline = h('div');
  main.replaceChildren(h('h1', {}, t('archive.title')), form, section(t('archive.results'), results),
    section(t('archive.timeline'), timeline));
  api('/v1/conversations?limit=500').then(({ conversations }) => {
    for (const c of conversations) conv.append(h('option', { value: c.id, selected: c.id === p.get('conversation') }, c.title || c.id));
  }, () => { /* the list is a convenience: search works without it */ });
  load(timeline, () => timelineMonths());
  if (!p.get('q')) {
    results.replaceChildren(empty(t('archive.type_to_search')));
    return;
  }
  await load(results, async () => {
    const body = { query: p.get('q'), limit: 30, exact: p.get('exact') === '1' };
    if (p.get('after')) body.after = p.get('after');
    if (p.get('before')) body.before = p.get('before');
    if (p.get('conversation')) body.conversation_id = p.get('conversation');
    const reply = await api('/v1/search', { body });
    const hits = reply.results.filter((r) => r.layer === 'archive');
    if (!hits.length) return empty(t('archive.no_results'));
    const words = p.get('exact') === '1' ? [p.get('q')] : p.get('q').split(/\s+/);
    return [h('p', { class: 'small muted' }, t('archive.n_results', { n: hits.length, ms: reply.took_ms.toFixed(1) })),
      ...hits.map((r) => h('article', { class: 'card hit' },
        h('p', { class: 'pre' }, highlighted(r.text, words)),
        h('div', { class: 'row spread' }, h('span', { class: 'meta' }, wallTime(r.created_at)),
          h('a', { class: 'button', href: `#/archive/c/${enc(r.conversation_id)}?m=${enc(r.message_ids[0])}&q=${enc(p.get('q'))}` }, t('archive.open')))))];
  });
}

async function timelineMonths() {
  const { days } = await api('/v1/timeline');
  if (!days.length) return empty(t('archive.no_days'));
  const max = Math.max(...days.map((d) => d.messages));
  const byMonth = new Map();
  for (const d of days) {
    const month = d.day.slice(0, 7);
    if (!byMonth.has(month)) byMonth.set(month, new Map());
    byMonth.get(month).set(d.day, d.messages);
  }
  const months = [...byMonth].reverse();
  const weekdays = t('archive.weekdays').split(',');
  return h('div', { class: 'months' }, months.map(([month, counts]) => {
    const [y, m] = month.split('-').map(Number);
    const first = new Date(Date.UTC(y, m - 1, 1)).getUTCDay();  // 0 = Sunday
    const length = new Date(Date.UTC(y, m, 0)).getUTCDate();
    const cells = [];
    for (let i = 0; i < (first + 6) % 7; i++) cells.push(h('span', {}));
    for (let d = 1; d <= length; d++) {
      const dayText = `${month}-${String(d).padStart(2, '0')}`;
      const n = counts.get(dayText);
      if (!n) { cells.push(h('span', { class: 'day' }, String(d))); continue; }
      const level = n >= max * 0.66 ? 3 : n >= max * 0.33 ? 2 : 1;
      cells.push(h('button', { type: 'button', class: `l${level}`, 'aria-label': t('archive.day_label', { day: dayText, n }),
        title: t('archive.day_label', { day: dayText, n }), onclick: () => { location.hash = `#/archive/day/${dayText}`; } }, String(d)));
    }
    const title = new Date(Date.UTC(y, m - 1, 1)).toLocaleDateString(lang() === 'zh' ? 'zh-CN' : 'en-US', { year: 'numeric', month: 'long', timeZone: 'UTC' });
    return h('div', { class: 'card month' }, h('h3', {}, title),
      h('div', { class: 'cal' }, weekdays.map((w) => h('span', { class: 'wd', 'aria-hidden': 'true' }, w)), cells));
  }));
}

async function day(main, dayText) {
  const list = h('div');
  main.replaceChildren(h('p', {}, h('a', { href: '#/archive' }, `← ${t('archive.title')}`)),
    h('h1', {}, t('archive.day_title', { day: dayText })), list);
  await load(list, async () => {
    const { conversations } = await api(`/v1/timeline/${enc(dayText)}`);
    if (!conversations.length) return empty(t('archive.no_messages_day'));
    return conversations.map((c) => h('article', { class: 'card' },
      h('h3', {}, h('a', { href: `#/archive/c/${enc(c.id)}?m=${enc(c.first_message_id)}` }, c.title || c.id)),
      h('div', { class: 'meta' }, h('span', {}, wallTime(c.first_at)), h('span', {}, t('today.n_messages', { n: c.messages })))));
  });
}

async function conversation(main, ctx, id) {
  const hitId = ctx.params.get('m');
  const words = (ctx.params.get('q') || '').split(/\s+/).filter(Boolean);
  const list = h('div', { class: 'messages' });
  const earlier = h('div');
  const later = h('div');
  const pinned = new Set();
  const forgetAll = ctx.can('memory:write') ? actionButton(t('archive.forget_conversation'), async () => {
    const ok = await dialog({ title: t('archive.forget_conversation'), danger: true, confirmLabel: t('archive.forget'),
      body: h('div', { class: 'warning' }, h('p', {}, t('archive.forget_conversation_warning', { id })), h('p', {}, t('archive.forget_cascade'))),
      onConfirm: () => api(`/v1/conversations/${enc(id)}`, { method: 'DELETE' }) });
    if (ok) { toast(t('archive.forgotten')); location.hash = '#/archive'; }
  }, { kind: 'danger' }) : null;
  main.replaceChildren(h('p', {}, h('a', { href: '#/archive' }, `← ${t('archive.title')}`)),
    h('div', { class: 'row spread' }, h('h1', {}, id), h('div', { class: 'actions' }, forgetAll)), earlier, list, later);
  const [page, precious] = await Promise.all([
    api(`/v1/conversations/${enc(id)}/messages?limit=${PAGE}${hitId ? `&around=${enc(hitId)}` : ''}`),
    api('/v1/precious')]);
  for (const p of precious.precious) if (p.conversation_id === id) for (const m of p.message_ids) pinned.add(`${id}\n${m}`);
  const bubble = (m) => withForget(messageBubble(m, ctx, pinned, { hit: m.id === hitId }), m, id, ctx, words);
  list.append(...page.messages.map(bubble));
  pager(earlier, page.prev_cursor, 'before', id, (ms) => list.prepend(...ms.map(bubble)));
  pager(later, page.next_cursor, 'cursor', id, (ms) => list.append(...ms.map(bubble)));
  if (!page.messages.length) list.append(empty(t('archive.empty_conversation')));
  // A search result names its window's first message: the hit is the first from there that
  // holds one of the words searched for.
  let hit = hitId && list.querySelector(`[data-message-id="${CSS.escape(hitId)}"]`);
  for (let el = hit; el && words.length; el = el.nextElementSibling) {
    if (!el.querySelector('mark')) continue;
    hit.classList.remove('hit');
    el.classList.add('hit');
    hit = el;
    break;
  }
  if (hit) {
    hit.setAttribute('tabindex', '-1');
    hit.scrollIntoView({ block: 'center' });
    hit.focus({ preventScroll: true });
  }
}

// A "load earlier/later" button that replaces itself with the next one.
function pager(slot, cursor, param, id, place) {
  slot.replaceChildren();
  if (!cursor) return;
  slot.append(h('div', { class: 'actions' }, actionButton(t(param === 'before' ? 'archive.earlier' : 'archive.later'), async () => {
    const page = await api(`/v1/conversations/${enc(id)}/messages?limit=${PAGE}&${param}=${enc(cursor)}`);
    place(page.messages);
    pager(slot, param === 'before' ? page.prev_cursor : page.next_cursor, param, id, place);
  })));
}

function withForget(bubble, m, cid, ctx, words) {
  if (words.length) {
    const body = bubble.querySelector('.body');
    body.replaceChildren(...highlighted(messageText(m.content), words));
  }
  if (!ctx.can('memory:write')) return bubble;
  const forget = actionButton('', async () => {
    const ok = await dialog({ title: t('archive.forget_message'), danger: true, confirmLabel: t('archive.forget'),
      body: h('div', { class: 'warning' }, h('p', {}, t('archive.forget_message_warning')), h('p', {}, t('archive.forget_cascade'))),
      onConfirm: () => api(`/v1/conversations/${enc(cid)}/messages/${enc(m.id)}`, { method: 'DELETE' }) });
    if (ok) { bubble.remove(); toast(t('archive.forgotten')); }
  }, { kind: 'icon quiet', title: t('archive.forget_message'), iconName: 'trash' });
  bubble.querySelector('.who').append(forget);
  return bubble;
}
