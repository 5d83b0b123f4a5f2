// Issue 11: checking a 1,000,000-row bulk file before anything is sent. svc copies the file once
// and reads it as a stream (rows are checked and released as they go; only each user and role
// seen is kept, to refuse a pair twice), so memory does not grow with the rows. The last row
// names an unknown role: the whole file is read and checked, nothing is sent, and svc exits 2.
// Peak RSS of svc by GNU time.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { peakRss, SVC, sandboxEnv, startSandboxProcess } from './lib.mjs';

export default async function validate({ rows = 1_000_000 } = {}) {
  const sandbox = await startSandboxProcess();
  const dir = mkdtempSync(join(tmpdir(), 'svc-bench-validate-'));
  try {
    const lines = ['user,role,expires_in,justification'];
    for (let i = 1; i < rows; i++) {
      lines.push(`usr_bulk_${String(i).padStart(7, '0')},tenant_viewer,7d,quarterly access review ${i % 97}`);
    }
    lines.push(`usr_bulk_${String(rows).padStart(7, '0')},tenant_veiwer,7d,the one bad row`);
    const csv = join(dir, 'grants.csv');
    writeFileSync(csv, `${lines.join('\n')}\n`);
    const bytes = lines.reduce((sum, l) => sum + l.length + 1, 0);
    const env = sandboxEnv(sandbox, {
      SVC_STATE_DIR: join(dir, 'state'),
    });
    const { mb, seconds } = peakRss([...SVC, 'roles', 'assign', '--file', csv], env, { code: 2 });
    const n = rows.toLocaleString('en');
    return {
      title: 'Checking a bulk file (issue 11)',
      what: `\`svc roles assign --file grants.csv\` over ${n} rows (${(bytes / 1e6).toFixed(0)} MB of CSV) whose last row names an unknown role: every row is read and checked, the one problem reported with its line, nothing sent (exit 2). Peak RSS of svc from GNU time.`,
      rows: [
        { metric: 'peak RSS of svc', value: `${mb.toFixed(1)} MB`, target: '≤ 200 MB', pass: mb <= 200 },
        { metric: `wall time, ${n} rows`, value: `${seconds.toFixed(2)} s`, target: 'informational' },
      ],
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
    await sandbox.stop();
  }
}
