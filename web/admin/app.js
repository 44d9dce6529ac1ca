// The admin page's shell: login, who the key is (GET /v1/whoami) and what it
// may do, the navigation (bottom tabs on a phone, a sidebar on a wide
// screen), the language and theme switches, and the hash router.
import { api, session, onUnauthenticated } from './api.js';
import { t, lang, setLang, initLang, onLangChange } from './i18n.js';
import { h, icon, errorBox } from './ui.js';
import * as today from './views/today.js';
import * as review from './views/review.js';
import * as memories from './views/memories.js';
import * as archive from './views/archive.js';
import * as curated from './views/curated.js';
import * as usage from './views/usage.js';
import * as settings from './views/settings.js';

// The views in navigation order; `phone`: among the bottom tabs (the rest sit under "More").
const VIEWS = [
  { id: 'today', view: today, phone: true },
  { id: 'review', view: review, phone: true },
  { id: 'memories', view: memories, phone: true },
  { id: 'archive', view: archive, phone: true },
  { id: 'curated', view: curated },
  { id: 'usage', view: usage },
  { id: 'settings', view: settings },
];

const root = document.getElementById('app');
let who = null;  // {key_id, namespace, scopes}

// What the key may do; admin implies every scope (as the server decides).
export function can(scope) {
  if (!who) return false;
  return who.scopes.includes(scope) || who.scopes.includes('admin');
}

// The owner's choice, else the system's (followed live while there is no choice).
const systemDark = matchMedia('(prefers-color-scheme: dark)');
function applyTheme() {
  document.documentElement.dataset.theme = localStorage.getItem('cilia.theme') || (systemDark.matches ? 'dark' : 'light');
}

function toggleTheme() {
  localStorage.setItem('cilia.theme', document.documentElement.dataset.theme === 'dark' ? 'light' : 'dark');
  applyTheme();
}

function renderLogin(error) {
  const input = h('input', { id: 'login-key', type: 'password', name: 'key', autocomplete: 'off', required: true,
    spellcheck: 'false', 'aria-describedby': 'login-hint' });
  const slot = h('div', {}, error ? errorBox(error) : null);
  const submit = h('button', { type: 'submit', class: 'primary' }, t('login.submit'));
  const form = h('form', { class: 'card stack', 'aria-labelledby': 'login-title' },
    h('h1', { id: 'login-title' }, t('login.title')),
    h('p', { class: 'muted', id: 'login-hint' }, t('login.hint')),
    h('label', { for: 'login-key' }, t('login.key')), input, slot,
    h('div', { class: 'actions' }, submit, languageButton()));
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    submit.disabled = true;
    slot.replaceChildren();
    try {
      who = await api('/v1/whoami', { key: input.value.trim() });
      session.set(input.value.trim());
      renderShell();
    } catch (e) {
      slot.replaceChildren(errorBox(e));
    } finally {
      submit.disabled = false;
    }
  });
  root.replaceChildren(h('main', { class: 'login' }, form));
  input.focus();
}

function languageButton() {
  const other = lang() === 'zh' ? 'en' : 'zh';
  return h('button', { type: 'button', class: 'quiet', lang: other, onclick: () => setLang(other),
    'aria-label': t('shell.language_to', { name: t(`lang.${other}`) }) }, icon('globe'), h('span', {}, t(`lang.${other}`)));
}

function currentRoute() {
  const [path, query = ''] = location.hash.replace(/^#\/?/, '').split('?');
  const parts = path.split('/').filter(Boolean).map(decodeURIComponent);
  return { id: parts[0] || 'today', parts: parts.slice(1), params: new URLSearchParams(query) };
}

function navItem(id, { phone, more = false }) {
  const cls = more ? 'narrow-only' : phone ? '' : 'wide-only';
  return h('li', { class: cls },
    h('a', { href: `#/${id}`, 'data-view': id }, icon(more ? 'more' : id), h('span', {}, t(`nav.${id}`))));
}

function renderShell() {
  const nav = h('nav', { class: 'nav', 'aria-label': t('shell.nav') },
    h('ul', {}, VIEWS.map((v) => navItem(v.id, v)), navItem('more', { more: true })));
  const main = h('main', { class: 'main', id: 'main', tabindex: '-1' });
  const topbar = h('header', { class: 'topbar' },
    h('a', { class: 'sr-only', href: '#main', onclick: (e) => { e.preventDefault(); main.focus(); } }, t('shell.skip')),
    h('div', { class: 'brand' }, h('img', { src: '/admin/icon.svg', alt: '' }), h('span', {}, 'cilia'),
      h('span', { class: 'ns' }, who.namespace, h('span', { class: 'scopes' }, ` · ${who.scopes.join(', ')}`))),
    languageButton(),
    h('button', { type: 'button', class: 'icon quiet', onclick: toggleTheme, 'aria-label': t('shell.theme'), title: t('shell.theme') }, icon('moon')),
    h('button', { type: 'button', class: 'icon quiet', 'aria-label': t('shell.logout'), title: t('shell.logout'),
      onclick: () => { session.clear(); who = null; location.hash = ''; renderLogin(); } }, icon('logout')));
  root.replaceChildren(topbar, nav, main);
  route();
}

let rendering = 0;
async function route() {
  const main = document.getElementById('main');
  if (!main) return;
  const { id, parts, params } = currentRoute();
  for (const a of document.querySelectorAll('.nav a')) {
    if (a.dataset.view === id) a.setAttribute('aria-current', 'page');
    else a.removeAttribute('aria-current');
  }
  const entry = VIEWS.find((v) => v.id === id);
  const token = ++rendering;
  if (id === 'more') {
    document.title = `${t('nav.more')} · cilia`;
    main.replaceChildren(h('h1', {}, t('nav.more')), h('ul', { class: 'stack' },
      VIEWS.filter((v) => !v.phone).map((v) => h('li', {}, h('a', { class: 'button', href: `#/${v.id}` }, icon(v.id), t(`nav.${v.id}`))))));
    return;
  }
  if (!entry) {
    main.replaceChildren(errorBox(new Error(t('shell.no_view', { id }))));
    return;
  }
  document.title = `${t(`nav.${id}`)} · cilia`;
  const ctx = { can, who, parts, params, isCurrent: () => token === rendering };
  try {
    await entry.view.render(main, ctx);
  } catch (error) {
    if (token === rendering) main.replaceChildren(errorBox(error));
  }
  if (token === rendering && !params.has('m')) main.focus({ preventScroll: true });
}

async function start() {
  initLang();
  applyTheme();
  systemDark.addEventListener('change', applyTheme);
  onLangChange(() => (who ? renderShell() : renderLogin()));
  onUnauthenticated((error) => {
    session.clear();
    who = null;
    renderLogin(error);
  });
  window.addEventListener('hashchange', route);
  if (!session.key) return renderLogin();
  try {
    who = await api('/v1/whoami');
    renderShell();
  } catch (error) {
    if (error.status !== 401) renderLogin(error);
  }
}

start();
