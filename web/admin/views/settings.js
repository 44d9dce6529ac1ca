// Settings: what the server runs with (secrets masked by the server), the
// embedder and index health with a reindex button, export download and
// import upload (GET /v1/settings, POST /v1/jobs/reindex/run, GET /v1/export,
// POST /v1/import; all admin), and who this key is.
import { api, enc } from '../api.js';
import { t } from '../i18n.js';
import { h, load, section, actionButton, field, number, toast, errorBox } from '../ui.js';

export async function render(main, ctx) {
  const whoBox = h('dl', { class: 'kv' },
    h('dt', {}, t('settings.key_id')), h('dd', { class: 'mono' }, ctx.who.key_id),
    h('dt', {}, t('settings.namespace')), h('dd', { class: 'mono' }, ctx.who.namespace),
    h('dt', {}, t('settings.scopes')), h('dd', {}, ctx.who.scopes.join(', ')));
  main.replaceChildren(h('h1', {}, t('nav.settings')), section(t('settings.this_key'), h('div', { class: 'card' }, whoBox)));
  if (!ctx.can('admin')) {
    main.append(h('p', { class: 'notice' }, t('common.needs_admin')));
    return;
  }
  const health = h('div');
  const config = h('div');
  main.append(section(t('settings.index'), health), section(t('settings.transfer'), transfer()), section(t('settings.config'), config));
  await load(health, async () => {
    const s = await api('/v1/settings');
    config.replaceChildren(configView(s.config));
    return healthView(s, health);
  });
}

function healthView(s, container) {
  const i = s.index;
  const ok = i.windows_without_vector === 0;
  return h('div', { class: 'card' },
    h('dl', { class: 'kv' },
      h('dt', {}, t('settings.version')), h('dd', { class: 'mono' }, s.version),
      h('dt', {}, t('settings.embedder')), h('dd', { class: 'mono' }, `${s.embedder.id} · ${s.embedder.dimension}d${s.embedder.remote ? ` · ${t('settings.remote')}` : ''}`),
      h('dt', {}, t('settings.windows')), h('dd', {}, number(i.windows)),
      h('dt', {}, t('settings.vectors')), h('dd', {}, number(i.vectors), ' ',
        h('span', { class: `badge ${ok ? 'ok' : 'bad'}` }, ok ? t('settings.all_embedded') : t('settings.missing', { n: i.windows_without_vector }))),
      h('dt', {}, t('settings.vector_search')), h('dd', {}, i.vector_search),
      h('dt', {}, t('settings.lexical')), h('dd', {}, number(i.lexical_documents)),
      h('dt', {}, t('settings.excerpts_indexed')), h('dd', {}, number(i.excerpts_indexed))),
    h('div', { class: 'actions' }, actionButton(t('settings.reindex'), async () => {
      const run = await api('/v1/jobs/reindex/run', { method: 'POST' });
      if (run.outcome === 'failed') throw new Error(run.error || t('outcome.failed'));
      toast(t('settings.reindexed', { n: run.items }));
      await load(container, async () => healthView(await api('/v1/settings'), container));
    }), h('p', { class: 'small muted' }, t('settings.reindex_hint'))));
}

function transfer() {
  const file = h('input', { type: 'file', name: 'file', accept: '.json,.jsonl,.txt,application/json' });
  const format = h('select', { name: 'format' }, ['auto', 'cilia', 'jsonl', 'chatgpt', 'claude', 'chatbox', 'sillytavern']
    .map((f) => h('option', { value: f }, t(`format.${f}`))));
  const result = h('div', { 'aria-live': 'polite' });
  const importButton = actionButton(t('settings.import'), async () => {
    result.replaceChildren();
    const chosen = file.files[0];
    if (!chosen) throw new Error(t('settings.choose_file'));
    const reply = await api(`/v1/import?format=${enc(format.value)}&name=${enc(chosen.name)}`, { body: chosen });
    const cost = reply.extraction;
    result.replaceChildren(h('p', { class: 'notice' }, t('settings.imported', reply)),
      ...(cost && cost.batches > 0
        ? [h('p', { class: 'small muted' }, t('settings.import_cost', { batches: cost.batches, tokens: cost.estimated_prompt_tokens }),
            ' ', t(cost.automatic ? 'settings.import_automatic' : 'settings.import_waits'))]
        : []));
  }, { kind: 'primary' });
  const exportButton = actionButton(t('settings.export'), async () => {
    const res = await api('/v1/export', { raw: true });
    const name = /filename="([^"]+)"/.exec(res.headers.get('Content-Disposition') || '')?.[1] || 'cilia-export.jsonl';
    const url = URL.createObjectURL(await res.blob());
    const a = h('a', { href: url, download: name });
    document.body.append(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 10_000);
    toast(t('settings.exported', { name }));
  });
  return h('div', { class: 'card' },
    h('h3', {}, t('settings.export')), h('p', { class: 'small muted' }, t('settings.export_hint')),
    h('div', { class: 'actions' }, exportButton),
    h('h3', {}, t('settings.import')), h('p', { class: 'small muted' }, t('settings.import_hint')),
    h('div', { class: 'form-grid cols' }, field(t('settings.file'), file), field(t('settings.format'), format)),
    h('div', { class: 'actions' }, importButton), result);
}

// The config as the server sent it: one collapsible block per section.
function configView(config) {
  const value = (v) => {
    if (v === null || v === undefined || v === '') return h('span', { class: 'muted' }, '—');
    if (Array.isArray(v)) return v.length ? v.map((x) => (typeof x === 'object' ? h('div', { class: 'card' }, kv(x)) : h('div', { class: 'mono' }, String(x)))) : h('span', { class: 'muted' }, '[]');
    if (typeof v === 'object') return Object.keys(v).length ? kv(v) : h('span', { class: 'muted' }, '{}');
    return h('span', { class: 'mono' }, String(v));
  };
  const kv = (obj) => h('dl', { class: 'kv' }, Object.entries(obj).flatMap(([k, v]) => [h('dt', {}, k), h('dd', {}, value(v))]));
  try {
    return h('div', {}, h('p', { class: 'small muted' }, config.file ? t('settings.config_file', { file: config.file }) : t('settings.no_config_file')),
      Object.entries(config).filter(([k]) => k !== 'file').map(([name, v]) =>
        h('details', { class: 'card' }, h('summary', {}, `[${name}]`), value(v))));
  } catch (error) {
    return errorBox(error);
  }
}
