// Review s13 http #2: one ~50 MB answer (256k records, each with numbers a double writes
// otherwise: 100.50, 1.000000000000000001) through `svc api` (prints the text as it came),
// `svc api --paginate` and `svc records ls --json` (print each number as it came), peak RSS and
// wall time from GNU time. SVC_BENCH_BIN=/other/bin/svc.js measures another build the same way.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SVC } from './lib.mjs';

function body(bytes) {
  const items = [];
  let size = 0;
  for (let i = 0; size < bytes; i++) {
    const item = `{"id":"rec_${i}","amount":${i % 1000}.50,"rate":1.000000000000000001,"ref":9007199254740992,"note":"n${i}","created_at":"2026-01-01T00:00:00Z","updated_at":"2026-01-01T00:00:00Z","soft_delete":false}`;
    items.push(item);
    size += item.length + 1;
  }
  return { count: items.length, text: Buffer.from(`{"items":[${items.join(',')}],"next_cursor":null}`) };
}

export default async function bigAnswer({ bytes = 50_000_000 } = {}) {
  const { count, text } = body(bytes);
  const server = createServer((_req, res) => {
    res.setHeader('content-type', 'application/json');
    res.end(text);
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const dir = mkdtempSync(join(tmpdir(), 'svc-bench-big-'));
  const env = {
    ...process.env,
    SVC_CONFIG_DIR: join(dir, 'config'),
    SVC_STATE_DIR: join(dir, 'state'),
    SVC_CACHE_DIR: join(dir, 'cache'),
    SVC_BASE_URL: `http://127.0.0.1:${server.address().port}`,
    SVC_TOKEN: 't',
    SVC_TENANT: '8ab23c1d-a27b-565a-ad8f-983ecf5fe016',
  };
  const svc = process.env.SVC_BENCH_BIN ? [process.execPath, process.env.SVC_BENCH_BIN] : SVC;
  const runs = {
    'svc api': ['api', '/v1/reconciliations'],
    'svc api --paginate': ['api', '/v1/reconciliations', '--paginate'],
    'svc records ls --json': ['records', 'ls', 'reconciliations', '--json'],
  };
  const rows = [];
  try {
    for (const [name, args] of Object.entries(runs)) {
      // GNU time in a child, waited for without blocking: this process serves the answer.
      const { mb, seconds } = await peakRssAsync(svc, args, env);
      rows.push({
        metric: name,
        value: `${seconds.toFixed(1)} s, ${mb.toFixed(0)} MB peak`,
        target: 'informational',
      });
    }
  } finally {
    server.close();
    rmSync(dir, { recursive: true, force: true });
  }
  return {
    title: 'One large answer (review s13 http #2)',
    what: `${(text.length / 1e6).toFixed(1)} MB, ${count.toLocaleString('en')} records with numbers a double writes otherwise, stdout to /dev/null.`,
    rows,
  };
}

/** peakRss, but without blocking this process's server (spawnSync would). */
async function peakRssAsync(svc, args, env) {
  return new Promise((resolve, reject) => {
    const child = spawn('/usr/bin/time', ['-f', '%M %e', ...svc, ...args], {
      env,
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let err = '';
    child.stderr.on('data', (d) => {
      err += d;
    });
    child.on('close', (code) => {
      if (code !== 0) return reject(new Error(`${args.join(' ')} exited ${code}: ${err.slice(-500)}`));
      const [kb, seconds] = err.trim().split('\n').at(-1).split(' ').map(Number);
      resolve({ mb: kb / 1024, seconds });
    });
  });
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const section = await bigAnswer();
  for (const r of section.rows) process.stdout.write(`${r.metric}: ${r.value}\n`);
}
