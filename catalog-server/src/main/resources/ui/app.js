// The Lakestream web console: plain JS over /ui/api, no build step.
'use strict';

const state = { token: sessionStorage.getItem('lakestream-token'), tailTimer: null, chart: null };

function esc(value) {
  return String(value ?? '').replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }[c]));
}

function time(ms) {
  return ms == null ? '—' : new Date(ms).toISOString().replace('T', ' ').replace('Z', ' UTC');
}

function bytes(n) {
  if (n == null) return '—';
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let i = 0;
  while (n >= 1024 && i < units.length - 1) { n /= 1024; i++; }
  return (i === 0 ? n : n.toFixed(1)) + ' ' + units[i];
}

async function api(path, options = {}) {
  const headers = Object.assign({}, options.headers || {});
  if (state.token) headers.Authorization = 'Bearer ' + state.token;
  const response = await fetch('/ui/api/' + path, Object.assign({}, options, { headers }));
  if (response.status === 401) {
    showLogin('Please sign in');
    throw new Error('Not signed in');
  }
  const body = await response.json();
  if (!response.ok) throw new Error(body.message || ('HTTP ' + response.status));
  return body;
}

function showLogin(message) {
  document.getElementById('login').hidden = false;
  document.getElementById('view').innerHTML = '';
  document.getElementById('login-error').textContent = message || '';
}

async function login(event) {
  event.preventDefault();
  const id = document.getElementById('client-id').value;
  const secret = document.getElementById('client-secret').value;
  const token = document.getElementById('token').value;
  try {
    if (token) {
      state.token = token;
    } else {
      const form = new URLSearchParams({ grant_type: 'client_credentials', client_id: id, client_secret: secret, scope: 'catalog' });
      const response = await fetch('/v1/oauth/tokens', { method: 'POST', body: form, headers: { 'Content-Type': 'application/x-www-form-urlencoded' } });
      const body = await response.json();
      if (!response.ok) throw new Error(body.error_description || body.error || 'Sign-in failed');
      state.token = body.access_token;
    }
    sessionStorage.setItem('lakestream-token', state.token);
    document.getElementById('login-form').reset();
    document.getElementById('login').hidden = true;
    document.getElementById('who').textContent = id ? 'signed in as ' + id : 'signed in';
    route();
  } catch (e) {
    state.token = null;
    document.getElementById('login-error').textContent = e.message;
  }
}

function stopTimers() {
  if (state.tailTimer) clearInterval(state.tailTimer);
  state.tailTimer = null;
  if (state.chart) state.chart.destroy();
  state.chart = null;
}

async function overview() {
  const view = document.getElementById('view');
  // Pages of tables (the server summarizes at most a page at a time), merged by namespace.
  const namespaces = [];
  let token = null;
  function render() {
    let html = '<h1>Tables</h1>';
    if (namespaces.length === 0) html += '<p class="muted">No namespaces you may read.</p>';
    for (const ns of namespaces) {
      html += `<h2 class="namespace" data-namespace="${esc(ns.namespace)}">${esc(ns.namespace)}</h2>`;
      html += '<table><tr><th>Table</th><th>Kind</th><th>Rows</th><th>Lag</th><th>Freshness</th><th>Lake size</th></tr>';
      for (const t of ns.tables) {
        const link = `#/table/${encodeURIComponent(ns.namespace)}/${encodeURIComponent(t.name)}`;
        html += `<tr><td><a class="table-link" id="link-${esc(ns.namespace)}.${esc(t.name)}" href="${link}">${esc(t.name)}</a></td>` +
          `<td>${esc(t.kind)}</td><td class="num rows">${esc(t.rows)}</td><td class="num lag">${esc(t.lag ?? '—')}</td><td>${esc(time(t['freshness-ms']))}</td><td class="num">${esc(bytes(t['lake-size-bytes']))}</td></tr>`;
      }
      html += '</table>';
    }
    if (token) html += '<p><button id="more-tables">More tables</button></p>';
    view.innerHTML = html;
    if (token) document.getElementById('more-tables').addEventListener('click', more);
  }
  async function more() {
    const data = await api('tables' + (token ? `?page-token=${encodeURIComponent(token)}` : ''));
    for (const ns of data.namespaces) {
      const previous = namespaces[namespaces.length - 1];
      if (previous && previous.warehouse === ns.warehouse && previous.namespace === ns.namespace) {
        previous.tables.push(...ns.tables);
      } else {
        namespaces.push(ns);
      }
    }
    token = data['next-page-token'] || null;
    render();
  }
  await more();
}

function bucketsTable(buckets) {
  return '<table><tr><th>Partition</th><th>Bucket</th><th>Earliest</th><th>Latest</th><th>Tiered</th><th>Lag</th></tr>' +
    (buckets || []).map((b) => `<tr><td>${esc(b.partition || '—')}</td><td>${b.bucket}</td><td class="num">${b['earliest-offset']}</td><td class="num">${b['latest-offset']}</td><td class="num">${b['tiered-offset']}</td><td class="num">${b.lag}</td></tr>`).join('') + '</table>';
}

