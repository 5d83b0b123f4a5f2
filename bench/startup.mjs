// Issue 2: start-up of svc against `node -e 0`, median of interleaved runs in one session.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { interleaved, SVC, sandboxEnv, startSandboxProcess } from './lib.mjs';

export default async function startup({ runs = 30 } = {}) {
  const sandbox = await startSandboxProcess();
  try {
    const env = sandboxEnv(sandbox, {
      // A fresh code cache: the warm-up rounds write it, as a user's first runs would.
      SVC_CACHE_DIR: mkdtempSync(join(tmpdir(), 'svc-bench-cache-')),
    });
    const m = interleaved(
      {
        'node -e 0': [process.execPath, '-e', '0'],
        'svc --version': [...SVC, '--version'],
        'svc --help': [...SVC, '--help'],
        'svc tenants ls': [...SVC, 'tenants', 'ls'],
        'svc tenants ls (no code cache)': {
          argv: [...SVC, 'tenants', 'ls'],
          env: { SVC_NO_CODE_CACHE: '1' },
        },
      },
      { runs, warmup: 3, env },
    );
    const base = m['node -e 0'].median;
    const ratio = (name) => m[name].median / base;
    const row = (name, target) => ({
      metric: name,
      value: `${m[name].median.toFixed(1)} ms (${ratio(name).toFixed(2)}×)`,
      target: target === undefined ? 'informational' : `≤ ${target}×`,
      pass: target === undefined ? undefined : ratio(name) <= target,
    });
    return {
      title: 'Start-up (issue 2)',
      what: `Wall time, median of ${runs} interleaved runs after 3 warm-up rounds; ratios against \`node -e 0\` measured in the same run. \`svc tenants ls\` talks to a sandbox in another process on loopback.`,
      rows: [
        { metric: 'node -e 0', value: `${base.toFixed(1)} ms`, target: 'baseline' },
        row('svc --version', 1.1),
        row('svc --help', 1.35),
        row('svc tenants ls', 1.8),
        row('svc tenants ls (no code cache)'),
      ],
    };
  } finally {
    await sandbox.stop();
  }
}
