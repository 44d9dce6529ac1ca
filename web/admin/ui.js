// Small DOM helpers shared by the views: element building, icons, inline
// errors next to what failed, dialogs, highlighting, and formatting.
import { t, lang } from './i18n.js';

// h('button', {class: 'primary', onclick}, 'text', child…). Props starting
// with "on" are listeners; `text` sets textContent; others are attributes
// (true: present, false/null: absent).
export function h(tag, props = {}, ...children) {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(props || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith('on')) el.addEventListener(name.slice(2), value);
    else if (name === 'text') el.textContent = value;
    else if (name === 'value') el.value = value;
    else el.setAttribute(name, value === true ? '' : value);
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child instanceof Node ? child : String(child));
  }
}

const ICONS = {
  today: 'M12 3v2M12 19v2M4.2 4.2l1.4 1.4M18.4 18.4l1.4 1.4M3 12h2M19 12h2M4.2 19.8l1.4-1.4M18.4 5.6l1.4-1.4M12 8a4 4 0 1 0 0 8 4 4 0 0 0 0-8z',
  review: 'M9 11l3 3 8-8M20 12v7a2 2 0 0 1-2 2H6a2 2 0 0 1-2-2V5a2 2 0 0 1 2-2h9',
  memories: 'M12 2a7 7 0 0 0-4 12.7V17h8v-2.3A7 7 0 0 0 12 2zM9 21h6',
  archive: 'M3 4h18v4H3zM5 8v12h14V8M10 12h4',
  curated: 'M4 19.5A2.5 2.5 0 0 1 6.5 17H20V3H6.5A2.5 2.5 0 0 0 4 5.5v14zM20 17v4H6.5',
  usage: 'M4 20V10M10 20V4M16 20v-7M22 20H2',
  settings: 'M12 15a3 3 0 1 0 0-6 3 3 0 0 0 0 6zM19.4 15a1.7 1.7 0 0 0 .3 1.8l.1.1a2 2 0 1 1-2.8 2.8l-.1-.1a1.7 1.7 0 0 0-1.8-.3 1.7 1.7 0 0 0-1 1.5V21a2 2 0 1 1-4 0v-.1a1.7 1.7 0 0 0-1.1-1.5 1.7 1.7 0 0 0-1.8.3l-.1.1a2 2 0 1 1-2.8-2.8l.1-.1a1.7 1.7 0 0 0 .3-1.8 1.7 1.7 0 0 0-1.5-1H3a2 2 0 1 1 0-4h.1a1.7 1.7 0 0 0 1.5-1.1 1.7 1.7 0 0 0-.3-1.8l-.1-.1a2 2 0 1 1 2.8-2.8l.1.1a1.7 1.7 0 0 0 1.8.3H9a1.7 1.7 0 0 0 1-1.5V3a2 2 0 1 1 4 0v.1a1.7 1.7 0 0 0 1 1.5 1.7 1.7 0 0 0 1.8-.3l.1-.1a2 2 0 1 1 2.8 2.8l-.1.1a1.7 1.7 0 0 0-.3 1.8V9a1.7 1.7 0 0 0 1.5 1H21a2 2 0 1 1 0 4h-.1a1.7 1.7 0 0 0-1.5 1z',
  more: 'M5 12h.01M12 12h.01M19 12h.01',
  heart: 'M20.8 4.6a5.5 5.5 0 0 0-7.8 0L12 5.7l-1-1.1a5.5 5.5 0 0 0-7.8 7.8l1 1.1L12 21l7.8-7.5 1-1.1a5.5 5.5 0 0 0 0-7.8z',
  moon: 'M21 12.8A9 9 0 1 1 11.2 3a7 7 0 0 0 9.8 9.8z',
  globe: 'M12 2a10 10 0 1 0 0 20 10 10 0 0 0 0-20zM2 12h20M12 2a15 15 0 0 1 0 20M12 2a15 15 0 0 0 0 20',
  logout: 'M9 21H5a2 2 0 0 1-2-2V5a2 2 0 0 1 2-2h4M16 17l5-5-5-5M21 12H9',
  pin: 'M12 17v5M9 10.8V4h6v6.8l3 3.2H6z',
  trash: 'M3 6h18M8 6V4h8v2M19 6l-1 14H6L5 6M10 11v6M14 11v6',
};

export function icon(name) {
  const svg = document.createElementNS('http://www.w3.org/2000/svg', 'svg');
  svg.setAttribute('viewBox', '0 0 24 24');
  svg.setAttribute('aria-hidden', 'true');
  svg.setAttribute('fill', 'none');
  svg.setAttribute('stroke', 'currentColor');
  svg.setAttribute('stroke-width', '1.8');
  svg.setAttribute('stroke-linecap', 'round');
  svg.setAttribute('stroke-linejoin', 'round');
  const path = document.createElementNS('http://www.w3.org/2000/svg', 'path');
  path.setAttribute('d', ICONS[name] || '');
  svg.append(path);
  return svg;
}

// The error as an alert box: the server's words, and the HTTP status.
export function errorBox(error) {
  const status = error?.status ? ` (${error.status})` : '';
  return h('div', { class: 'error', role: 'alert' }, `${error?.message || String(error)}${status}`);
}

// Fills `container` from an async builder; shows a loading line first and
// the error in its place if the builder fails.
export async function load(container, build) {
  container.replaceChildren(h('p', { class: 'loading', role: 'status' }, t('common.loading')));
  try {
    const content = await build();
    container.replaceChildren(...[content].flat().filter(Boolean));
  } catch (error) {
    container.replaceChildren(errorBox(error));
  }
}

