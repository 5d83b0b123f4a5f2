// What `svc tenants ls` needs a process for: a reader that closes the pipe. Every output mode,
// filter, page and error is tested in-process in test/commands/tenants/ls.test.ts.
import { expect, it } from 'vitest';
import { DEMO_ORG } from '../../src/sandbox/seed.js';
import { needs } from '../helpers/needs.js';
import { useSandbox } from '../helpers/sandbox.js';
import { bash, sandboxEnv } from '../helpers/svc.js';

const sandbox = useSandbox({ tenants: 1000 });
const env = sandboxEnv(sandbox, { NO_COLOR: '1' });

needs('bash').describe('svc tenants ls in a pipeline', () => {
  it('ends quietly with exit 0 when the reader closes the pipe', async () => {
    const r = await bash(`svc tenants ls --all --org ${DEMO_ORG} | head -1`, { env });
    expect(r.code).toBe(0);
    expect(r.stdout.split('\n').filter(Boolean)).toHaveLength(1);
    expect(r.stderr).toBe('');
  });
});
