import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type CutCase, describeCutSweep } from '../helpers/cut-sweep.js';
import { useSandbox } from '../helpers/sandbox.js';

// Ctrl-C at every request of `svc config set tenant` (s15 sweep): it reads the tenants to check
// the name; a cut read writes nothing, and says so only as an interruption.
const sandbox = useSandbox();
let dir = '';
const files = () => {
  const config = join(dir, 'config');
  if (!existsSync(config)) return {};
  return Object.fromEntries(
    readdirSync(config, { recursive: true, withFileTypes: true })
      .filter((f) => f.isFile())
      .map((f) => [f.name, readFileSync(join(f.parentPath, f.name), 'utf8')]),
  );
};
let made = 0;

describeCutSweep('config set', sandbox, (sweep) => {
  dir = sweep.svc.dir;
  return [
    {
      name: 'config set tenant',
      setup: async () => ['-p', `p${++made}`, 'config', 'set', 'tenant', 'acme-treasury'],
      state: async () => files(),
    },
  ] satisfies CutCase[];
});
