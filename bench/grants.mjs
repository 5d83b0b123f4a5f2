// Issue 4: 10,000 role grants from one file with `svc roles assign --file` against the same
// rows sent by `xargs -P 8` running one `curl` per row, both against one sandbox in its own
// process; peak RSS of svc by GNU time.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { peakRss, SVC, sandboxEnv, startSandboxProcess } from './lib.mjs';

const user = (i) => `usr_bulk_${String(i).padStart(6, '0')}`;

async function assignments(sandbox, role) {
  const response = await fetch(
    `${sandbox.url}/_sandbox/assignments?tenant_id=${sandbox.tenant}&role_id=${role}`,
  );
  return (await response.json()).total;
}

export default async function grants({ rows = 10_000 } = {}) {
  for (const tool of ['curl', 'xargs']) {
    if (spawnSync(tool, ['--version'], { stdio: 'ignore' }).status !== 0)
      throw new Error(`${tool} is needed`);
  }
  // Fresh users without roles: each run grants a role nobody holds yet, so both really grant.
  const sandbox = await startSandboxProcess(['--users', String(rows)]);
  const dir = mkdtempSync(join(tmpdir(), 'svc-bench-grants-'));
  try {
    const env = sandboxEnv(sandbox, {
      SVC_STATE_DIR: join(dir, 'state'),
    });
    const expiresAt = new Date(Date.now() + 7 * 86_400_000).toISOString().replace(/\.\d{3}Z$/, 'Z');

    // xargs -P 8 + curl: one process per row, the same rows with another built-in role.
    const curlArgs = join(dir, 'curl-args.txt');
    const lines = [];
    for (let i = 1; i <= rows; i++) {
      const body = {
        role_id: 'tenant_viewer',
        expires_at: expiresAt,
        justification: 'bench',
        idempotency_key: `curl-${i}`,
      };
      lines.push(`--url ${sandbox.url}/v1/users/${user(i)}/roles --data '${JSON.stringify(body)}'`);
    }
    writeFileSync(curlArgs, `${lines.join('\n')}\n`);
    const viewerBefore = await assignments(sandbox, 'tenant_viewer');
    const script =
      `xargs -P 8 -L 1 curl -sS -o /dev/null -w '%{http_code}\\n' -H 'authorization: Bearer ${sandbox.admin_token}' ` +
      `-H 'x-tenant-id: ${sandbox.tenant}' -H 'content-type: application/json' < '${curlArgs}'`;
    const started = process.hrtime.bigint();
    const curl = spawnSync('bash', ['-c', script], { encoding: 'utf8', maxBuffer: 1 << 26 });
    const curlSeconds = Number(process.hrtime.bigint() - started) / 1e9;
    const created = curl.stdout.split('\n').filter((s) => s === '201').length;
    if (curl.status !== 0 || created !== rows)
      throw new Error(`curl run: ${created} of ${rows} answered 201; ${curl.stderr}`);
    const curlMade = (await assignments(sandbox, 'tenant_viewer')) - viewerBefore;

    // svc: the same rows as a CSV file.
    const csv = join(dir, 'grants.csv');
    const body = Array.from({ length: rows }, (_, i) => `${user(i + 1)},tenant_analyst,7d,bench`);
    writeFileSync(csv, `user,role,expires_in,justification\n${body.join('\n')}\n`);
    const analystBefore = await assignments(sandbox, 'tenant_analyst');
    const { mb, seconds } = peakRss([...SVC, 'roles', 'assign', '--file', csv, '--ndjson'], env);
    const svcMade = (await assignments(sandbox, 'tenant_analyst')) - analystBefore;

    const ratio = curlSeconds / seconds;
    const n = rows.toLocaleString('en');
    const rate = (s) => Math.round(rows / s).toLocaleString('en');
    return {
      title: 'Bulk role grants (issue 4)',
      what: `${n} grants from one CSV file with \`svc roles assign --file grants.csv --ndjson\` (concurrency 8, one keep-alive pool, journal, idempotency keys) against the same ${n} rows (another role, so both grant) sent by \`xargs -P 8 -L 1 curl\`, one process per row, against the same sandbox in its own process. Peak RSS of svc from GNU time.`,
      rows: [
        {
          metric: `svc, ${n} grants`,
          value: `${seconds.toFixed(2)} s (${rate(seconds)}/s)`,
          target: 'informational',
        },
        {
          metric: `xargs -P 8 curl, ${n} grants`,
          value: `${curlSeconds.toFixed(2)} s (${rate(curlSeconds)}/s)`,
          target: 'informational',
        },
        {
          metric: 'svc speed-up over xargs + curl',
          value: `${ratio.toFixed(1)}×`,
          target: '≥ 3×',
          pass: ratio >= 3,
        },
        { metric: 'peak RSS of svc', value: `${mb.toFixed(1)} MB`, target: '≤ 150 MB', pass: mb <= 150 },
        {
          metric: 'assignments made (svc / curl)',
          value: `${svcMade.toLocaleString('en')} / ${curlMade.toLocaleString('en')}`,
          target: `${n} / ${n}`,
          pass: svcMade === rows && curlMade === rows,
        },
      ],
    };
  } finally {
    await sandbox.stop();
  }
}
