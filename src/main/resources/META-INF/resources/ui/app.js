// Readpast dashboard: plain JavaScript, no build step, no dependencies.
//
// Rules this file keeps:
// - The API key is kept in sessionStorage (this tab only) and sent as an Authorization
//   header. It is never put into a URL, a query string, the location hash or the page.
// - Everything the broker returns is user data (payloads, errors, names): it is rendered
//   with textContent and setAttribute only, never parsed as HTML markup.
// - Routes live in the location hash (#/queues, #/jobs?queue=a, #/jobs/42, #/dead,
//   #/schedules, #/batches, #/batches/7) and hold only filters and ids.
// - Nothing is asked of the broker that the key may not do (the roles come from GET /me), so
//   that a normal session logs no refused call in the browser console.
'use strict';

(() => {
  const KEY = 'readpast.apiKey';
  const LIVE = ['PENDING', 'WAITING', 'LEASED', 'PROCESSING'];
  const STATUSES = ['PENDING', 'LEASED', 'PROCESSING', 'SUCCEEDED', 'DEAD', 'CANCELLED'];
  // The API is served next to /ui/ (also behind a reverse proxy that adds a path prefix).
  const BASE = location.pathname.replace(/\/ui(\/.*)?$/, '');

  const state = {
    me: null,          // GET /me: {name, roles, queues, authEnabled}
    timer: null,       // the current view's refresh timer
    generation: 0,     // bumps on every route change, so late answers of an old view are dropped
    section: null,     // the current top-level section (queues, jobs, dead, schedules)
  };

  // ---- DOM helpers (text only, never HTML) ---------------------------------------------

  /** h('a', {href: '#/x', class: 'y'}, 'text', child...): strings become text nodes. */
  function h(tag, attrs, ...children) {
    const el = document.createElement(tag);
    setAttrs(el, attrs);
    append(el, children);
    return el;
  }

  const SVG_NS = 'http://www.w3.org/2000/svg';

  function s(tag, attrs, ...children) {
    const el = document.createElementNS(SVG_NS, tag);
    setAttrs(el, attrs);
    append(el, children);
    return el;
  }

  function setAttrs(el, attrs) {
    if (!attrs) {
      return;
    }
    for (const [name, value] of Object.entries(attrs)) {
      if (value === null || value === undefined || value === false) {
        continue;
      }
      if (name.startsWith('on') && typeof value === 'function') {
        el.addEventListener(name.slice(2), value);
      } else {
        el.setAttribute(name, value === true ? '' : String(value));
      }
    }
  }

  function append(el, children) {
    for (const c of children.flat()) {
      if (c === null || c === undefined || c === false) {
        continue;
      }
      el.appendChild(c instanceof Node ? c : document.createTextNode(String(c)));
    }
  }

  function clear(el) {
    while (el.firstChild) {
      el.removeChild(el.firstChild);
    }
  }

  const $ = (id) => document.getElementById(id);

  // ---- API ------------------------------------------------------------------------------

  class ApiError extends Error {
    constructor(status, problem) {
      super((problem && (problem.detail || problem.title)) || ('HTTP ' + status));
      this.status = status;
      this.problem = problem || {};
    }
  }

  /**
   * Calls the API. opts.key: a key to try instead of the stored one (login); opts.quiet: a
   * 401 does not end the session (login and start-up checks).
   */
  async function api(method, path, body, opts) {
    const o = opts || {};
    const headers = { Accept: 'application/json' };
    const k = o.key || sessionStorage.getItem(KEY);
    if (k) {
      headers.Authorization = 'Bearer ' + k;
    }
    if (body !== undefined) {
      headers['Content-Type'] = 'application/json';
    }
    let res;
    try {
      res = await fetch(BASE + path, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
        cache: 'no-store',
        credentials: 'omit',
        referrerPolicy: 'no-referrer',
      });
    } catch (e) {
      throw new ApiError(0, { title: 'Network error', detail: 'The broker did not answer.' });
    }
    const text = await res.text();
    let data = null;
    if (text) {
      try {
        data = JSON.parse(text);
      } catch (e) {
        data = { detail: text.slice(0, 300) };
      }
    }
    if (!res.ok) {
      const err = new ApiError(res.status, data);
      if (res.status === 401 && !o.quiet) {
        logout('Your key was not accepted any more (401). Log in again.');
      }
      throw err;
    }
    return data;
  }

  const q = (params) => {
    const p = new URLSearchParams();
    for (const [k, v] of Object.entries(params)) {
      if (v !== null && v !== undefined && v !== '') {
        p.set(k, v);
      }
    }
    const t = p.toString();
    return t ? '?' + t : '';
  };

  // ---- session ---------------------------------------------------------------------------

  function isAdmin() {
    return !!state.me && state.me.roles.includes('admin');
  }

  async function login(key) {
    const me = await api('GET', '/me', undefined, { key, quiet: true });
    sessionStorage.setItem(KEY, key);
    state.me = me;
  }

  function logout(message) {
    sessionStorage.removeItem(KEY);
    state.me = null;
    stopTimer();
    showLogin(message);
  }

  function showLogin(message) {
    $('top').hidden = true;
    clear($('main'));
    $('main').hidden = true;
    $('login').hidden = false;
    const err = $('login-error');
    err.hidden = !message;
    err.textContent = message || '';
    $('login-key').value = '';
    $('login-key').focus();
  }

  function showApp() {
    $('login').hidden = true;
    $('top').hidden = false;
    $('main').hidden = false;
    $('who-name').textContent = state.me.authEnabled ? (state.me.name || '') : 'authentication off';
    $('who-roles').textContent = state.me.roles.join(' + ')
        + (state.me.queues ? ' · ' + state.me.queues.join(', ') : '');
    $('logout').hidden = !state.me.authEnabled;
  }

  // ---- formatting ------------------------------------------------------------------------

  const pad = (n) => String(n).padStart(2, '0');

  function time(iso) {
    if (!iso) {
      return '—';
    }
    const d = new Date(iso);
    return d.getFullYear() + '-' + pad(d.getMonth() + 1) + '-' + pad(d.getDate()) + ' '
        + pad(d.getHours()) + ':' + pad(d.getMinutes()) + ':' + pad(d.getSeconds());
  }

  function ago(iso) {
    if (!iso) {
      return '';
    }
    const sec = Math.round((Date.now() - new Date(iso).getTime()) / 1000);
    const abs = Math.abs(sec);
    const text = abs < 60 ? abs + ' s' : abs < 3600 ? Math.round(abs / 60) + ' min'
        : abs < 86400 ? Math.round(abs / 3600) + ' h' : Math.round(abs / 86400) + ' d';
    return sec >= 0 ? text + ' ago' : 'in ' + text;
  }

  /** For tables: the time of day when it is today, else the date and minute; the full time in the tooltip. */
  function whenShort(iso) {
    if (!iso) {
      return '—';
    }
    const d = new Date(iso);
    const today = new Date().toDateString() === d.toDateString();
    const text = today ? pad(d.getHours()) + ':' + pad(d.getMinutes()) + ':' + pad(d.getSeconds())
        : time(iso).slice(0, 16);
    return h('span', { class: 'when', title: time(iso) + ' (' + iso + ')' }, text,
        h('span', { class: 'muted' }, ' · ' + ago(iso)));
  }

  function when(iso) {
    return iso ? h('span', { class: 'when', title: iso }, time(iso), h('span', { class: 'muted' }, ' · ' + ago(iso)))
        : '—';
  }

  function duration(seconds) {
    if (seconds === null || seconds === undefined) {
      return '—';
    }
    if (seconds < 1) {
      return '< 1 s';
    }
    if (seconds < 120) {
      return Math.round(seconds) + ' s';
    }
    if (seconds < 7200) {
      return Math.round(seconds / 60) + ' min';
    }
    return (seconds / 3600).toFixed(1) + ' h';
  }

  const num = (n) => (n === null || n === undefined ? '—' : Number(n).toLocaleString('en-US'));

  function badge(status, extra) {
    return h('span', { class: 'badge ' + status + (extra ? ' ' + extra : ''), 'data-status': status }, status);
  }

  function pretty(value) {
    return value === null || value === undefined ? 'null' : JSON.stringify(value, null, 2);
  }

  function toast(text, bad) {
    const t = h('div', { class: 'toast' + (bad ? ' bad' : ''), 'data-test': 'toast' }, text);
    $('toasts').appendChild(t);
    setTimeout(() => t.remove(), 5000);
  }

  /** An in-page confirmation (a modal dialog); resolves true when confirmed. */
  function confirmAction(text, okLabel, danger) {
    const dialog = $('confirm');
    $('confirm-text').textContent = text;
    const ok = $('confirm-ok');
    ok.textContent = okLabel;
    ok.className = danger ? 'danger' : '';
    return new Promise((resolve) => {
      dialog.addEventListener('close', () => resolve(dialog.returnValue === 'ok'), { once: true });
      dialog.returnValue = '';
      dialog.showModal();
      ok.focus();
    });
  }

  // ---- views: shared pieces ---------------------------------------------------------------

  function stopTimer() {
    if (state.timer) {
      clearTimeout(state.timer);
      state.timer = null;
    }
  }

  /** Runs load() now and again every ms while the view is current and load() does not return false. */
  function every(ms, gen, load) {
    const tick = async () => {
      if (gen !== state.generation) {
        return;
      }
      try {
        if (await load() === false) {
          return;
        }
      } catch (e) {
        if (gen === state.generation) {
          renderError(e);
        }
        return;
      }
      if (gen === state.generation && ms) {
        state.timer = setTimeout(tick, ms);
      }
    };
    return tick();
  }

  /** Replaces the view's body with an explanation of a failed call (403 gets its own panel). */
  function renderError(e) {
    const body = $('view-body') || $('main');
    const problem = e.problem || {};
    clear(body);
    if (e.status === 403) {
      body.appendChild(h('div', { class: 'card notice forbidden', 'data-test': 'forbidden' },
          h('h2', null, '403 Forbidden'),
          h('p', null, problem.detail || 'This key may not do this.'),
          h('p', { class: 'muted' }, 'This part of the dashboard needs a key with the admin role.'
              + (state.me && state.me.roles.includes('producer')
                  ? ' With this key you can open a job by its id (top right).' : ''))));
      return;
    }
    body.appendChild(h('div', { class: 'card notice error', 'data-test': 'error' },
        h('h2', null, (e.status ? e.status + ' ' : '') + (problem.title || 'Error')),
        h('p', null, problem.detail || e.message)));
  }

  function page(title, ...tools) {
    const main = $('main');
    clear(main);
    main.appendChild(h('div', { class: 'page-head' }, h('h1', null, title), h('span', { class: 'spacer' }), tools));
    const body = h('div', { id: 'view-body' });
    main.appendChild(body);
    return body;
  }

  /** Runs an operator action, reports it, and refreshes the view. */
  async function act(label, call, after) {
    try {
      const result = await call();
      toast(label);
      if (after) {
        await after(result);
      }
    } catch (e) {
      toast(label + ' failed: ' + ((e.problem && e.problem.detail) || e.message), true);
    }
  }

  // ---- queues -------------------------------------------------------------------------------

  const COLORS = { succeeded: '#16a34a', dead: '#dc2626', cancelled: '#98a2b3' };

  /** Stacked bars, one per minute: succeeded, dead, cancelled. */
  function throughputChart(t) {
    const n = t.total.succeeded.length;
    // drawn at the width it is shown at, so that its text keeps the page's size
    const W = Math.max(480, Math.min(1600, ($('main').clientWidth || 1000) - 80));
    const H = 170;
    const left = 40;
    const bottom = 22;
    const top = 8;
    const plotH = H - bottom - top;
    const totals = t.total.succeeded.map((v, i) => v + t.total.dead[i] + t.total.cancelled[i]);
    const peak = Math.max(...totals, 0);
    const max = niceMax(peak);
    const bw = (W - left) / n;
    const chart = s('svg', {
      class: 'chart', viewBox: '0 0 ' + W + ' ' + H, role: 'img', 'data-test': 'throughput-chart',
      'data-total': totals.reduce((a, b) => a + b, 0),
      'aria-label': 'Finished jobs per minute over the last ' + n + ' minutes',
    });
    for (const f of [0, 0.5, 1]) {
      const y = top + plotH - f * plotH;
      chart.appendChild(s('line', { class: 'axis', x1: left, x2: W, y1: y, y2: y }));
      chart.appendChild(s('text', { x: left - 6, y: y + 4, 'text-anchor': 'end' }, num(Math.round(max * f))));
    }
    const from = new Date(t.from).getTime();
    for (let i = 0; i < n; i++) {
      let y = top + plotH;
      const g = s('g', { 'data-minute': i });
      const minute = new Date(from + i * t.bucketSeconds * 1000);
      g.appendChild(s('title', null, pad(minute.getHours()) + ':' + pad(minute.getMinutes()) + ' · '
          + t.total.succeeded[i] + ' succeeded, ' + t.total.dead[i] + ' dead, '
          + t.total.cancelled[i] + ' cancelled'));
      // an invisible full-height bar, so that the tooltip shows on empty minutes too
      g.appendChild(s('rect', { x: left + i * bw, y: top, width: bw, height: plotH, fill: 'transparent' }));
      for (const kind of ['succeeded', 'dead', 'cancelled']) {
        const v = t.total[kind][i];
        if (!v) {
          continue;
        }
        const hgt = Math.max(1, (v / max) * plotH);
        y -= hgt;
        g.appendChild(s('rect', {
          x: left + i * bw + 1, y, width: Math.max(1, bw - 2), height: hgt, rx: 1.5, fill: COLORS[kind],
          'data-kind': kind, 'data-count': v,
        }));
      }
      chart.appendChild(g);
    }
    const labels = [[0, '−' + n + ' min'], [Math.floor(n / 2), '−' + Math.ceil(n / 2) + ' min'], [n - 1, 'now']];
    for (const [i, text] of labels) {
      chart.appendChild(s('text', {
        x: left + i * bw + bw / 2, y: H - 6, 'text-anchor': i === 0 ? 'start' : i === n - 1 ? 'end' : 'middle',
      }, text));
    }
    return chart;
  }

  function niceMax(v) {
    if (v <= 4) {
      return 4;
    }
    // the middle grid line must be a whole number too
    const p = Math.pow(10, Math.floor(Math.log10(v)));
    for (const m of [1, 2, 4, 6, 8, 10]) {
      if (m * p >= v) {
        return m * p;
      }
    }
    return 10 * p;
  }

  function sparkline(series) {
    const n = series.length;
    const max = Math.max(...series, 1);
    const W = 120;
    const H = 26;
    const pts = series.map((v, i) => (i * (W - 2) / Math.max(1, n - 1) + 1).toFixed(1) + ','
        + (H - 2 - (v / max) * (H - 4)).toFixed(1)).join(' ');
    return s('svg', { class: 'spark', viewBox: '0 0 ' + W + ' ' + H, 'aria-hidden': 'true' },
        s('polyline', { points: pts, fill: 'none', stroke: '#2563eb', 'stroke-width': 1.5 }));
  }

  function sum(a) {
    return a.reduce((x, y) => x + y, 0);
  }

  async function viewQueues(gen) {
    const body = page('Queues', h('button', { class: 'ghost', type: 'button', onclick: () => route() }, 'Refresh'));
    await every(5000, gen, async () => {
      const [list, t, m] = await Promise.all([api('GET', '/queues'), api('GET', '/stats/throughput?minutes=60'),
        api('GET', '/stats/merging')]);
      if (gen !== state.generation) {
        return;
      }
      const perQueue = new Map(t.queues.map((x) => [x.queue, x]));
      clear(body);

      const chartCard = h('div', { class: 'card' },
          h('div', { class: 'page-head' }, h('h2', null, 'Throughput, last hour'), h('span', { class: 'spacer' }),
              h('div', { class: 'legend' },
                  h('span', null, h('i', { class: 'swatch-ok' }), 'succeeded'),
                  h('span', null, h('i', { class: 'swatch-dead' }), 'dead'),
                  h('span', null, h('i', { class: 'swatch-cancelled' }), 'cancelled'))),
          h('div', { class: 'stats' },
              stat(sum(t.total.succeeded), 'succeeded', 'stat-succeeded'),
              stat(sum(t.total.dead), 'dead', 'stat-dead'),
              stat(sum(t.total.cancelled), 'cancelled', 'stat-cancelled'),
              stat(list.queues.reduce((a, x) => a + x.pending, 0), 'pending now', 'stat-pending'),
              stat(list.queues.reduce((a, x) => a + x.leased + x.processing, 0), 'running now', 'stat-running')),
          throughputChart(t),
          mergingNote(m));
      // swatch colours come from the chart palette (set through the CSSOM, allowed by the CSP)
      chartCard.querySelector('.swatch-ok').style.background = COLORS.succeeded;
      chartCard.querySelector('.swatch-dead').style.background = COLORS.dead;
      chartCard.querySelector('.swatch-cancelled').style.background = COLORS.cancelled;
      body.appendChild(chartCard);

      const rows = list.queues.map((x) => {
        const tp = perQueue.get(x.name);
        const series = tp ? tp.succeeded.map((v, i) => v + tp.dead[i] + tp.cancelled[i]) : new Array(60).fill(0);
        return h('tr', { 'data-test': 'queue-row', 'data-queue': x.name },
            h('td', null, h('a', { href: '#/jobs' + q({ queue: x.name }) }, x.name),
                x.fairness ? [' ', h('a', { href: '#/queues/' + encodeURIComponent(x.name) + '/keys', class: 'badge fair',
                  'data-test': 'queue-keys', title: 'fair queue: its keys' }, 'keys')] : '',
                x.onSuccess === 'delete' ? [' ', h('span', { class: 'badge', 'data-test': 'queue-deletes-succeeded',
                  title: 'onSuccess delete: succeeded jobs are deleted when they complete, not archived '
                    + '(not counted under Finished, last hour)' }, 'deletes succeeded')] : ''),
            h('td', null, x.paused ? h('span', { class: 'badge paused', 'data-test': 'queue-state' }, 'paused')
                : h('span', { class: 'badge running', 'data-test': 'queue-state' }, 'running')),
            h('td', { class: 'num', 'data-test': 'pending' }, num(x.pending)),
            h('td', { class: 'num' }, num(x.scheduled)),
            h('td', { class: 'num', 'data-test': 'leased' }, num(x.leased)),
            h('td', { class: 'num' }, num(x.processing)),
            h('td', { class: 'num' }, x.dead ? h('a', { href: '#/dead' + q({ queue: x.name }) }, num(x.dead)) : '0'),
            h('td', { class: 'num', 'data-test': 'lag' }, duration(x.lagSeconds)),
            h('td', null, sparkline(series), ' ', h('span', { class: 'muted' }, num(sum(series)))),
            h('td', { class: 'num' }, x.maxWorkers === null ? '∞' : num(x.maxWorkers)),
            h('td', { class: 'row-actions' }, isAdmin() ? [pauseButton(x), ' ', deleteQueueButton(x)] : ''));
      });
      body.appendChild(h('div', { class: 'card' },
          h('div', { class: 'table-wrap' }, h('table', { 'data-test': 'queues' },
              h('thead', null, h('tr', null, h('th', null, 'Queue'), h('th', null, 'State'),
                  h('th', { class: 'num' }, 'Pending'), h('th', { class: 'num' }, 'Scheduled'),
                  h('th', { class: 'num' }, 'Leased'), h('th', { class: 'num' }, 'Processing'),
                  h('th', { class: 'num' }, 'Dead'), h('th', { class: 'num' }, 'Lag'),
                  h('th', null, 'Finished, last hour'), h('th', { class: 'num' }, 'Max workers'), h('th', null, ''))),
              h('tbody', null, rows.length ? rows
                  : h('tr', null, h('td', { colspan: 11, class: 'empty' }, 'No queues yet: enqueue a job.')))))));
    });
  }

  // A fair queue's keys: each key's pending and active jobs, refreshed every 5 s.
  async function viewQueueKeys(gen, name) {
    const body = page('Keys of ' + name, h('a', { class: 'ghost', href: '#/queues' }, 'All queues'));
    await every(5000, gen, async () => {
      const k = await api('GET', '/queues/' + encodeURIComponent(name) + '/keys?limit=200');
      if (gen !== state.generation) {
        return;
      }
      clear(body);
      const limits = [k.fairness ? 'served in turn (' + k.fairness + ')' : 'not a fair queue',
        k.keyMaxWorkers === null ? 'no per-key cap' : 'at most ' + num(k.keyMaxWorkers) + ' active per key'];
      const rows = k.keys.map((x) => h('tr', { 'data-test': 'key-row', 'data-key': x.key },
          h('td', null, h('a', { href: '#/jobs' + q({ queue: name }) }, x.key === '' ? '(no key)' : x.key)),
          h('td', { class: 'num', 'data-test': 'key-pending' }, num(x.pending)),
          h('td', { class: 'num', 'data-test': 'key-active' }, num(x.active))));
      body.appendChild(h('div', { class: 'card' },
          h('p', { class: 'muted', 'data-test': 'key-limits' }, limits.join('; ')),
          h('div', { class: 'table-wrap' }, h('table', { 'data-test': 'keys' },
              h('thead', null, h('tr', null, h('th', null, 'Key'), h('th', { class: 'num' }, 'Pending'),
                  h('th', { class: 'num' }, 'Active'))),
              h('tbody', null, rows.length ? rows
                  : h('tr', null, h('td', { colspan: 3, class: 'empty' }, 'No unfinished job has a key.')))))));
    });
  }

  // What this instance merged since it started (GET /stats/merging): requests per statement above 1
  // is concurrent requests sharing a statement (docs/how-it-works.md, "Merging").
  function mergingNote(m) {
    const part = (label, c) => label + ' ' + num(c.requests) + ' requests in ' + num(c.statements) + ' statements';
    return h('p', { class: 'muted', 'data-test': 'merging',
      title: 'Concurrent requests of one kind share one database statement (readpast.merging.*); acks are completions, releases, failures\u2019 retries and heartbeats; per broker instance' },
    'This instance merged, since it started: ' + part('enqueues', m.enqueues) + ' · ' + part('claims', m.claims)
        + ' · ' + part('acks', m.acks) + ' · ' + num(m.claimsWaiting) + ' long polls waiting now');
  }

  function stat(value, label, test) {
    return h('div', { class: 'stat' }, h('div', { class: 'v', 'data-test': test }, num(value)),
        h('div', { class: 'l' }, label));
  }

  function pauseButton(x) {
    const verb = x.paused ? 'resume' : 'pause';
    return h('button', {
      type: 'button', class: 'small ghost', 'data-test': verb,
      onclick: () => act('Queue ' + x.name + (x.paused ? ' resumed' : ' paused'),
          () => api('POST', '/queues/' + encodeURIComponent(x.name) + '/' + verb), () => route()),
    }, x.paused ? 'Resume' : 'Pause');
  }

  // DELETE /queues/{name}: refused (409, shown) while it holds unfinished jobs, dead letters or a schedule
  function deleteQueueButton(x) {
    return h('button', {
      type: 'button', class: 'small ghost', 'data-test': 'delete-queue',
      onclick: async () => {
        if (await confirmAction('Delete queue ' + x.name + '? Only a queue without unfinished jobs or dead letters '
            + 'can go; its finished jobs stay until retention. A later enqueue brings it back with default settings.',
        'Delete', true)) {
          await act('Queue ' + x.name + ' deleted', () => api('DELETE', '/queues/' + encodeURIComponent(x.name)),
              () => route());
        }
      },
    }, 'Delete');
  }

  // ---- jobs browser and dead letters (keyset paging) -------------------------------------------

  /** Cursors of the pages seen so far, per view, so that "Newer" can go back. */
  const pages = { key: null, cursors: [null] };

  function cursorFor(listKey) {
    if (pages.key !== listKey) {
      pages.key = listKey;
      pages.cursors = [null];
    }
    return pages.cursors[pages.cursors.length - 1];
  }

  function pager(next, onMove) {
    return h('div', { class: 'pager' },
        h('span', { class: 'muted' }, 'Page ' + pages.cursors.length),
        h('button', {
          type: 'button', class: 'ghost small', 'data-test': 'newer', disabled: pages.cursors.length <= 1,
          onclick: () => {
            pages.cursors.pop();
            onMove();
          },
        }, '← Newer'),
        h('button', {
          type: 'button', class: 'ghost small', 'data-test': 'older', disabled: !next,
          onclick: () => {
            pages.cursors.push(next);
            onMove();
          },
        }, 'Older →'));
  }

  function filterForm(fields, params, base) {
    const inputs = {};
    const form = h('form', { class: 'card filters', method: 'post', autocomplete: 'off', 'data-test': 'filters' });
    for (const f of fields) {
      if (f.name === 'status') {
        const chosen = new Set((params.get('status') || '').split(',').filter(Boolean));
        const box = h('div', { class: 'checks' });
        inputs.status = STATUSES.map((st) => {
          const cb = h('input', { type: 'checkbox', value: st, checked: chosen.has(st), 'data-test': 'status-' + st });
          box.appendChild(h('label', null, cb, st.toLowerCase()));
          return cb;
        });
        form.appendChild(h('label', null, 'Status', box));
      } else {
        const input = h('input', { name: f.name, value: params.get(f.name) || '', placeholder: f.placeholder || '',
          size: 14, 'data-test': 'filter-' + f.name });
        inputs[f.name] = input;
        form.appendChild(h('label', null, f.label, input));
      }
    }
    form.appendChild(h('button', { type: 'submit' }, 'Apply'));
    form.appendChild(h('button', { type: 'button', class: 'ghost', onclick: () => go(base) }, 'Reset'));
    form.addEventListener('submit', (ev) => {
      ev.preventDefault();
      const values = {};
      for (const [name, input] of Object.entries(inputs)) {
        values[name] = Array.isArray(input) ? input.filter((c) => c.checked).map((c) => c.value).join(',')
            : input.value.trim();
      }
      go(base + q(values));
    });
    return form;
  }

  function jobLink(id) {
    return h('a', { href: '#/jobs/' + encodeURIComponent(id), 'data-test': 'job-link', 'data-id': id }, '#' + id);
  }

  async function viewJobs(gen, params) {
    const body = page('Jobs', h('button', { class: 'ghost', type: 'button', onclick: () => route() }, 'Refresh'));
    const form = filterForm([{ name: 'queue', label: 'Queue' }, { name: 'type', label: 'Type' },
      { name: 'tag', label: 'Tag' }, { name: 'error', label: 'Error contains' },
      { name: 'fairnessKey', label: 'Fairness key' }, { name: 'batch', label: 'Batch' },
      { name: 'payload', label: 'Payload has', placeholder: '{"customer":"acme"}' }, { name: 'status' }],
    params, '#/jobs');
    $('main').insertBefore(form, body);
    const filter = {};
    for (const name of JOB_FILTERS) {
      if (params.get(name)) {
        filter[name] = params.get(name);
      }
    }
    if (isAdmin() && Object.keys(filter).length) {
      $('main').insertBefore(bulkBar(filter), body);
    }
    const listKey = 'jobs' + q(filter);
    await every(5000, gen, async () => {
      const after = cursorFor(listKey);
      const pageData = await api('GET', '/jobs' + q({ ...filter, limit: 50, after }));
      if (gen !== state.generation) {
        return;
      }
      clear(body);
      const rows = pageData.jobs.map((j) => h('tr', { 'data-test': 'job-row', 'data-id': j.id },
          h('td', null, jobLink(j.id)),
          h('td', null, h('a', { href: '#/jobs' + q({ queue: j.queue }) }, j.queue)),
          h('td', null, j.type),
          h('td', null, badge(j.status)),
          h('td', { class: 'num' }, j.attempt + ' / ' + j.maxAttempts),
          h('td', { class: 'num' }, String(j.priority)),
          h('td', null, whenShort(j.runAt)),
          h('td', null, whenShort(j.updatedAt)),
          h('td', null, j.lastError ? h('span', { class: 'clip error', title: j.lastError }, j.lastError) : ''),
          h('td', null, isAdmin() && LIVE.includes(j.status) && !j.cancelRequested ? h('button', {
            type: 'button', class: 'small ghost', 'data-test': 'cancel',
            onclick: () => cancelJob(j.id, () => route()),
          }, 'Cancel') : '')));
      body.appendChild(h('div', { class: 'card' },
          h('div', { class: 'table-wrap' }, h('table', { 'data-test': 'jobs' },
              h('thead', null, h('tr', null, ['Id', 'Queue', 'Type', 'Status'].map((x) => h('th', null, x)),
                  h('th', { class: 'num' }, 'Attempt'), h('th', { class: 'num' }, 'Priority'),
                  ['Run at', 'Updated', 'Last error', ''].map((x) => h('th', null, x)))),
              h('tbody', null, rows.length ? rows
                  : h('tr', null, h('td', { colspan: 10, class: 'empty' }, 'No jobs match.'))))),
          pager(pageData.next, () => route())));
    });
  }

  /** The filter fields of GET /jobs and POST /jobs/bulk the Jobs page offers. */
  const JOB_FILTERS = ['queue', 'type', 'tag', 'error', 'fairnessKey', 'batch', 'payload', 'status'];

  /**
   * Bulk actions on the jobs the page's filter matches: a dry run counts them first, the
   * confirmation says how many, then calls of 1000 go on from each other's cursor until the
   * scan ends (the counts add up in the card as they go).
   */
  function bulkBar(filter) {
    const status = h('span', { class: 'muted', 'data-test': 'bulk-status' }, 'Act on every job this filter matches:');
    const card = h('div', { class: 'card bulk', 'data-test': 'bulk' }, status);
    const body = { ...filter };
    if (body.payload) {
      try {
        body.payload = JSON.parse(body.payload);
      } catch (e) {
        status.textContent = 'Bulk actions need the payload filter to be JSON: ' + e.message;
        return card;
      }
    }
    const verbs = { requeue: 'Requeue', cancel: 'Cancel', delete: 'Delete' };
    const into = h('input', {
      type: 'text', class: 'small', placeholder: 'requeue into queue (optional)', 'data-test': 'bulk-into',
      'aria-label': 'Queue to requeue into (optional; it must exist)', maxlength: '200',
    });
    for (const [action, label] of Object.entries(verbs)) {
      card.appendChild(h('button', {
        type: 'button', class: action === 'requeue' ? 'ghost small' : 'danger small', 'data-test': 'bulk-' + action,
        onclick: () => runBulk(action, label, body, status, action === 'requeue' ? into.value.trim() : ''),
      }, label + ' all…'));
      if (action === 'requeue') {
        card.appendChild(into);
      }
    }
    return card;
  }

  async function runBulk(action, label, filter, status, into) {
    const extra = into ? { queue: into } : {};
    let preview;
    try {
      preview = await api('POST', '/jobs/bulk', { action, filter, dryRun: true, limit: 10000, ...extra });
    } catch (e) {
      toast((e.problem && e.problem.detail) || e.message, true);
      return;
    }
    if (preview.eligible === 0) {
      toast('No matched job can be ' + (action === 'cancel' ? 'cancelled' : action + 'd') + ' (' + preview.matched
          + ' matched).');
      return;
    }
    const more = preview.next ? ' at least' : '';
    if (!await confirmAction(label + more + ' ' + preview.eligible + ' job' + (preview.eligible === 1 ? '' : 's')
        + (into ? ' into queue ' + into : '') + '? '
        + preview.matched + ' matched the filter; jobs in other statuses are left alone.', label, action !== 'requeue')) {
      return;
    }
    const total = { changed: 0, skipped: 0 };
    let after = null;
    try {
      do {
        const r = await api('POST', '/jobs/bulk', { action, filter, limit: 1000, after, ...extra });
        total.changed += r.changed;
        total.skipped += r.skipped;
        after = r.next;
        status.textContent = label + ': ' + total.changed + ' changed, ' + total.skipped + ' skipped'
            + (after ? ', going on…' : '.');
      } while (after);
      toast(label + ': ' + total.changed + ' changed, ' + total.skipped + ' skipped');
    } catch (e) {
      toast((e.problem && e.problem.detail) || e.message, true);
    }
    route();
  }

  async function viewDead(gen, params) {
    const body = page('Dead letters', h('button', { class: 'ghost', type: 'button', onclick: () => route() }, 'Refresh'));
    const form = filterForm([{ name: 'queue', label: 'Queue' }, { name: 'type', label: 'Type' }], params, '#/dead');
    $('main').insertBefore(form, body);
    const filter = { queue: params.get('queue'), type: params.get('type') };
    const listKey = 'dead' + q(filter);
    await every(10000, gen, async () => {
      const after = cursorFor(listKey);
      const pageData = await api('GET', '/dead-letters' + q({ ...filter, limit: 50, after }));
      if (gen !== state.generation) {
        return;
      }
      clear(body);
      const rows = pageData.jobs.map((j) => h('tr', { 'data-test': 'dead-row', 'data-id': j.id },
          h('td', null, jobLink(j.id)),
          h('td', null, j.queue),
          h('td', null, j.type),
          h('td', { class: 'num' }, j.attempt + ' / ' + j.maxAttempts),
          h('td', null, whenShort(j.finishedAt)),
          h('td', null, j.lastError ? h('span', { class: 'clip error', title: j.lastError }, j.lastError) : ''),
          h('td', null, h('div', { class: 'actions' },
              h('button', {
                type: 'button', class: 'small', 'data-test': 'requeue',
                onclick: () => requeueJob(j.id, () => route()),
              }, 'Requeue'),
              h('button', {
                type: 'button', class: 'small ghost', 'data-test': 'delete',
                onclick: () => deleteJob(j.id, () => route()),
              }, 'Delete')))));
      body.appendChild(h('div', { class: 'card' },
          h('div', { class: 'table-wrap' }, h('table', { 'data-test': 'dead' },
              h('thead', null, h('tr', null, ['Id', 'Queue', 'Type'].map((x) => h('th', null, x)),
                  h('th', { class: 'num' }, 'Attempts'), h('th', null, 'Died'), h('th', null, 'Last error'),
                  h('th', null, ''))),
              h('tbody', null, rows.length ? rows
                  : h('tr', null, h('td', { colspan: 7, class: 'empty' }, 'No dead letters.'))))),
          pager(pageData.next, () => route())));
    });
  }

  // ---- operator actions ------------------------------------------------------------------------

  async function cancelJob(id, after) {
    if (await confirmAction('Cancel job ' + id + '? A running job is cancelled when its worker lets go of it.',
        'Cancel job', true)) {
      await act('Job ' + id + ' cancel requested', () => api('POST', '/jobs/' + id + '/cancel'), after);
    }
  }

  async function requeueJob(id, after) {
    if (await confirmAction('Requeue job ' + id + '? It becomes PENDING again with its attempts reset.', 'Requeue')) {
      await act('Job ' + id + ' requeued', () => api('POST', '/jobs/' + id + '/requeue', {}), after);
    }
  }

  async function runJobNow(id, after) {
    await act('Job ' + id + ' due now', () => api('POST', '/jobs/' + id + '/run-now'), after);
  }

  /**
   * The edit form of a job nobody holds (PENDING or WAITING): priority, run-at and payload, in a
   * modal dialog of its own (the job page re-renders every 2 s underneath). Only what changed is
   * sent; the broker's refusal (the job was claimed meanwhile, bad input) shows in the dialog.
   */
  function editJob(j, after) {
    const old = $('edit-job');
    if (old) {
      old.remove();
    }
    const priority = h('input', { type: 'number', step: '1', value: String(j.priority), 'data-test': 'edit-priority' });
    const runAt = h('input', { type: 'text', value: j.runAt || '', size: 28, placeholder: '2030-01-01T12:00:00Z',
      'data-test': 'edit-run-at' });
    const payloadText = pretty(j.payload);
    const payload = h('textarea', { rows: '8', spellcheck: 'false', 'data-test': 'edit-payload' });
    payload.value = payloadText;
    const error = h('p', { class: 'error-text', 'data-test': 'edit-error' });
    const save = h('button', { type: 'submit', 'data-test': 'edit-save' }, 'Save');
    const form = h('form', { class: 'edit-form', autocomplete: 'off' },
        h('h3', null, 'Edit job #' + j.id),
        h('p', { class: 'muted' }, 'Only a job nobody holds can be edited; a worker claiming it first wins.'),
        h('label', null, 'Priority', priority),
        h('label', null, 'Run at (ISO-8601)', runAt),
        h('label', null, 'Payload (JSON)', payload),
        error,
        h('div', { class: 'actions' },
            h('button', { type: 'button', class: 'ghost', onclick: () => dialog.close() }, 'Cancel'), save));
    const dialog = h('dialog', { id: 'edit-job', class: 'card', 'data-test': 'edit-dialog' }, form);
    document.body.appendChild(dialog);
    dialog.addEventListener('close', () => dialog.remove(), { once: true });
    form.addEventListener('submit', async (ev) => {
      ev.preventDefault();
      const body = {};
      if (priority.value.trim() !== String(j.priority)) {
        body.priority = Number(priority.value.trim());
      }
      if (runAt.value.trim() !== (j.runAt || '')) {
        body.runAt = runAt.value.trim();
      }
      if (payload.value !== payloadText) {
        try {
          body.payload = JSON.parse(payload.value);
        } catch (e) {
          error.textContent = 'The payload is not valid JSON: ' + e.message;
          return;
        }
      }
      if (Object.keys(body).length === 0) {
        dialog.close();
        return;
      }
      try {
        await api('PATCH', '/jobs/' + j.id, body);
        dialog.close();
        toast('Job ' + j.id + ' edited');
        if (after) {
          await after();
        }
      } catch (e) {
        error.textContent = (e.problem && e.problem.detail) || e.message;
      }
    });
    dialog.showModal();
    priority.focus();
  }

  /** A job's own retry backoff in words; "the queue's" when it has none. */
  function retryText(r) {
    if (!r) {
      return 'the queue\'s';
    }
    if (r.delaysSeconds) {
      return r.delaysSeconds.map((s) => duration(s)).join(', ') + (r.delaysSeconds.length > 1 ? ' (last repeats)' : ', each time');
    }
    return duration(r.baseSeconds) + ' × ' + r.factor + ' per attempt, up to ' + duration(r.capSeconds)
        + (r.jitter ? ', jittered' : '');
  }

  async function deleteJob(id, after) {
    if (await confirmAction('Delete job ' + id + ' for good?', 'Delete', true)) {
      await act('Job ' + id + ' deleted', () => api('DELETE', '/jobs/' + id), after);
    }
  }

  // ---- job detail -------------------------------------------------------------------------------

  function field(label, value, test) {
    return [h('dt', null, label), h('dd', test ? { 'data-test': test } : null, value)];
  }

  async function viewJob(gen, id) {
    const body = page('Job #' + id);
    await every(2000, gen, async () => {
      const j = await api('GET', '/jobs/' + encodeURIComponent(id));
      if (gen !== state.generation) {
        return;
      }
      renderJob(body, j);
      // a finished job does not change by itself any more: stop polling (Refresh reloads)
      return LIVE.includes(j.status);
    });
  }

  function renderJob(body, j) {
    clear(body);
    const head = h('div', { class: 'card page-head' },
        h('span', { 'data-test': 'job-status' }, badge(j.status, 'big')),
        j.cancelRequested ? h('span', { class: 'badge LEASED' }, 'cancel requested') : '',
        h('span', { class: 'muted' }, j.queue + ' · ' + j.type),
        h('span', { class: 'spacer' }),
        h('button', { type: 'button', class: 'ghost', onclick: () => route() }, 'Refresh'),
        isAdmin() ? jobActions(j) : '');
    body.appendChild(head);

    const p = j.progress;
    const percent = p && typeof p.percent === 'number' ? Math.max(0, Math.min(100, p.percent)) : null;
    const bar = h('span');
    bar.style.width = (percent === null ? 0 : percent) + '%';

    body.appendChild(h('div', { class: 'grid' },
        h('div', { class: 'card' }, h('h3', null, 'Job'), h('dl', { class: 'fields' },
            field('Queue', h('a', { href: '#/jobs' + q({ queue: j.queue }) }, j.queue)),
            field('Type', j.type),
            field('Priority', String(j.priority)),
            field('Attempt', j.attempt + ' of ' + j.maxAttempts, 'attempt'),
            field('Tags', j.tags.length ? j.tags.join(', ') : '—'),
            field('Idempotency key', j.idempotencyKey || '—'),
            field('Batch', j.batchId ? batchLink(j.batchId) : '—', 'batch'),
            j.status === 'WAITING' ? field('Parents left', String(j.parentsLeft), 'parents-left') : '',
            field('Run at', when(j.runAt)),
            field('Created', when(j.createdAt)),
            field('Started', when(j.startedAt)),
            field('Finished', when(j.finishedAt)),
            field('Updated', when(j.updatedAt)),
            field('Created by', j.createdBy || '—'),
            field('Modified by', j.modifiedBy || '—'))),
        h('div', { class: 'stack' },
            h('div', { class: 'card' }, h('h3', null, 'Lease'), h('dl', { class: 'fields' },
                field('Worker', j.workerId || '—', 'worker'),
                field('Lease expires', when(j.leaseExpiresAt)),
                field('Time limit', j.timeoutSeconds ? duration(j.timeoutSeconds)
                    + (j.deadlineAt ? ' · until ' + when(j.deadlineAt) : '') : 'none', 'time-limit'),
                field('Retry backoff', retryText(j.retry), 'retry'),
                field('Last heartbeat', when(j.heartbeatAt)),
                field('Cancel requested', j.cancelRequested ? 'yes' : 'no'))),
            h('div', { class: 'card' }, h('h3', null, 'Progress'),
                percent === null && !(p && p.message) ? h('p', { class: 'muted' }, 'No progress reported.')
                    : [h('div', { class: 'progress', 'data-test': 'progress' }, bar),
                      h('div', null, (percent === null ? '' : percent + ' %'),
                          p && p.message ? h('span', { class: 'muted' }, ' · ' + p.message) : '')]))));

    const deps = h('div', { class: 'card', 'data-test': 'dependencies' }, h('h3', null, 'Dependencies'),
        h('p', { class: 'muted' }, 'Loading…'));
    body.appendChild(deps);
    api('GET', '/jobs/' + encodeURIComponent(j.id) + '/dependencies').then((d) => renderDependencies(deps, d),
        () => { clear(deps); deps.appendChild(h('h3', null, 'Dependencies'));
          deps.appendChild(h('p', { class: 'muted' }, 'Could not load them.')); });

    const errors = j.errors || [];
    body.appendChild(h('div', { class: 'card' }, h('h3', null, 'Errors per attempt'),
        errors.length === 0 ? h('p', { class: 'muted', 'data-test': 'no-errors' }, 'No attempt failed.')
            : h('div', { class: 'table-wrap' }, h('table', { 'data-test': 'errors' },
                h('thead', null, h('tr', null, h('th', { class: 'num' }, 'Attempt'), h('th', null, 'When'),
                    h('th', null, 'Worker'), h('th', null, 'Error'))),
                h('tbody', null, errors.map((e) => h('tr', { 'data-test': 'error-row' },
                    h('td', { class: 'num' }, String(e.attempt)),
                    h('td', null, whenShort(e.at)),
                    h('td', null, e.workerId || '—'),
                    h('td', null, h('pre', { class: 'text' }, e.error || '')))))))));

    body.appendChild(h('div', { class: 'grid' },
        h('div', { class: 'card' }, h('h3', null, 'Payload'), h('pre', { class: 'json', 'data-test': 'payload' },
            pretty(j.payload))),
        h('div', { class: 'card' }, h('h3', null, 'Result'), h('pre', { class: 'json', 'data-test': 'result' },
            pretty(j.result)))));
  }

  function batchLink(id) {
    return h('a', { href: '#/batches/' + encodeURIComponent(id), 'data-test': 'batch-link' }, 'batch #' + id);
  }

  function edgeLink(e) {
    return e.batch ? batchLink(e.batch) : jobLink(e.job);
  }

  function renderDependencies(card, d) {
    clear(card);
    card.appendChild(h('h3', null, 'Dependencies'));
    if (!d.parents.length && !d.children.length) {
      card.appendChild(h('p', { class: 'muted', 'data-test': 'no-dependencies' }, 'It waits for nothing, and nothing waits for it.'));
      return;
    }
    const list = (title, edges, test) => h('div', null, h('h4', null, title), edges.length
        ? h('ul', { 'data-test': test }, edges.map((e) => h('li', { 'data-test': test + '-item' }, edgeLink(e), ' ',
            e.outcome ? badge(e.outcome) : h('span', { class: 'muted' }, 'not settled'))))
        : h('p', { class: 'muted' }, 'None.'));
    card.appendChild(list('Parents (it waits for)', d.parents, 'parents'));
    card.appendChild(list('Children (waiting for it)', d.children, 'children'));
  }

  function jobActions(j) {
    const again = () => route();
    const buttons = [];
    if (LIVE.includes(j.status) && !j.cancelRequested) {
      buttons.push(h('button', { type: 'button', class: 'danger', 'data-test': 'cancel',
        onclick: () => cancelJob(j.id, again) }, 'Cancel'));
    }
    if (j.status === 'DEAD' || j.status === 'CANCELLED') {
      buttons.push(h('button', { type: 'button', 'data-test': 'requeue', onclick: () => requeueJob(j.id, again) },
          'Requeue'));
    }
    if (j.status === 'PENDING' || j.status === 'WAITING') {
      buttons.push(h('button', { type: 'button', class: 'ghost', 'data-test': 'edit', onclick: () => editJob(j, again) },
          'Edit'));
    }
    if (j.status === 'PENDING' && j.runAt && Date.parse(j.runAt) > Date.now()) {
      buttons.push(h('button', { type: 'button', 'data-test': 'run-now', onclick: () => runJobNow(j.id, again) },
          'Run now'));
    }
    if (!LIVE.includes(j.status)) {
      buttons.push(h('button', { type: 'button', class: 'ghost', 'data-test': 'delete',
        onclick: () => deleteJob(j.id, () => go('#/jobs')) }, 'Delete'));
    }
    return h('div', { class: 'actions' }, buttons);
  }

  // ---- batches ----------------------------------------------------------------------------------

  function batchBar(b) {
    const done = b.succeeded + b.dead + b.cancelled;
    const bar = h('span');
    bar.style.width = (b.total ? Math.round(100 * done / b.total) : 100) + '%';
    return h('div', { class: 'progress', 'data-test': 'batch-progress' }, bar);
  }

  async function viewBatches(gen) {
    const body = page('Batches', h('button', { class: 'ghost', type: 'button', onclick: () => route() }, 'Refresh'));
    const listKey = 'batches';
    await every(5000, gen, async () => {
      const after = cursorFor(listKey);
      const pageData = await api('GET', '/batches' + q({ limit: 50, after }));
      if (gen !== state.generation) {
        return;
      }
      clear(body);
      const rows = pageData.batches.map((b) => h('tr', { 'data-test': 'batch-row', 'data-id': b.id },
          h('td', null, batchLink(b.id)),
          h('td', { 'data-test': 'batch-state' }, badge(b.state)),
          h('td', null, b.queues.join(', ')),
          h('td', null, batchBar(b), h('div', { class: 'muted' }, (b.succeeded + b.dead + b.cancelled) + ' of ' + b.total
              + (b.dead ? ' · ' + b.dead + ' dead' : '') + (b.cancelled ? ' · ' + b.cancelled + ' cancelled' : ''))),
          h('td', null, b.firedAt ? when(b.firedAt) : h('span', { class: 'muted' }, 'not yet')),
          h('td', null, when(b.createdAt))));
      body.appendChild(h('div', { class: 'card' },
          h('div', { class: 'table-wrap' }, h('table', { 'data-test': 'batches' },
              h('thead', null, h('tr', null, ['Batch', 'State', 'Queues', 'Progress', 'Fired', 'Created']
                  .map((x) => h('th', null, x)))),
              h('tbody', null, rows.length ? rows
                  : h('tr', null, h('td', { colspan: 6, class: 'empty', 'data-test': 'no-batches' },
                      'No batches: POST /batches makes one (see docs/batches.md).'))))),
          pager(pageData.next, () => route())));
    });
  }

  async function viewBatch(gen, id) {
    const body = page('Batch #' + id);
    await every(2000, gen, async () => {
      const b = await api('GET', '/batches/' + encodeURIComponent(id));
      if (gen !== state.generation) {
        return;
      }
      clear(body);
      const buttons = [];
      if (b.state === 'OPEN') {
        buttons.push(h('button', { type: 'button', 'data-test': 'close-batch',
          onclick: () => act('Batch ' + id + ' closed', () => api('POST', '/batches/' + id + '/close'), () => route()) },
        'Close'));
      }
      if (isAdmin() && b.state !== 'FINISHED' && !b.cancelledAt) {
        buttons.push(h('button', { type: 'button', class: 'danger', 'data-test': 'cancel-batch',
          onclick: async () => {
            if (await confirmAction('Cancel batch ' + id + '? Its pending and waiting jobs become CANCELLED; running '
                + 'ones get cancel requested.', 'Cancel batch', true)) {
              await act('Batch ' + id + ' cancelled', () => api('POST', '/batches/' + id + '/cancel'), () => route());
            }
          } }, 'Cancel batch'));
      }
      body.appendChild(h('div', { class: 'card page-head' },
          h('span', { 'data-test': 'batch-state' }, badge(b.state, 'big')),
          b.cancelledAt ? h('span', { class: 'badge CANCELLED' }, 'cancelled') : '',
          h('span', { class: 'muted' }, b.queues.join(', ') + ' · fires on ' + b.fireOn),
          h('span', { class: 'spacer' }),
          h('button', { type: 'button', class: 'ghost', onclick: () => route() }, 'Refresh'),
          h('div', { class: 'actions' }, buttons)));
      body.appendChild(h('div', { class: 'grid' },
          h('div', { class: 'card' }, h('h3', null, 'Progress'), batchBar(b), h('dl', { class: 'fields' },
              field('Total', String(b.total), 'total'),
              field('Succeeded', String(b.succeeded), 'succeeded'),
              field('Dead', String(b.dead), 'dead'),
              field('Cancelled', String(b.cancelled), 'cancelled'),
              field('Waiting', String(b.waiting), 'waiting'),
              field('Pending', String(b.pending), 'pending'),
              field('Running', String(b.active), 'active'))),
          h('div', { class: 'card' }, h('h3', null, 'Callback'), h('dl', { class: 'fields' },
              field('Fires on', b.fireOn),
              field('Callback job', b.callback ? b.callback.queue + ' · ' + b.callback.type : '—'),
              field('Enqueued as', b.callbackJobId ? jobLink(b.callbackJobId) : '—', 'callback-job'),
              field('Webhook', b.webhookUrl || '—'),
              field('Fired', b.firedAt ? when(b.firedAt) : 'not yet', 'fired'),
              field('Created', when(b.createdAt)),
              field('Closed', when(b.closedAt)),
              field('Finished', when(b.finishedAt)),
              field('Created by', b.createdBy || '—')))));
      return !b.firedAt || b.state !== 'FINISHED';
    });
  }

  // ---- schedules --------------------------------------------------------------------------------

  async function viewSchedules(gen, params) {
    const body = page('Schedules', h('button', { class: 'ghost', type: 'button', onclick: () => route() }, 'Refresh'));
    const listKey = 'schedules';
    await every(10000, gen, async () => {
      const after = cursorFor(listKey);
      const pageData = await api('GET', '/schedules' + q({ limit: 50, after }));
      if (gen !== state.generation) {
        return;
      }
      clear(body);
      const rows = pageData.schedules.map((x) => h('tr', { 'data-test': 'schedule-row', 'data-name': x.name },
          h('td', null, x.name),
          h('td', null, h('code', { 'data-test': 'cron' }, x.cron), h('div', { class: 'muted' }, x.timeZone)),
          h('td', null, h('a', { href: '#/jobs' + q({ queue: x.job.queue }) }, x.job.queue),
              h('div', { class: 'muted' }, x.job.type)),
          h('td', { 'data-test': 'next' }, x.paused ? h('span', { class: 'muted' }, 'paused') : when(x.nextFireAt)),
          h('td', { 'data-test': 'last' }, x.lastFireAt ? [when(x.lastFireAt),
            x.lastJobId ? h('div', null, jobLink(x.lastJobId)) : ''] : h('span', { class: 'muted' }, 'never')),
          h('td', null, x.paused ? h('span', { class: 'badge paused', 'data-test': 'schedule-state' }, 'paused')
              : h('span', { class: 'badge running', 'data-test': 'schedule-state' }, 'active')),
          h('td', null, h('div', { class: 'actions' },
              h('button', {
                type: 'button', class: 'small ghost', 'data-test': x.paused ? 'resume' : 'pause',
                onclick: () => act('Schedule ' + x.name + (x.paused ? ' resumed' : ' paused'),
                    () => api('POST', '/schedules/' + encodeURIComponent(x.name) + (x.paused ? '/resume' : '/pause')),
                    () => route()),
              }, x.paused ? 'Resume' : 'Pause'),
              h('button', {
                type: 'button', class: 'small ghost', 'data-test': 'delete',
                onclick: () => deleteSchedule(x.name, () => route()),
              }, 'Delete')))));
      body.appendChild(h('div', { class: 'card' },
          h('div', { class: 'table-wrap' }, h('table', { 'data-test': 'schedules' },
              h('thead', null, h('tr', null, ['Name', 'Cron', 'Job', 'Next run', 'Last run', 'State', '']
                  .map((x) => h('th', null, x)))),
              h('tbody', null, rows.length ? rows
                  : h('tr', null, h('td', { colspan: 7, class: 'empty', 'data-test': 'no-schedules' },
                      'No schedules: PUT /schedules/{name} makes one (see docs/api.md, Schedules).'))))),
          pager(pageData.next, () => route())));
    });
  }

  async function deleteSchedule(name, after) {
    if (await confirmAction('Delete schedule ' + name + '? Jobs it already enqueued stay.', 'Delete', true)) {
      await act('Schedule ' + name + ' deleted', () => api('DELETE', '/schedules/' + encodeURIComponent(name)), after);
    }
  }

  // ---- router -----------------------------------------------------------------------------------

  const TITLES = { queues: 'Queues', jobs: 'Jobs', dead: 'Dead letters', schedules: 'Schedules', batches: 'Batches' };

  function go(hash) {
    if (location.hash === hash) {
      route();
    } else {
      location.hash = hash;
    }
  }

  function route() {
    if (!state.me) {
      return;
    }
    stopTimer();
    const gen = ++state.generation;
    const hash = location.hash.replace(/^#/, '') || '/queues';
    const [path, query] = hash.split('?');
    const params = new URLSearchParams(query || '');
    const parts = path.split('/').filter(Boolean);
    const section = parts[0] || 'queues';
    if (section !== state.section) {
      pages.key = null;       // a list entered from elsewhere starts at its first page
      state.section = section;
    }
    for (const a of document.querySelectorAll('[data-nav]')) {
      a.classList.toggle('active', a.getAttribute('data-nav') === section);
    }
    let view;
    if (!isAdmin() && !((section === 'jobs' || section === 'batches') && parts[1])) {
      // the overview, lists and schedules need the admin role: say so without asking the broker
      page(TITLES[section] || 'Queues');
      renderError(new ApiError(403, { title: 'Forbidden', detail: 'This needs the admin role; the key \''
          + state.me.name + '\' has ' + state.me.roles.slice().sort().join('+') + '.' }));
      return;
    }
    if (section === 'jobs' && parts[1]) {
      view = viewJob(gen, parts[1]);
    } else if (section === 'jobs') {
      view = viewJobs(gen, params);
    } else if (section === 'dead') {
      view = viewDead(gen, params);
    } else if (section === 'schedules') {
      view = viewSchedules(gen, params);
    } else if (section === 'batches' && parts[1]) {
      view = viewBatch(gen, parts[1]);
    } else if (section === 'batches') {
      view = viewBatches(gen);
    } else if (section === 'queues' && parts[1] && parts[2] === 'keys') {
      view = viewQueueKeys(gen, decodeURIComponent(parts[1]));
    } else {
      view = viewQueues(gen);
    }
    Promise.resolve(view).catch((e) => {
      if (gen === state.generation && e && e.status !== undefined) {
        renderError(e);
      }
    });
  }

  // ---- start ------------------------------------------------------------------------------------

  async function start() {
    $('login-form').addEventListener('submit', async (ev) => {
      ev.preventDefault();
      const input = $('login-key');
      const key = input.value.trim();
      input.value = '';
      $('login-submit').disabled = true;
      try {
        await login(key);
        showApp();
        go(location.hash && location.hash !== '#' ? location.hash : '#/queues');
      } catch (e) {
        showLogin(e.status === 401 ? 'This key was not accepted.' : ((e.problem && e.problem.detail) || e.message));
      } finally {
        $('login-submit').disabled = false;
      }
    });
    $('logout').addEventListener('click', () => logout(''));
    $('find').addEventListener('submit', (ev) => {
      ev.preventDefault();
      const id = $('find-id').value.trim();
      $('find-id').value = '';
      if (/^[0-9]+$/.test(id)) {
        go('#/jobs/' + id);
      }
    });
    window.addEventListener('hashchange', route);

    const key = sessionStorage.getItem(KEY);
    try {
      // With a stored key, or with authentication off, GET /me answers without a login; without
      // a key, ask first (GET /ui/auth needs none) so that no call is refused for want of one.
      const open = key ? null : await fetch(BASE + '/ui/auth', { cache: 'no-store', credentials: 'omit' })
          .then((r) => (r.ok ? r.json() : { authEnabled: true }));
      state.me = key || !open.authEnabled ? await api('GET', '/me', undefined, { quiet: true }) : null;
    } catch (e) {
      state.me = null;
    }
    if (state.me) {
      showApp();
      route();
    } else {
      sessionStorage.removeItem(KEY);
      showLogin('');
    }
  }

  start();
})();
