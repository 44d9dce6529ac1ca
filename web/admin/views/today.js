// Today: counts, today's conversations and messages (a heart pins one as
// precious), yesterday's day log and the running digest, excerpts by type,
// the job runs (a failed one with its error and a retry), pending candidates.
import { api, enc } from '../api.js';
import { t } from '../i18n.js';
import { h, load, section, empty, actionButton, messageText, wallTime, number, toast } from '../ui.js';

const MAX_CONVERSATIONS = 8;
const MESSAGES_PER_CONVERSATION = 40;

export async function render(main, ctx) {
  const boot = await api('/v1/boot');
  const day = boot.day;
  const counts = h('div');
  const types = h('div');
  const todayBox = h('div');
  const logs = h('div');
  const jobs = h('div');
  main.replaceChildren(
    h('h1', {}, t('today.title', { day })),
    counts, section(t('today.messages'), todayBox), section(t('today.by_type'), types), logs,
    ctx.can('admin') ? section(t('today.jobs'), jobs) : null);
  counts.append(countsGrid(boot.counts));
  logs.append(section(t('today.yesterday'), dayLog(boot.yesterday)), section(t('today.digest'), digest(boot.digest)));
  load(types, () => typeCounts());
  load(todayBox, () => todaysMessages(day, ctx));
  if (ctx.can('admin')) load(jobs, () => jobRuns(ctx, jobs));
}

function countsGrid(c) {
  const stat = (n, label, href) => {
    const body = [h('span', { class: 'n' }, number(n)), h('span', { class: 'l' }, label)];
    return href ? h('a', { class: 'stat', href }, ...body) : h('div', { class: 'stat' }, ...body);
  };
  return h('div', { class: 'grid-stats section' },
    stat(c.candidates_pending, t('today.pending'), '#/review'),
    stat(c.conversations, t('today.conversations'), '#/archive'),
    stat(c.messages, t('today.messages_total')),
    stat(c.excerpts, t('today.excerpts'), '#/memories'),
    stat(c.precious, t('today.precious'), '#/curated/precious'),
    stat(c.glossary, t('today.glossary'), '#/curated/glossary'));
}

async function typeCounts() {
  const { memories } = await api('/v1/memories?status=active&limit=1000');
  if (!memories.length) return empty(t('today.no_excerpts'));
  const byType = new Map();
  for (const m of memories) byType.set(m.type, (byType.get(m.type) || 0) + 1);
  return h('div', { class: 'row' }, [...byType].sort((a, b) => b[1] - a[1]).map(([type, n]) =>
    h('a', { class: 'badge', href: `#/memories?type=${enc(type)}` }, `${t(`type.${type}`)} · ${n}`)));
}

// The conversations active today, each with today's messages.
async function todaysMessages(day, ctx) {
  const [{ conversations }, precious] = await Promise.all([
    api('/v1/conversations?limit=50'), api('/v1/precious')]);
  const pinned = new Set(precious.precious.flatMap((p) => p.message_ids.map((id) => `${p.conversation_id}\n${id}`)));
  const active = conversations.filter((c) => c.updated_at.slice(0, 10) === day).slice(0, MAX_CONVERSATIONS);
  if (!active.length) return empty(t('today.quiet'));
  const blocks = await Promise.all(active.map(async (c) => {
    const page = await api(`/v1/conversations/${enc(c.id)}/messages?before=end&limit=${MESSAGES_PER_CONVERSATION}`);
    const todays = page.messages.filter((m) => m.created_at.slice(0, 10) === day);
    return h('div', { class: 'card' },
      h('div', { class: 'row spread conv-head' },
        h('h3', {}, h('a', { href: `#/archive/c/${enc(c.id)}` }, c.title || c.id)),
        h('span', { class: 'meta' }, t('today.n_messages', { n: c.message_count }))),
      h('div', { class: 'messages' }, todays.map((m) => messageBubble(m, ctx, pinned))));
  }));
  return blocks;
}

export function messageBubble(m, ctx, pinned, { hit = false } = {}) {
  const text = messageText(m.content);
  const speaker = m.name || t(`role.${m.role}`);
  const key = `${m.conversation_id}\n${m.id}`;
  // A system prompt or a tool result is no one's words to keep as precious.
  const heart = ctx.can('memory:write') && m.role !== 'system' && m.role !== 'tool'
    ? actionButton('', async (button) => {
      if (pinned.has(key)) return;
      await api('/v1/precious', { body: { conversation_id: m.conversation_id, message_ids: [m.id] } });
      pinned.add(key);
      button.setAttribute('aria-pressed', 'true');
      button.title = t('today.pinned');
      button.setAttribute('aria-label', t('today.pinned'));
      toast(t('today.pinned'));
    }, { kind: 'icon quiet heart', iconName: 'heart', pressed: pinned.has(key),
      title: pinned.has(key) ? t('today.pinned') : t('today.pin') })
    : null;
  return h('article', { class: `msg ${m.role}${hit ? ' hit' : ''}`, id: `m-${m.id}`, 'data-message-id': m.id },
    h('div', { class: 'who' }, h('strong', {}, speaker), h('time', { datetime: m.created_at }, wallTime(m.created_at, false)),
      h('span', { class: 'sp' }), heart ? h('span', { class: 'actions-inline' }, heart) : null),
    h('div', { class: 'body', lang: 'und' }, text));
}

function dayLog(log) {
  if (!log) return empty(t('today.no_log'));
  return h('div', { class: 'card' },
    log.title ? h('h3', {}, log.title) : null,
    log.entries?.length
      ? h('ul', {}, log.entries.map((e) => h('li', {}, e.text)))
      : h('p', { class: 'pre' }, log.text),
    h('div', { class: 'meta' }, `${log.day} · ${t('today.n_messages', { n: log.messages })}`));
}

function digest(d) {
  if (!d) return empty(t('today.no_digest'));
  return h('div', { class: 'card' }, h('p', { class: 'pre' }, d.text),
    h('div', { class: 'meta' }, t('today.digest_through', { day: d.through_day })));
}

async function jobRuns(ctx, container) {
  const { runs, failed_items: failed } = await api('/v1/jobs?limit=12');
  if (!runs.length) return empty(t('today.no_jobs'));
  const rows = runs.map((run) => h('div', { class: 'card' },
    h('div', { class: 'row spread' },
      h('strong', {}, t(`job.${run.job}`)),
      h('span', { class: `badge ${run.outcome === 'failed' ? 'bad' : run.outcome === 'ok' ? 'ok' : ''}` }, t(`outcome.${run.outcome}`))),
    h('div', { class: 'meta' }, h('span', {}, wallTime(run.started_at)), h('span', {}, t(`started_by.${run.started_by}`)),
      h('span', {}, t('today.items', { n: run.items }))),
    run.error ? h('p', { class: 'error', role: 'note' }, run.error) : null,
    run.outcome === 'failed'
      ? h('div', { class: 'actions' }, actionButton(t('today.retry'), async () => {
        await api(`/v1/jobs/${enc(run.job)}/run`, { method: 'POST' });
        toast(t('today.retried'));
        await load(container, () => jobRuns(ctx, container));
      }))
      : null));
  const stuck = failed.length
    ? h('div', { class: 'warning' }, h('strong', {}, t('today.given_up')),
      h('ul', {}, failed.map((f) => h('li', {}, `${f.item}: ${f.error}`))))
    : null;
  return [stuck, ...rows];
}
