// Profile, glossary and precious: the editors of what the owner keeps by hand.
//   #/curated/profile[/{name}]   documents, with the versions of each
//   #/curated/glossary           terms, aliases, definitions
//   #/curated/precious           the pinned verbatim passages (append-only)
import { api, enc } from '../api.js';
import { t } from '../i18n.js';
import { h, load, empty, actionButton, dialog, field, wallTime, toast } from '../ui.js';

const TABS = ['profile', 'glossary', 'precious'];

export async function render(main, ctx) {
  const tab = TABS.includes(ctx.parts[0]) ? ctx.parts[0] : 'profile';
  const body = h('div');
  const tabs = h('div', { class: 'tabs', role: 'tablist', 'aria-label': t('nav.curated') },
    TABS.map((id) => h('button', { type: 'button', role: 'tab', id: `tab-${id}`, 'aria-selected': String(id === tab),
      'aria-controls': 'curated-panel', onclick: () => { location.hash = `#/curated/${id}`; } }, t(`curated.${id}`))));
  main.replaceChildren(h('h1', {}, t('nav.curated')), tabs,
    h('div', { id: 'curated-panel', role: 'tabpanel', 'aria-labelledby': `tab-${tab}` }, body));
  if (tab === 'profile') await profile(body, ctx);
  else if (tab === 'glossary') await glossary(body, ctx);
  else await precious(body);
}

async function profile(container, ctx) {
  const { documents } = await api('/v1/profile');
  const name = ctx.parts[1] || documents[0]?.name || '';
  const editor = h('div');
  const list = h('nav', { class: 'row section', 'aria-label': t('curated.documents') },
    documents.map((d) => h('a', { class: 'button', href: `#/curated/profile/${enc(d.name)}`, 'aria-current': d.name === name ? 'page' : null }, d.name)),
    ctx.can('memory:write') ? actionButton(t('curated.new_document'), () => newDocument()) : null);
  container.replaceChildren(list, editor);
  if (!documents.length) return editor.replaceChildren(empty(t('curated.no_documents')));
  const doc = documents.find((d) => d.name === name);
  if (!doc) return editor.replaceChildren(empty(t('curated.no_such_document', { name })));
  const text = h('textarea', { class: 'tall', name: 'content', readonly: !ctx.can('memory:write') }, doc.content);
  const versions = h('div');
  editor.replaceChildren(h('div', { class: 'card' },
    field(t('curated.document', { name: doc.name }), text, t('curated.updated', { at: wallTime(doc.updated_at) })),
    ctx.can('memory:write') ? h('div', { class: 'actions' },
      actionButton(t('common.save'), async () => {
        await api(`/v1/profile/${enc(doc.name)}`, { method: 'PUT', body: { content: text.value } });
        toast(t('common.saved'));
        await load(versions, () => versionList(doc.name, text, ctx));
      }, { kind: 'primary' }),
      actionButton(t('curated.delete_document'), async () => {
        const ok = await dialog({ title: t('curated.delete_document'), danger: true, confirmLabel: t('curated.delete'),
          body: h('p', {}, t('curated.delete_document_warning', { name: doc.name })),
          onConfirm: () => api(`/v1/profile/${enc(doc.name)}`, { method: 'DELETE' }) });
        if (ok) location.hash = '#/curated/profile';
      }, { kind: 'danger' })) : null),
  h('h2', {}, t('curated.versions')), versions);
  await load(versions, () => versionList(doc.name, text, ctx));
}

async function versionList(name, text, ctx) {
  const { versions } = await api(`/v1/profile/${enc(name)}/versions`);
  if (!versions.length) return empty(t('curated.no_versions'));
  return versions.map((v) => h('details', { class: 'card' },
    h('summary', {}, t('curated.version_of', { at: wallTime(v.updated_at) })),
    h('pre', { class: 'pre small' }, v.content),
    ctx.can('memory:write') ? h('div', { class: 'actions' }, actionButton(t('curated.restore'), () => {
      text.value = v.content;
      text.focus();
      toast(t('curated.restored'));
    })) : null));
}

function newDocument() {
  const name = h('input', { name: 'name', required: true, pattern: '[a-z0-9][a-z0-9_\\-]{0,63}' });
  return dialog({
    title: t('curated.new_document'),
    body: field(t('curated.name'), name, t('curated.name_hint')),
    confirmLabel: t('common.create'),
    onConfirm: async () => {
      await api(`/v1/profile/${enc(name.value.trim())}`, { method: 'PUT', body: { content: '' } });
      location.hash = `#/curated/profile/${enc(name.value.trim())}`;
      return true;
    },
  });
}

async function glossary(container, ctx) {
  const list = h('div');
  const refresh = () => load(list, async () => {
    const { terms } = await api('/v1/glossary');
    if (!terms.length) return empty(t('curated.no_terms'));
    return terms.map((g) => h('article', { class: 'card' },
      h('div', { class: 'row spread' }, h('h3', {}, g.term),
        g.aliases.length ? h('span', { class: 'meta' }, t('curated.aliases_list', { list: g.aliases.join(', ') })) : null),
      h('p', { class: 'pre' }, g.definition),
      ctx.can('memory:write') ? h('div', { class: 'actions' },
        actionButton(t('common.edit'), async () => { if (await editTerm(g)) refresh(); }),
        actionButton(t('curated.delete'), async () => {
          const ok = await dialog({ title: t('curated.delete_term', { term: g.term }), danger: true, confirmLabel: t('curated.delete'),
            body: h('p', {}, t('curated.delete_term_warning')),
            onConfirm: () => api(`/v1/glossary/${enc(g.term)}`, { method: 'DELETE' }) });
          if (ok) refresh();
        }, { kind: 'danger' })) : null));
  });
  container.replaceChildren(
    ctx.can('memory:write') ? h('div', { class: 'actions section' }, actionButton(t('curated.new_term'), async () => { if (await editTerm(null)) refresh(); }, { kind: 'primary' })) : null,
    list);
  await refresh();
}

function editTerm(g) {
  const term = h('input', { name: 'term', required: true, maxlength: '100', value: g?.term || '', readonly: !!g });
  const aliases = h('input', { name: 'aliases', value: g ? g.aliases.join(', ') : '' });
  const definition = h('textarea', { name: 'definition', required: true, maxlength: '2000' }, g?.definition || '');
  return dialog({
    title: g ? g.term : t('curated.new_term'),
    body: [field(t('curated.term'), term), field(t('curated.aliases'), aliases, t('curated.aliases_hint')),
      field(t('curated.definition'), definition)],
    confirmLabel: t('common.save'),
    onConfirm: async () => {
      const list = aliases.value.split(/[,，、]/).map((a) => a.trim()).filter(Boolean);
      await api(`/v1/glossary/${enc(term.value.trim())}`, { method: 'PUT', body: { definition: definition.value, aliases: list } });
      toast(t('common.saved'));
      return true;
    },
  });
}

async function precious(container) {
  await load(container, async () => {
    const { precious: passages } = await api('/v1/precious');
    if (!passages.length) return empty(t('curated.no_precious'));
    return [h('p', { class: 'small muted' }, t('curated.precious_hint')),
      ...[...passages].reverse().map((p) => h('article', { class: 'card' },
        h('blockquote', {}, p.content),
        h('div', { class: 'meta' }, h('span', { class: 'mono' }, p.id), h('span', {}, wallTime(p.created_at)),
          h('span', {}, t(`author.${p.author}`)),
          p.message_ids[0] ? h('a', { href: `#/archive/c/${enc(p.conversation_id)}?m=${enc(p.message_ids[0])}` }, t('memories.source')) : null)))];
  });
}
