// Issue 3: what OAuth credentials cost a command — a stored token, a refresh before expiry,
// and 20 processes sharing one refresh under the credential lock. Informational figures.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { median, SVC, startSandboxProcess, timeOnce } from './lib.mjs';

/** `svc login --no-browser`, approved the way a browser would (consent page → Approve → callback). */
async function login(env) {
  const child = spawn(SVC[0], [SVC[1], 'login', '--no-browser'], {
    env,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  const url = await new Promise((resolve, reject) => {
    child.stderr.on('data', (d) => {
      stderr += d;
      const match = /^ {2}(http\S+\/oauth\/authorize\?\S+)$/m.exec(stderr);
      if (match && stderr.includes('Waiting for the browser')) resolve(match[1]);
    });
    child.on('exit', (code) => reject(new Error(`svc login exited ${code}: ${stderr}`)));
  });
  const html = await (await fetch(url)).text();
  const ticket = /name="ticket" value="([^"]+)"/.exec(html)[1];
  const answer = await fetch(new URL('authorize', url), {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ ticket, user_id: 'usr_admin', decision: 'approve' }).toString(),
  });
  await (await fetch(answer.headers.get('location'))).text();
  const code = await new Promise((resolve) => child.on('close', resolve));
  if (code !== 0) throw new Error(`svc login exited ${code}: ${stderr}`);
}

function expireStoredToken(configDir) {
  const path = join(configDir, 'credentials.json');
  const file = JSON.parse(readFileSync(path, 'utf8'));
  file.profiles.default.expires_at = new Date(Date.now() - 60_000).toISOString();
  writeFileSync(path, JSON.stringify(file), { mode: 0o600 });
}

async function refreshCount(url) {
  const stats = await (await fetch(`${url}/_sandbox/oauth/stats`)).json();
  return stats.grants['refresh_token ok'] ?? 0;
}

function runParallel(n, env) {
  const started = process.hrtime.bigint();
  return Promise.all(
    Array.from(
      { length: n },
      () =>
        new Promise((resolve, reject) => {
          const child = spawn(SVC[0], [SVC[1], 'me'], { env, stdio: 'ignore' });
          child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`svc me exited ${code}`))));
        }),
    ),
  ).then(() => Number(process.hrtime.bigint() - started) / 1e6);
}

export default async function oauthRefresh({ runs = 15, batches = 3 } = {}) {
  const sandbox = await startSandboxProcess();
  try {
    const configDir = join(mkdtempSync(join(tmpdir(), 'svc-bench-oauth-')), 'config');
    const env = {
      ...process.env,
      SVC_CONFIG_DIR: configDir,
      SVC_CACHE_DIR: mkdtempSync(join(tmpdir(), 'svc-bench-cache-')),
      SVC_BASE_URL: sandbox.url,
      SVC_CLIENT_ID: sandbox.client_id ?? 'svc-cli',
    };
    await login(env);
    const me = [...SVC, 'me'];
    for (let i = 0; i < 3; i++) timeOnce(me, env);
    const stored = [];
    const refreshing = [];
    const bearer = [];
    for (let i = 0; i < runs; i++) {
      const token = JSON.parse(readFileSync(join(configDir, 'credentials.json'), 'utf8')).profiles.default
        .access_token;
      bearer.push(timeOnce(me, { ...env, SVC_TOKEN: token }));
      stored.push(timeOnce(me, env));
      expireStoredToken(configDir);
      refreshing.push(timeOnce(me, env));
    }
    const parallel = [];
    let refreshes = 0;
    for (let i = 0; i < batches; i++) {
      expireStoredToken(configDir);
      const before = await refreshCount(sandbox.url);
      parallel.push(await runParallel(20, env));
      refreshes += (await refreshCount(sandbox.url)) - before;
    }
    return {
      title: 'OAuth credentials (issue 3)',
      what: `\`svc me\` against a sandbox in another process, logged in with \`svc login\`: medians of ${runs} interleaved runs; then ${batches} batches of 20 parallel \`svc me\` started together with an expired access token (wall time of the batch, and the refreshes the sandbox counted).`,
      rows: [
        {
          metric: 'svc me, the same token as SVC_TOKEN',
          value: `${median(bearer).toFixed(1)} ms`,
          target: 'informational',
        },
        {
          metric: 'svc me, stored OAuth token',
          value: `${median(stored).toFixed(1)} ms`,
          target: 'informational',
        },
        {
          metric: 'svc me, token refreshed first (lock + token request)',
          value: `${median(refreshing).toFixed(1)} ms`,
          target: 'informational',
        },
        {
          metric: '20 parallel svc me, expired token',
          value: `${median(parallel).toFixed(0)} ms per batch; ${refreshes} refreshes in ${batches} batches`,
          target: `${batches} refreshes (one per batch)`,
          pass: refreshes === batches,
        },
      ],
    };
  } finally {
    await sandbox.stop();
  }
}