async function tablePage(namespace, name) {
  const view = document.getElementById('view');
  const q = 'namespace=' + encodeURIComponent(namespace) + '&table=' + encodeURIComponent(name);
  const t = await api('table?' + q);
  let html = `<h1>${esc(namespace)}.${esc(name)}</h1>`;
  html += `<p>Kind <b>${esc(t.kind)}</b> · rows <b id="table-rows">${esc(t.rows)}</b> · lag <b id="table-lag">${esc(t.lag ?? '—')}</b> · freshness ${esc(time(t['freshness-ms']))}</p>`;
  html += '<h2>Schema</h2><table><tr><th>Id</th><th>Column</th><th>Type</th><th>Required</th></tr>' +
    t.schema.map((c) => `<tr><td>${c.id}</td><td>${esc(c.name)}</td><td>${esc(c.type)}</td><td>${c.required}</td></tr>`).join('') + '</table>';
  html += '<h2>Buckets</h2><div id="buckets">' + bucketsTable(t.buckets) + '</div>';
  html += '<h2>Tiering rounds</h2><div class="chart"><canvas id="tiering-chart"></canvas></div>';
  if (t.tiering.length === 0) html += '<p class="muted">No tiering rounds yet.</p>';
  html += '<h2>Live tail</h2><div id="tail"><p class="muted">Loading…</p></div>';
  html += '<h2>Snapshots</h2><table><tr><th>Id</th><th>Time</th><th>Operation</th><th>Summary</th></tr>' +
    t.snapshots.slice().reverse().map((s) => `<tr><td>${s['snapshot-id']}</td><td>${esc(time(s['timestamp-ms']))}</td><td>${esc(s.operation)}</td><td>${esc(Object.entries(s.summary).map(([k, v]) => k + '=' + v).join(', '))}</td></tr>`).join('') + '</table>';
  html += '<h2>Properties</h2><table>' + Object.entries(t.properties).map(([k, v]) => `<tr><td>${esc(k)}</td><td>${esc(v)}</td></tr>`).join('') + '</table>';
  view.innerHTML = html;
  if (window.Chart) {
    state.chart = new Chart(document.getElementById('tiering-chart'), {
      type: 'bar',
      data: { labels: t.tiering.map((r) => time(r['timestamp-ms'])), datasets: [{ label: 'rows tiered per round', data: t.tiering.map((r) => r.rows), backgroundColor: '#3b6fd4' }] },
      options: { maintainAspectRatio: false, animation: false },
    });
  }
  if (t.kind === 'iceberg') {
    document.getElementById('tail').innerHTML = '<p class="muted">Not a streaming table.</p>';
    return;
  }
  const refresh = async () => {
    try {
      const [summary, tail] = await Promise.all([api('table?' + q), api('tail?' + q + '&limit=20')]);
      const rows = document.getElementById('table-rows');
      if (!rows) return;
      rows.textContent = summary.rows;
      document.getElementById('table-lag').textContent = summary.lag ?? '—';
      document.getElementById('buckets').innerHTML = bucketsTable(summary.buckets);
      document.getElementById('tail').innerHTML = '<table><tr><th>Bucket</th><th>Offset</th><th>Change</th>' +
        tail.columns.map((c) => `<th>${esc(c)}</th>`).join('') + '</tr>' +
        tail.rows.map((r) => `<tr><td>${r.bucket}</td><td class="num">${r.offset}</td><td>${esc(r.change)}</td>` + r.values.map((v) => `<td>${esc(v)}</td>`).join('') + '</tr>').join('') + '</table>';
    } catch (e) {
      const tail = document.getElementById('tail');
      if (tail) tail.innerHTML = `<p class="error">${esc(e.message)}</p>`;
    }
  };
  await refresh();
  state.tailTimer = setInterval(refresh, 1000);
}

function sqlPage() {
  const view = document.getElementById('view');
  view.innerHTML = '<h1>SQL</h1><textarea id="sql-text" spellcheck="false">SELECT 1</textarea><br>' +
    '<button id="sql-run">Run</button> <span id="sql-status" class="muted"></span>' +
    '<p id="sql-error" class="error"></p><div id="sql-result"></div>';
  document.getElementById('sql-run').addEventListener('click', async () => {
    const status = document.getElementById('sql-status');
    document.getElementById('sql-error').textContent = '';
    document.getElementById('sql-result').innerHTML = '';
    status.textContent = 'running…';
    const started = performance.now();
    try {
      const r = await api('sql', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ sql: document.getElementById('sql-text').value }) });
      status.textContent = `${r.rows.length} rows${r.truncated ? ' (truncated)' : ''} in ${Math.round(performance.now() - started)} ms`;
      document.getElementById('sql-result').innerHTML = '<table id="sql-table"><tr>' + r.columns.map((c) => `<th>${esc(c)}</th>`).join('') + '</tr>' +
        r.rows.map((row) => '<tr>' + row.map((v) => `<td>${esc(v)}</td>`).join('') + '</tr>').join('') + '</table>';
    } catch (e) {
      status.textContent = '';
      document.getElementById('sql-error').textContent = e.message;
    }
  });
}

async function route() {
  stopTimers();
  const hash = location.hash || '#/';
  try {
    if (hash.startsWith('#/table/')) {
      const [namespace, name] = hash.substring('#/table/'.length).split('/').map(decodeURIComponent);
      await tablePage(namespace, name);
    } else if (hash === '#/sql') {
      sqlPage();
    } else {
      await overview();
    }
  } catch (e) {
    if (e.message !== 'Not signed in') {
      document.getElementById('view').innerHTML = `<p class="error">${esc(e.message)}</p>`;
    }
  }
}

document.getElementById('login-form').addEventListener('submit', login);
window.addEventListener('hashchange', route);
route();
