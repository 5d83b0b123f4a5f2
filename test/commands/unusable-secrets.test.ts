// A secret answer svc cannot use (blank, padded, masked, a bare prefix, a control or invisible
// character) is neither written as the secret nor shown as one, and never gets ✓ (attack27a F1).
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ACME, bulkRunner } from '../helpers/bulk.js';
import { useReshapingProxy } from '../helpers/reshaping-proxy.js';
import { useSandbox } from '../helpers/sandbox.js';
import { admin } from '../helpers/webhooks.js';

const sandbox = useSandbox({ users: 1 });
const svc = bulkRunner(sandbox);
const proxy = useReshapingProxy(sandbox);
let n = 0;

/** Runs argv with the POST answer's secret field set to `value`. */
async function answered(argv: string[], value: unknown) {
  proxy().reshape((a) => {
    if (a.method !== 'POST' || a.status >= 300) return;
    const body = a.body as Record<string, unknown>;
    for (const k of ['secret', 'client_secret', 'key']) if (typeof body?.[k] === 'string') body[k] = value;
  });
  try {
    return await svc.run(argv, { env: { SVC_BASE_URL: proxy().url, SVC_MAX_RETRIES: '0' } });
  } finally {
    proxy().reshape(undefined);
  }
}

const webhook = async () =>
  (
    await admin(sandbox(), 'POST', '/v1/webhooks', {
      url: 'https://example.com/r',
      event_types: ['exception.sla.breached'],
    })
  ).body.id as string;
const client = async () =>
  (
    await admin(sandbox(), 'POST', '/v1/oauth/clients', {
      name: `g${++n}`,
      redirect_uris: ['http://127.0.0.1:8080/cb'],
      scopes: ['read:exceptions'],
    })
  ).body.client_id as string;

describe('a secret answer svc cannot use', () => {
  it.each([
    [' ', 'it is blank'],
    [' whsec_abcdefghijklmnopqrstuvwxyz012345 ', 'it holds a space (U+0020) at 1'],
    ['***', 'it is masked (only "*")'],
    ['REDACTED', 'it is a mask word, not a secret'],
    [`whsec_${'*'.repeat(40)}`, 'it is masked (only "*" after whsec_)'],
    ['whsec_', 'it is a prefix with nothing after it'],
    [
      'whsec_abc\u200bdefghijklmnopqrstuvwxyz',
      'it holds an invisible character (U+200B ZERO WIDTH SPACE) at 10',
    ],
    ['whsec_abc\tdefghijklmnopqrstuvwxyz', 'it holds a control character (U+0009) at 10'],
    ['short', 'it has 5 characters, fewer than the 16 of any secret svc can use'],
  ])(
    'oauth rotate-secret --secret-file, client_secret %j: exit 1, no file, no ✓, the truth',
    async (value, why) => {
      const id = await client();
      const file = join(svc.dir, `rot-${++n}`);
      const result = await answered(['oauth', 'rotate-secret', id, '--secret-file', file, '--yes'], value);
      expect(result.code).toBe(1);
      expect(existsSync(file)).toBe(false);
      expect(result.stdout).toBe('');
      expect(result.stderr).not.toContain('✓');
      expect(result.stderr).toBe(
        `error: OAuth client ${id}'s secret was rotated (its old secret stopped working), but the platform answered a client_secret svc cannot use (${why}); nothing was written to ${file}; rotate again with: svc oauth rotate-secret ${id} --secret-file PATH --yes\n`,
      );
    },
  );

  // Each verb, written and shown: the same rule, the same words, nothing printed on stdout.
  const verbs: [string, () => Promise<[argv: string[], made: RegExp, field: string]>][] = [
    [
      'webhooks create',
      async () => [
        ['webhooks', 'create', '--url', 'https://example.com/h', '--event-type', 'exception.sla.breached'],
        /^error: webhook wh_\w+ was created, but/,
        'secret',
      ],
    ],
    [
      'webhooks rotate-secret',
      async () => {
        const id = await webhook();
        return [
          ['webhooks', 'rotate-secret', id, '--yes'],
          new RegExp(
            `^error: webhook ${id}'s signing secret was rotated \\(the previous one signs for 24 hours more\\), but`,
          ),
          'secret',
        ];
      },
    ],
    [
      'oauth create',
      async () => [
        [
          'oauth',
          'create',
          '--name',
          `c${++n}`,
          '--redirect-uri',
          'http://127.0.0.1:8080/cb',
          '--scope',
          'read:exceptions',
        ],
        /^error: OAuth client \S+ was created, but/,
        'client_secret',
      ],
    ],
    [
      'tenants api-keys create',
      async () => [
        [
          'tenants',
          'api-keys',
          'create',
          ACME,
          '--kind',
          'service_role',
          '--name',
          `k${++n}`,
          '--justification',
          'ci pipeline deploys',
        ],
        /^error: service_role API key key_\w+ of tenant \S+ was created, but/,
        'key',
      ],
    ],
  ];
  describe.each(verbs)('%s', (_verb, setUp) => {
    it.each([
      ['--secret-file', 'REDACTED', 'it is a mask word, not a secret'],
      ['--show-secret', 'whsec_abc\tdefghijklmnopqrstuvwxyz', 'it holds a control character (U+0009) at 10'],
      [
        '--show-secret',
        'whsec_abc\u001b[2Jdefghijklmnopqrstuvwxyz',
        'it holds a control character (U+001B) at 10',
      ],
      ['--show-secret', 'whsec_line1\nline2_abcdefghijklmnop', 'it spans several lines'],
      ['--show-secret', '***', 'it is masked (only "*")'],
    ])('%s, answered %j: exit 1, never ✓, nothing shown', async (how, value, why) => {
      const [argv, made, field] = await setUp();
      const file = join(svc.dir, `v-${++n}`);
      const result = await answered([...argv, ...(how === '--secret-file' ? [how, file] : [how])], value);
      expect(result.code).toBe(1);
      expect(result.stdout).toBe('');
      expect(result.stderr).not.toContain('✓');
      expect(existsSync(file)).toBe(false);
      const line = result.stderr.split('\n').find((l) => l.startsWith('error: '))!;
      expect(line).toMatch(made);
      expect(line).toContain(
        `, but the platform answered a ${field} svc cannot use (${why}); ${how === '--secret-file' ? `nothing was written to ${file}` : 'it is not shown'}`,
      );
    });
  });

  it("a usable secret of another form than the sandbox's is taken (16 characters, no prefix)", async () => {
    const id = await client();
    const file = join(svc.dir, `ok-${++n}`);
    const result = await answered(
      ['oauth', 'rotate-secret', id, '--secret-file', file, '--yes'],
      'Abcdefgh12345678',
    );
    expect(result.code, result.stderr).toBe(0);
    expect(readFileSync(file, 'utf8')).toBe('Abcdefgh12345678');
  });
});
