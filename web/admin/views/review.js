// Review: the candidates queue. Each candidate shows its quote highlighted in
// its source message; approve, edit then approve, discard, or merge into /
// supersede an existing memory picked by a search. Desktop shortcuts:
// j/k move, a approve, e edit, d discard, m merge, s supersede.
import { api, enc } from '../api.js';
import { t } from '../i18n.js';
import { h, load, empty, actionButton, dialog, field, select, highlighted, messageText, wallTime, toast, errorBox } from '../ui.js';
import { TYPES, pickMemory } from './memories.js';

let keyHandler = null;

export async function render(main, ctx) {
  const list = h('div', { class: 'stack' });
  const help = h('p', { class: 'small muted kbd-hint' }, t('review.shortcuts'));
  main.replaceChildren(h('h1', {}, t('review.title')), ctx.can('memory:write') ? help : null, list);
  await load(list, () => queue(ctx, list));
  if (keyHandler) document.removeEventListener('keydown', keyHandler);
  keyHandler = (event) => shortcut(event, list, ctx);
  if (ctx.can('memory:write')) document.addEventListener('keydown', keyHandler);
}

async function queue(ctx, list) {
  const { candidates } = await api('/v1/candidates?status=pending&limit=100');
  if (!candidates.length) return empty(t('review.empty'));
  return candidates.map((c, i) => candidateCard(c, ctx, list, i === 0));
}

function candidateCard(c, ctx, list, first) {
  const source = h('div', {}, h('p', { class: 'loading' }, t('common.loading')));
  const done = async (message) => {
    toast(message);
    const next = card.nextElementSibling || card.previousElementSibling;
    card.remove();
    if (!list.querySelector('.card')) list.replaceChildren(empty(t('review.empty')));
    else if (next) select_(next);
  };
  const actions = ctx.can('memory:write') ? h('div', { class: 'actions' },
    actionButton(t('review.approve'), async () => {
      await api(`/v1/candidates/${enc(c.id)}/approve`, { method: 'POST' });
      await done(t('review.approved'));
    }, { kind: 'primary', keys: 'a' }),
    actionButton(t('review.edit'), async () => {
      if (await editThenApprove(c)) await done(t('review.approved'));
    }, { keys: 'e' }),
    actionButton(t('review.merge'), async () => {
      if (await intoExisting(c, 'merge')) await done(t('review.merged'));
    }, { keys: 'm' }),
    actionButton(t('review.supersede'), async () => {
      if (await intoExisting(c, 'supersede')) await done(t('review.superseded'));
    }, { keys: 's' }),
    actionButton(t('review.discard'), async () => {
      await api(`/v1/candidates/${enc(c.id)}/discard`, { method: 'POST' });
      await done(t('review.discarded'));
    }, { kind: 'danger', keys: 'd' })) : null;
  const card = h('article', { class: 'card candidate', tabindex: '0', 'data-id': c.id, 'aria-label': c.content },
    h('div', { class: 'row spread' },
      h('span', { class: 'badge' }, t(`type.${c.type}`)),
      h('span', { class: 'meta' }, h('span', {}, t('review.confidence', { n: Math.round(c.confidence * 100) })),
        c.fact_key ? h('span', { class: 'mono' }, c.fact_key) : null, h('span', {}, c.date))),
    h('p', {}, h('strong', {}, c.content)),
    c.reason ? h('p', { class: 'small muted' }, t('review.reason', { reason: c.reason })) : null,
    c.target_id ? h('p', { class: 'small' }, t('review.target', { id: c.target_id })) : null,
    source, actions);
  card.addEventListener('focus', () => select_(card));
  if (first) card.classList.add('selected');
  quoteInSource(c).then((node) => source.replaceChildren(node), (e) => source.replaceChildren(errorBox(e)));
  return card;
}

// The source message with the quote marked in it.
async function quoteInSource(c) {
  const id = c.message_ids[0];
  if (!id) return h('blockquote', {}, c.quote);
  const page = await api(`/v1/conversations/${enc(c.conversation_id)}/messages?around=${enc(id)}&limit=1`);
  const m = page.messages[0];
  if (!m) return h('blockquote', {}, c.quote);
  return h('figure', { class: 'source' },
    h('blockquote', {}, highlighted(messageText(m.content), c.quote)),
    h('figcaption', { class: 'meta' }, h('span', {}, m.name || t(`role.${m.role}`)), h('span', {}, wallTime(m.created_at)),
      h('a', { href: `#/archive/c/${enc(c.conversation_id)}?m=${enc(id)}` }, t('review.open_source'))));
}

function editThenApprove(c) {
  const content = h('textarea', { name: 'content', required: true }, c.content);
  const type = select('type', TYPES.map((x) => [x, t(`type.${x}`)]), c.type);
  const factKey = h('input', { name: 'fact_key', value: c.fact_key || '' });
  return dialog({
    title: t('review.edit_title'),
    body: [field(t('field.content'), content), h('div', { class: 'form-grid cols' },
      field(t('field.type'), type), field(t('field.fact_key'), factKey, t('field.fact_key_hint')))],
    confirmLabel: t('review.approve'),
    onConfirm: async () => {
      // Approve, then correct the memory it became: the history keeps both steps.
      const approved = await api(`/v1/candidates/${enc(c.id)}/approve`, { method: 'POST' });
      const patch = {};
      if (content.value.trim() !== c.content) patch.content = content.value.trim();
      if (type.value !== c.type) patch.type = type.value;
      if ((factKey.value.trim() || null) !== (c.fact_key || null)) patch.fact_key = factKey.value.trim() || null;
      if (Object.keys(patch).length) await api(`/v1/memories/${enc(approved.memory.id)}`, { method: 'PATCH', body: patch });
      return true;
    },
  });
}

async function intoExisting(c, how) {
  const target = await pickMemory(t(how === 'merge' ? 'review.merge_title' : 'review.supersede_title'));
  if (!target) return false;
  await api(`/v1/candidates/${enc(c.id)}/${how}`, { body: { target_id: target } });
  return true;
}

function select_(card) {
  for (const other of card.parentElement.querySelectorAll('.card.selected')) other.classList.remove('selected');
  card.classList.add('selected');
}

function shortcut(event, list, ctx) {
  if (!list.isConnected || !ctx.can('memory:write')) return;
  if (event.ctrlKey || event.metaKey || event.altKey) return;
  if (event.target.closest('input, textarea, select, dialog')) return;
  const cards = [...list.querySelectorAll('.card')];
  if (!cards.length) return;
  const current = list.querySelector('.card.selected') || cards[0];
  const index = cards.indexOf(current);
  const move = (to) => { const card = cards[Math.max(0, Math.min(cards.length - 1, to))]; select_(card); card.focus(); };
  const press = (keys) => current.querySelector(`button[aria-keyshortcuts="${keys}"]`)?.click();
  switch (event.key) {
    case 'j': move(index + 1); break;
    case 'k': move(index - 1); break;
    case 'a': case 'e': case 'd': case 'm': case 's': press(event.key); break;
    default: return;
  }
  event.preventDefault();
}
