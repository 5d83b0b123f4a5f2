import { it } from 'vitest';
import { readFileSync } from 'node:fs';
import { useSandboxContext } from '../helpers/sandbox.js';
const svc = useSandboxContext(JSON.parse(process.env.PROBE_SANDBOX ?? '{}'));
it('probe', async () => {
  const cases = JSON.parse(readFileSync(process.env.PROBE!, 'utf8')) as Array<{ argv: string[]; env?: Record<string, string>; tty?: any; columns?: number; stdin?: string; now?: number }>;
  for (const c of cases) {
    const env: Record<string, string | undefined> = { ...c.env };
    for (const [k, v] of Object.entries(env)) if (v === '<unset>') env[k] = undefined;
    const stdin = c.stdin?.replace("__ADMIN__", svc.sandbox().adminToken);
    const r = await svc.run(c.argv, { env, stdin, tty: c.tty, columns: c.columns, ...(c.now ? { now: c.now } : {}) });
    process.stdout.write(`=== ${JSON.stringify(c.argv)} ${JSON.stringify(c.env ?? {})} tty=${JSON.stringify(c.tty)}\ncode=${r.code}\n--stdout--\n${r.stdout}--stderr--\n${r.stderr}\n`);
  }
}, 120000);
