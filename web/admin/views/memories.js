// Memories: the L1 excerpts by status and type, with a search; each with its
// quote, its source one tap away and its history; edit, pin, supersede,
// revive, archive, forget.
import { api, enc } from '../api.js';
import { t } from '../i18n.js';
import { h, load, empty, actionButton, dialog, field, select, highlighted, wallTime, toast, errorBox } from '../ui.js';

export const TYPES = ['fact', 'preference', 'event', 'plan', 'relationship', 'rule', 'project', 'other'];
const STATUSES = ['active', 'superseded', 'archived', 'all'];

export async function render(main, ctx) {
  const status = select('status', STATUSES.map((s) => [s, t(`status.${s}`)]), ctx.params.get('status') || 'active');
  const type = select('type', [['', t('memories.all_types')], ...TYPES.map((x) => [x, t(`type.${x}`)])], ctx.params.get('type') || '');
  const words = h('input', { type: 'search', name: 'q', value: ctx.params.get('q') || '', placeholder: t('memories.search_hint') });
  const list = h('div', { class: 'stack' });
  let memories = [];
  const show = () => {
    const q = words.value.trim().toLowerCase();
    const shown = memories.filter((m) => (!type.value || m.type === type.value) &&
      (!q || [m.content, m.quote, m.fact_key || ''].some((s) => s.toLowerCase().includes(q))));
    list.replaceChildren(...(shown.length ? shown.map((m) => memoryCard(m, ctx, refresh)) : [empty(t('memories.none'))]));
  };
  const refresh = () => load(list, async () => {
    memories = await allMemories(status.value);
    show();
    return [...list.childNodes];
  });
  status.addEventListener('change', refresh);
  type.addEventListener('change', show);
  words.addEventListener('input', show);
  const create = ctx.can('memory:write') ? actionButton(t('memories.new'), async () => {
    if (await editMemory(null)) refresh();
  }, { kind: 'primary' }) : null;
  main.replaceChildren(
    h('div', { class: 'row spread' }, h('h1', {}, t('memories.title')), create),
    h('div', { class: 'form-grid cols section' },
      field(t('memories.status'), status), field(t('field.type'), type), field(t('memories.search'), words)),
    list);
  await refresh();
}

// Every memory of a status (pages of 1000).
export async function allMemories(status) {
  const out = [];
  let cursor = '';
  do {
    const page = await api(`/v1/memories?status=${status}&limit=1000${cursor ? `&cursor=${enc(cursor)}` : ''}`);
    out.push(...page.memories);
    cursor = page.next_cursor;
  } while (cursor && out.length < 10000);
  return out;
}

export function memoryCard(m, ctx, refresh) {
  const history = h('div');
  const write = ctx.can('memory:write');
  const act = (label, path, message, opts) => actionButton(label, async () => {
    await api(`/v1/memories/${enc(m.id)}/${path}`, { method: 'POST' });
    toast(message);
    refresh();
  }, opts);
  const actions = write ? h('div', { class: 'actions' },
    actionButton(t('memories.edit'), async () => { if (await editMemory(m)) refresh(); }),
    m.pinned ? act(t('memories.unpin'), 'unpin', t('memories.unpinned')) : act(t('memories.pin'), 'pin', t('memories.pinned_done')),
    m.status === 'active'
      ? actionButton(t('memories.supersede'), async () => { if (await supersede(m)) refresh(); })
      : act(t('memories.revive'), 'revive', t('memories.revived')),
    m.status === 'active' ? act(t('memories.archive'), 'archive', t('memories.archived')) : null,
    actionButton(t('memories.forget'), async () => {
      const ok = await dialog({ title: t('memories.forget_title'), danger: true, confirmLabel: t('memories.forget'),
        body: h('p', { class: 'warning' }, t('memories.forget_warning')),
        onConfirm: () => api(`/v1/memories/${enc(m.id)}`, { method: 'DELETE' }) });
      if (ok) { toast(t('memories.forgotten')); refresh(); }
    }, { kind: 'danger' })) : null;
  return h('article', { class: 'card memory', 'data-id': m.id },
    h('div', { class: 'row spread' },
      h('div', { class: 'row' }, h('span', { class: 'badge' }, t(`type.${m.type}`)),
        m.status !== 'active' ? h('span', { class: 'badge' }, t(`status.${m.status}`)) : null,
        m.pinned ? h('span', { class: 'badge ok' }, t('memories.pinned')) : null),
      h('span', { class: 'meta' }, h('span', { class: 'mono' }, m.id), m.fact_key ? h('span', { class: 'mono' }, m.fact_key) : null,
        h('span', {}, t('review.confidence', { n: Math.round(m.confidence * 100) })))),
    h('p', { class: 'content' }, m.content),
    h('blockquote', {}, m.quote),
    h('div', { class: 'meta' },
      m.said_at ? h('span', {}, t('memories.said_at', { at: wallTime(m.said_at) })) : null,
      m.message_ids[0] ? h('a', { href: `#/archive/c/${enc(m.conversation_id)}?m=${enc(m.message_ids[0])}` }, t('memories.source')) : null,
      m.superseded_by ? h('span', {}, t('memories.superseded_by', { id: m.superseded_by })) : null,
      h('span', {}, t(`author.${m.author}`)),
      h('button', { type: 'button', class: 'quiet small', 'aria-expanded': 'false', onclick: (e) => toggleHistory(e.currentTarget, m, history) }, t('memories.history'))),
    history, actions);
}

