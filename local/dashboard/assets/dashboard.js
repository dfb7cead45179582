// The local dashboard's only script (served from /dashboard/assets: the CSP runs no inline script).
// Pages work without it; it adds the live parts: new events, refreshed deliveries, the buttons, the chart.
const base = document.body.dataset.base;

async function post(path, body) {
  const response = await fetch(path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const answer = await response.json().catch(() => ({}));
  if (!response.ok) throw new Error(answer.error?.message ?? `HTTP ${response.status}`);
  return answer;
}

function say(element, text, failed = false) {
  if (!element) return;
  element.textContent = text;
  element.classList.toggle('error', failed);
}

// Events: poll the feed and add the rows the page lacks, newest at the top.
const live = document.getElementById('live-status');
if (live) {
  const tables = { snapshot: document.querySelector('#snapshot-events tbody'), thin: document.querySelector('#thin-events tbody') };
  const poll = async () => {
    try {
      const response = await fetch(live.dataset.feed, { headers: { accept: 'application/json' } });
      if (!response.ok) throw new Error(`HTTP ${response.status}`);
      const feed = await response.json();
      for (const kind of ['snapshot', 'thin']) {
        const body = tables[kind];
        for (const row of [...feed[kind]].reverse()) {
          if (body.querySelector(`tr[data-id="${CSS.escape(row.id)}"]`)) continue;
          body.insertAdjacentHTML('afterbegin', row.html);
          body.firstElementChild.classList.add('new');
          body.closest('section').querySelector('.empty')?.remove();
        }
      }
      say(live, `Auto-refresh on · updated ${new Date().toLocaleTimeString()}`);
    } catch (error) {
      say(live, `Paused: ${error.message}`, true);
    }
  };
  setInterval(poll, 1500);
}

// An event's deliveries: refreshed every two seconds, keeping open attempt lists open.
const deliveries = document.getElementById('event-deliveries');
if (deliveries) {
  setInterval(async () => {
    const open = [...deliveries.querySelectorAll('tr[data-delivery] details[open]')].map((details) => details.closest('tr').dataset.delivery);
    const response = await fetch(deliveries.dataset.refresh).catch(() => undefined);
    if (!response?.ok) return;
    deliveries.innerHTML = await response.text();
    for (const id of open) deliveries.querySelector(`tr[data-delivery="${CSS.escape(id)}"] details`)?.setAttribute('open', '');
  }, 2000);
}

document.addEventListener('click', async (click) => {
  const button = click.target.closest('button');
  if (!button) return;
  if (button.classList.contains('resend')) {
    const result = document.getElementById('resend-result');
    button.disabled = true;
    try {
      const delivery = await post(`${base}/actions/resend`, {
        event: button.dataset.event,
        destination_type: button.dataset.destinationType,
        destination: button.dataset.destination,
      });
      say(result, `Sent again to ${delivery.destination.id}: delivery ${delivery.id} is ${delivery.status}.`);
      // A destination's page lists its deliveries without refreshing them: show the new one once it was sent.
      if (document.getElementById('target-deliveries')) setTimeout(() => location.reload(), 1500);
    } catch (error) {
      say(result, `Not sent: ${error.message}`, true);
    } finally {
      button.disabled = false;
    }
  } else if (button.classList.contains('change-destination')) {
    const { destination, change } = button.dataset;
    const result = document.getElementById('change-result');
    if (change === 'delete' && !window.confirm(`Delete ${destination}? It stops receiving events, and this cannot be undone.`)) return;
    button.disabled = true;
    try {
      await post(`${base}/actions/change-destination`, { destination, change });
      say(result, `${destination}: ${change === 'delete' ? 'deleted' : `${change}d`}.`);
      // Deleted from its own page: back to the list.
      if (change === 'delete' && document.getElementById('manage')) location.assign(`${base}/deliveries`);
      else location.reload();
    } catch (error) {
      say(result, `Not changed: ${error.message}`, true);
      button.disabled = false;
    }
  } else if (button.classList.contains('reveal')) {
    const code = document.getElementById(button.getAttribute('aria-controls'));
    if (button.dataset.masked) {
      code.textContent = button.dataset.masked;
      delete button.dataset.masked;
      button.textContent = 'Reveal';
      return;
    }
    try {
      const { secret_key: key } = await post(`${base}/actions/reveal-key`, { mode: button.dataset.mode });
      button.dataset.masked = code.textContent;
      code.textContent = key;
      button.textContent = 'Hide';
    } catch (error) {
      button.textContent = `Reveal (failed: ${error.message})`;
    }
  } else if (button.classList.contains('account-link')) {
    const result = document.querySelector(`[data-result-for="${CSS.escape(button.dataset.account)}"]`);
    try {
      const link = await post(`${base}/actions/account-link`, { account: button.dataset.account });
      say(result, `Link created (expires ${link.expires_at}); opening the hosted onboarding page…`);
      window.open(link.url, '_blank', 'noopener');
    } catch (error) {
      say(result, `No link: ${error.message}`, true);
    }
  } else if (button.dataset.advance) {
    moveClock(button.dataset.advance);
  } else if (button.dataset.testClockAdvance) {
    const result = document.getElementById('test-clock-result');
    button.disabled = true;
    try {
      const clock = await post(`${base}/actions/test-clock`, { clock: button.dataset.testClock, advance: button.dataset.testClockAdvance });
      say(result, `${clock.id} is ${clock.status}; reloading when it is ready…`);
      setTimeout(() => location.reload(), 1500);
    } catch (error) {
      say(result, `Not advanced: ${error.message}`, true);
      button.disabled = false;
    }
  } else if (button.id === 'test-clock-create') {
    const result = document.getElementById('test-clock-result');
    try {
      const clock = await post(`${base}/actions/test-clock`, { create: true });
      say(result, `Created ${clock.id}.`);
      setTimeout(() => location.reload(), 500);
    } catch (error) {
      say(result, `Not created: ${error.message}`, true);
    }
  }
});

async function moveClock(advance) {
  const result = document.getElementById('clock-result');
  say(result, `Advancing by ${advance} and waiting for what became due…`);
  try {
    const clock = await post(`${base}/actions/clock`, { advance });
    say(result, `The clock is now ${clock.iso} (${clock.offset_seconds} s ahead).`);
    setTimeout(() => location.reload(), 800);
  } catch (error) {
    say(result, `Not moved: ${error.message}`, true);
  }
}

document.getElementById('clock-form')?.addEventListener('submit', (submit) => {
  submit.preventDefault();
  moveClock(document.getElementById('clock-advance').value.trim());
});

// Creating a v1 endpoint or a v2 destination: its signing secret is in the create answer only, so it is shown here once.
for (const form of document.querySelectorAll('#create-endpoint-form, #create-destination-form')) {
  form.addEventListener('submit', async (submit) => {
    submit.preventDefault();
    const result = document.getElementById('create-result');
    const fields = Object.fromEntries(new FormData(form));
    try {
      const created = await post(`${base}/actions/create-destination`, { kind: form.dataset.kind, ...fields });
      say(result, `Created ${created.id}. Reload the page to see it in the list.`);
      document.getElementById('created-id').textContent = created.id;
      document.getElementById('created-secret-value').textContent = created.secret ?? '(none)';
      document.getElementById('created-secret').hidden = false;
      form.reset();
    } catch (error) {
      say(result, `Not created: ${error.message}`, true);
    }
  });
}

document.getElementById('add-platform-form')?.addEventListener('submit', async (submit) => {
  submit.preventDefault();
  const input = document.getElementById('add-platform-key');
  try {
    const added = await post('/dashboard/platforms', { secret_key: input.value.trim() });
    input.value = '';
    location.assign(added.url);
  } catch (error) {
    say(document.getElementById('add-platform-result'), error.message, true);
  }
});

// The usage chart: Chart.js, loaded from this server (the copy in node_modules) only on the pages that chart.
const usage = document.getElementById('usage-data');
if (usage) {
  const data = JSON.parse(usage.textContent);
  const script = document.createElement('script');
  script.src = '/dashboard/assets/chart.umd.min.js';
  script.addEventListener('load', () => {
    new window.Chart(document.getElementById('usage-chart'), {
      type: 'bar',
      data: { labels: data.labels, datasets: [{ label: `${data.meter} (${data.customer})`, data: data.values, backgroundColor: '#635bff' }] },
      options: { animation: false, responsive: true, maintainAspectRatio: false, scales: { y: { beginAtZero: true } }, plugins: { legend: { display: false } } },
    });
  });
  document.head.append(script);
}
