import { rmSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { writeFile } from '../../helpers/ascode.js';
import { runInProcess, useTempDirs } from '../../helpers/context.js';
import { hostileEnv, useHostileServer } from '../../helpers/hostile.js';
import { useSandboxContext } from '../../helpers/sandbox.js';
import { useTempDir } from '../../helpers/temp.js';

// s18 mask18 #1: a webhook URL that does not parse (a port out of range, a space in its host, a
// backslash before a bad port) kept its query secrets wherever it was a label. Such a URL reaches
// a label where svc refuses it (an access file, --url) and where a server that is not the sandbox
// returns one (the sandbox stores only what parses): each shows it masked.
const svc = useSandboxContext({ users: 5 }, { tenant: false });
const server = useHostileServer();
const dirs = useTempDirs();
const dir = useTempDir('svc-unparsed-url-');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const BAD = [
  [
    'https://h.example:99999/x?token=SECRETVALUE1&a=1',
    'https://h.example:99999/x?token=[redacted]&a=[redacted]',
  ],
  ['https://hooks example.com/x?sig=SECRETVALUE1', 'https://hooks example.com/x?sig=[redacted]'],
  ['https://h.example:99999\\x?q=SECRETVALUE1', 'https://h.example:99999\\x?q=[redacted]'],
];

describe('a webhook URL that does not parse', () => {
  it.each(BAD)('%s: refused in an access file, named masked', async (url, masked) => {
    const file = writeFile(
      dir,
      'bad.yaml',
      `version: 1\nblocks:\n  - tenants: acme-labs\n    webhooks:\n      - url: ${JSON.stringify(url)}\n        event_types: [exception.created]\n`,
    );
    const r = await svc.run(['plan', '-f', file]);
    expect([r.code, r.stdout]).toEqual([2, '']);
    expect(r.stderr.split('\n')[0]).toBe(
      `${file}:5: "url" ${JSON.stringify(masked)} is not a URL (e.g. https://hooks.example.com/svc)`,
    );
    expect(r.stderr).not.toContain('SECRETVALUE1');
  });

  it.each(BAD)('%s: refused by webhooks create --url, named masked', async (url, masked) => {
    const r = await svc.run([
      'webhooks',
      'create',
      '--tenant',
      'acme-labs',
      '--url',
      url,
      '--event-type',
      'exception.created',
    ]);
    expect([r.code, r.stdout, r.stderr]).toEqual([
      2,
      '',
      `error: --url ${JSON.stringify(masked)} is not an absolute http(s) URL; for example https://hooks.example.com/svc\n`,
    ]);
  });

  it.each(BAD)('%s: a server that returns one; webhooks delete names it masked', async (url, masked) => {
    const s = await server();
    s.answer((req, res) => {
      const body =
        req.method === 'DELETE'
          ? { id: 'wh_1', deleted: true, deleted_at: '2026-01-01T00:00:00Z' }
          : req.url?.includes('/dlq')
            ? { items: [], total: 0, next_cursor: null }
            : { id: 'wh_1', url, event_types: ['exception.created'], status: 'enabled', max_attempts: 5 };
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    });
    const r = await runInProcess(['webhooks', 'delete', 'wh_1', '--yes'], { ...dirs(), ...hostileEnv(s) });
    expect([r.code, r.stdout], r.stderr).toEqual([0, '']);
    expect(r.stderr).toContain(`deleted webhook wh_1 (${masked}) in 00000000-0000-4000-8000-000000000001`);
    expect(r.stderr).not.toContain('SECRETVALUE1');
  });
});