// A button whose action may fail: while it runs the button is disabled; an
// error appears right after it (inside its .actions row, where there is one).
export function actionButton(label, action, { kind = '', keys, title, iconName, pressed } = {}) {
  const button = h('button', {
    type: 'button', class: kind, title, 'aria-keyshortcuts': keys, 'aria-pressed': pressed === undefined ? null : String(pressed),
  });
  if (iconName) button.append(icon(iconName));
  if (label) button.append(h('span', {}, label));
  if (keys) button.append(h('kbd', { class: 'kbd-hint', 'aria-hidden': 'true' }, keys));
  if (!label && title) button.setAttribute('aria-label', title);
  button.addEventListener('click', async () => {
    const host = button.closest('.actions') || button.parentElement;
    host.querySelectorAll(':scope > .error').forEach((e) => e.remove());
    button.disabled = true;
    try {
      await action(button);
    } catch (error) {
      host.append(errorBox(error));
    } finally {
      button.disabled = false;
    }
  });
  return button;
}

const toastHost = () => document.querySelector('.toasts') || document.body.appendChild(h('div', { class: 'toasts', role: 'status', 'aria-live': 'polite' }));
export function toast(message) {
  const el = h('div', { class: 'toast' }, message);
  toastHost().append(el);
  setTimeout(() => el.remove(), 2600);
}

// A modal dialog. `body` is a node (or nodes); `onConfirm` may throw: its
// error shows inside the dialog, which stays open. Resolves with onConfirm's
// value, or null when cancelled.
export function dialog({ title, body, confirmLabel = t('common.ok'), danger = false, onConfirm = () => true }) {
  return new Promise((resolve) => {
    const errorSlot = h('div');
    const confirm = h('button', { type: 'submit', class: `primary${danger ? ' danger' : ''}` }, confirmLabel);
    const cancel = h('button', { type: 'button' }, t('common.cancel'));
    const form = h('form', { method: 'dialog' },
      h('h2', { id: 'dialog-title' }, title), body, errorSlot, h('div', { class: 'actions' }, confirm, cancel));
    const el = h('dialog', { 'aria-labelledby': 'dialog-title' }, form);
    let result = null;
    form.addEventListener('submit', async (event) => {
      event.preventDefault();
      errorSlot.replaceChildren();
      confirm.disabled = true;
      try {
        result = await onConfirm(form);
        el.close();
      } catch (error) {
        errorSlot.replaceChildren(errorBox(error));
      } finally {
        confirm.disabled = false;
      }
    });
    cancel.addEventListener('click', () => el.close());
    el.addEventListener('close', () => { el.remove(); resolve(result); });
    document.body.append(el);
    el.showModal();
    (el.querySelector('input, textarea, select') || confirm).focus();
  });
}

// A labelled field; `control` is an input/select/textarea element.
export function field(labelText, control, hint) {
  const id = control.id || `f-${Math.random().toString(36).slice(2, 9)}`;
  control.id = id;
  const hintEl = hint ? h('div', { class: 'small muted', id: `${id}-hint` }, hint) : null;
  if (hintEl) control.setAttribute('aria-describedby', hintEl.id);
  return h('div', {}, h('label', { for: id }, labelText), control, hintEl);
}

export function select(name, options, value) {
  return h('select', { name }, options.map(([v, label]) => h('option', { value: v, selected: v === value }, label)));
}

// `text` with every occurrence of `quote` (or each of `words`) marked.
export function highlighted(text, needles) {
  const list = [needles].flat().filter((n) => n && n.trim()).map((n) => n.trim());
  if (!list.length) return [text];
  const lower = text.toLowerCase();
  const spans = [];
  for (const needle of list) {
    const n = needle.toLowerCase();
    for (let i = lower.indexOf(n); i >= 0; i = lower.indexOf(n, i + n.length)) spans.push([i, i + n.length]);
  }
  spans.sort((a, b) => a[0] - b[0]);
  const out = [];
  let at = 0;
  for (const [start, end] of spans) {
    if (start < at) continue;
    if (start > at) out.push(text.slice(at, start));
    out.push(h('mark', {}, text.slice(start, end)));
    at = end;
  }
  out.push(text.slice(at));
  return out;
}

// A message's content (a string or a parts array) as text; what the
// gateway keeps besides words (docs/api.md "Part types") under a label.
export function messageText(content) {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.map(partText).join('\n');
}

function partText(part) {
  switch (part?.type) {
    case 'text': return part.text;
    case 'tool_call': return `[${t('part.tool_call')}: ${part.name}] ${part.arguments}`;
    case 'tool_result': {
      const label = part.is_error ? `${t('part.tool_result')} · ${t('part.error')}` : t('part.tool_result');
      return `[${label}] ${messageText(part.content)}`;
    }
    case 'system_prompt': return `[${t('part.system_prompt')}] ${part.text}`;
    default: return `[${t('common.image')}]`;
  }
}

// "2026-05-28T20:26:40+08:00" as the owner's wall time, without converting
// it to the browser's zone: the server speaks in the owner's zone.
export function wallTime(iso, withDate = true) {
  if (!iso) return '';
  const date = iso.slice(0, 10);
  const time = iso.slice(11, 16);
  return withDate ? `${date} ${time}` : time;
}

export function number(n, digits = 0) {
  if (n === null || n === undefined || Number.isNaN(n)) return '–';
  return Number(n).toLocaleString(lang() === 'zh' ? 'zh-CN' : 'en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
}

export function percent(ratio) {
  return ratio === null || ratio === undefined ? '–' : `${(ratio * 100).toFixed(1)}%`;
}

export function section(titleText, ...content) {
  return h('section', { class: 'section' }, h('h2', {}, titleText), ...content);
}

export function empty(text) { return h('p', { class: 'empty' }, text); }
