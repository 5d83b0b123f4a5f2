// Issue 2: `svc tenants ls --all --ndjson` over 100,000 tenants, peak RSS.
import { spawnSync } from 'node:child_process';
import { peakRss, SVC, sandboxEnv, startSandboxProcess } from './lib.mjs';

export default async function tenantsAll({ tenants = 100_000 } = {}) {
  const sandbox = await startSandboxProcess(['--tenants', String(tenants)]);
  try {
    const env = sandboxEnv(sandbox);
    const argv = [...SVC, 'tenants', 'ls', '--all', '--ndjson', '--org', 'org_demo'];
    // Count the lines once (correctness), then measure with stdout to /dev/null.
    const listed = spawnSync(argv[0], argv.slice(1), { env, maxBuffer: 1 << 30, encoding: 'utf8' });
    const lines = listed.stdout.split('\n').filter(Boolean).length;
    const { mb, seconds } = peakRss(argv, env);
    const expected = tenants + 5;
    return {
      title: 'Streaming every page (issue 2)',
      what: `\`svc tenants ls --all --ndjson\` (pages as large as the API gives; \`--limit\` is a total since issue 13) over ${expected.toLocaleString('en')} tenants (an org_admin listing the whole organisation), peak RSS from GNU time.`,
      rows: [
        {
          metric: 'tenants streamed',
          value: lines.toLocaleString('en'),
          target: expected.toLocaleString('en'),
          pass: lines === expected,
        },
        { metric: 'peak RSS', value: `${mb.toFixed(1)} MB`, target: '≤ 120 MB', pass: mb <= 120 },
        {
          metric: 'wall time',
          value: `${seconds.toFixed(2)} s (${Math.round(expected / seconds).toLocaleString('en')} tenants/s)`,
          target: 'informational',
        },
      ],
    };
  } finally {
    await sandbox.stop();
  }
}