async function toggleHistory(button, m, container) {
  const open = button.getAttribute('aria-expanded') === 'true';
  button.setAttribute('aria-expanded', String(!open));
  if (open) return container.replaceChildren();
  await load(container, async () => {
    const { history } = await api(`/v1/memories/${enc(m.id)}/history`);
    return h('ol', { class: 'small' }, history.map((e) => h('li', {},
      `${wallTime(e.at)} · ${t(`author.${e.who}`)} · ${e.action}`,
      e.new ? h('div', { class: 'mono muted' }, JSON.stringify(e.new)) : null)));
  });
}

// The editor of a memory (null: a new one in the owner's words).
export function editMemory(m) {
  const content = h('textarea', { name: 'content', required: true }, m ? m.content : '');
  const type = select('type', TYPES.map((x) => [x, t(`type.${x}`)]), m ? m.type : 'fact');
  const factKey = h('input', { name: 'fact_key', value: m?.fact_key || '' });
  const importance = h('input', { type: 'number', name: 'importance', min: '0', max: '1', step: '0.05', value: String(m?.importance ?? 0.5) });
  const confidence = h('input', { type: 'number', name: 'confidence', min: '0', max: '1', step: '0.05', value: String(m?.confidence ?? 1) });
  return dialog({
    title: m ? t('memories.edit_title', { id: m.id }) : t('memories.new'),
    body: [field(t('field.content'), content), h('div', { class: 'form-grid cols' },
      field(t('field.type'), type), field(t('field.fact_key'), factKey, t('field.fact_key_hint')),
      field(t('field.importance'), importance), field(t('field.confidence'), confidence))],
    confirmLabel: t('common.save'),
    onConfirm: async () => {
      const body = { content: content.value.trim(), type: type.value, fact_key: factKey.value.trim() || null,
        importance: Number(importance.value), confidence: Number(confidence.value) };
      if (m) await api(`/v1/memories/${enc(m.id)}`, { method: 'PATCH', body });
      else await api('/v1/memories', { body });
      toast(t('common.saved'));
      return true;
    },
  });
}

async function supersede(m) {
  const by = await pickMemory(t('memories.supersede_title', { id: m.id }), m.id);
  if (!by) return false;
  await api(`/v1/memories/${enc(m.id)}/supersede`, { body: { by } });
  toast(t('memories.superseded'));
  return true;
}

// A dialog to pick an active memory by searching its words; resolves with its id.
export function pickMemory(title, exclude) {
  const words = h('input', { type: 'search', name: 'q', placeholder: t('memories.search_hint') });
  const results = h('div', { class: 'stack', role: 'radiogroup', 'aria-label': t('pick.results') });
  let all = null;
  const show = async () => {
    try {
      all ??= await allMemories('active');
    } catch (error) {
      results.replaceChildren(errorBox(error));
      return;
    }
    const q = words.value.trim().toLowerCase();
    const terms = q.split(/\s+/).filter(Boolean);
    const hits = all.filter((x) => x.id !== exclude && terms.every((w) => `${x.content} ${x.fact_key || ''} ${x.quote}`.toLowerCase().includes(w)));
    results.replaceChildren(...(hits.length ? hits.slice(0, 30).map((x) => h('label', { class: 'inline card' },
      h('input', { type: 'radio', name: 'target', value: x.id, required: true }),
      h('span', {}, h('span', { class: 'mono small' }, `${x.id} `), highlighted(x.content, terms)))) : [empty(t('pick.none'))]));
  };
  words.addEventListener('input', show);
  show();
  return dialog({
    title, body: [field(t('pick.search'), words), results], confirmLabel: t('pick.choose'),
    onConfirm: (form) => {
      const chosen = form.querySelector('input[name="target"]:checked');
      if (!chosen) throw new Error(t('pick.choose_one'));
      return chosen.value;
    },
  });
}
