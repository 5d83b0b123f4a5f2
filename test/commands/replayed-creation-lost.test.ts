/**
 * A re-run with the user's own --idempotency-key whose first attempt's answer is lost: the retry
 * gets the platform's stored answer, which may be an earlier run's (src/commands/replayed-creation.ts,
 * `mayBeStale` after a lost answer). The object must be judged as it is now, exactly as when the
 * answer is not lost: deleted or revoked since → exit 5, secret rotated since → exit 6, neither
 * printed nor written; updated since → the object as it is now.
 */
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { virtualClock } from '../helpers/context.js';
import { useLostCreations } from '../helpers/lossy-proxy.js';
import { ACME, advanceClock, useSandboxContext } from '../helpers/sandbox.js';
import { useTempDir } from '../helpers/temp.js';

const svc = useSandboxContext();
const files = useTempDir('svc-replayed-lost-');
afterAll(() => rmSync(files, { recursive: true, force: true }));

const lost = useLostCreations(svc.sandbox);

let runs = 0;
interface Verb {
  path: string;
  argv: (key: string) => string[];
  /** The object's id and its one-time secret, from the first run's --json. */
  made: (json: Record<string, any>) => { id: string; secret: string };
}
const VERBS: Record<string, Verb> = {
  webhook: {
    path: '/v1/webhooks',
    argv: (key) => [
      ...['webhooks', 'create', '--url', `https://h.example/${key}`, '--event-type', 'webhook.test'],
      ...['--idempotency-key', key],
    ],
    made: (j) => ({ id: j.id, secret: j.secret }),
  },
  'API key': {
    path: `/v1/tenants/${ACME}/api-keys`,
    argv: (key) => [
      ...['tenants', 'api-keys', 'create', ACME, '--kind', 'publishable', '--name', key],
      ...['--idempotency-key', key],
    ],
    made: (j) => ({ id: j.id, secret: j.key }),
  },
  'OAuth client': {
    path: '/v1/oauth/clients',
    argv: (key) => [
      ...['oauth', 'create', '--name', key, '--redirect-uri', 'https://r.example/cb'],
      ...['--scope', 'read:exceptions', '--idempotency-key', key],
    ],
    made: (j) => ({ id: j.client_id, secret: j.client_secret }),
  },
};

const since: Record<string, (id: string) => string[]> = {
  'webhook rotated': (id) => ['webhooks', 'rotate-secret', id, '--show-secret'],
  'webhook deleted': (id) => ['webhooks', 'delete', id, '--yes'],
  'API key revoked': (id) => ['tenants', 'api-keys', 'revoke', ACME, id, '--yes'],
  'OAuth client rotated': (id) => ['oauth', 'rotate-secret', id, '--yes', '--show-secret'],
  'OAuth client deleted': (id) => ['oauth', 'delete', id, '--yes'],
};

describe('a re-run with the same --idempotency-key whose first answer is lost', () => {
  it.each([
    ['webhook', 'webhook rotated', 6],
    ['webhook', 'webhook deleted', 5],
    ['API key', 'API key revoked', 5],
    ['OAuth client', 'OAuth client rotated', 6],
    ['OAuth client', 'OAuth client deleted', 5],
  ] as const)(
    '%s, %s since: exit %i as without the loss, no secret printed or written',
    async (noun, change, code) => {
      const verb = VERBS[noun]!;
      const key = `replayed-lost-${++runs}-${Date.now()}`;
      const first = await svc.run([...verb.argv(key), '--show-secret', '--json']);
      expect(first.code, first.stderr).toBe(0);
      const made = verb.made(JSON.parse(first.stdout));
      // A rotation a later second than the creation (the sandbox's times are in seconds): one read
      // back as the creation's own second is no rotation since (review19 F4).
      if (change.endsWith('rotated')) await advanceClock(svc.sandbox(), 2);
      const changed = await svc.run(since[change]!(made.id));
      expect(changed.code, changed.stderr).toBe(0);

      const plainFile = join(files, `${key}.plain`);
      const plain = await svc.run([...verb.argv(key), '--secret-file', plainFile]);
      expect([plain.code, plain.stdout]).toEqual([code, '']);

      lost.lose(verb.path, 1);
      const file = join(files, `${key}.lost`);
      const r = await svc.run([...verb.argv(key), '--secret-file', file], {
        env: { SVC_BASE_URL: lost.proxy().url },
        clock: virtualClock(),
      });
      // The same exit, but not "an earlier run": the stored answer to the retry may be this run's
      // own first attempt's (review19b F9); both readings are said.
      expect([r.code, r.stdout]).toEqual([plain.code, plain.stdout]);
      expect(plain.stderr).toContain(`was created by an earlier run with idempotency key ${key}`);
      expect(r.stderr).not.toContain('was created by an earlier run');
      if (code === 6)
        expect(r.stderr).toContain(
          `(made by this run or by an earlier one with that key: this run's first answer was lost, and the stored answer its retry got does not say whose it is), has had its`,
        );
      else if (change.endsWith('deleted'))
        // A 404 is all svc knows of a deletion: said first, both readings after (review19d F10).
        expect(r.stderr).toContain(
          `under idempotency key ${key} after this run's first answer was lost, is not found after 4 reads: ` +
            'either it was deleted since or the server is still slow to show it ' +
            "(that answer was the platform's stored one, which may be this run's creation or an earlier run's with that key: svc cannot tell)",
        );
      else
        expect(r.stderr).toContain(
          `under idempotency key ${key} after this run's first answer was lost, is ${change.split(' ').pop()} now: ` +
            "that answer was the platform's stored one, which may be this run's creation or an earlier run's with that key (svc cannot tell)",
        );
      expect(r.stderr).not.toContain(made.secret);
      expect(existsSync(file)).toBe(false);
      expect(existsSync(plainFile)).toBe(false);
    },
  );

  it('webhook updated since: the webhook as it is now, with its still valid secret', async () => {
    const verb = VERBS.webhook!;
    const key = `replayed-lost-${++runs}-${Date.now()}`;
    const made = verb.made(
      JSON.parse((await svc.run([...verb.argv(key), '--show-secret', '--json'])).stdout),
    );
    const updated = await svc.run(['webhooks', 'update', made.id, '--url', 'https://h.example/moved']);
    expect(updated.code, updated.stderr).toBe(0);

    lost.lose(verb.path, 1);
    const file = join(files, `${key}.lost`);
    const r = await svc.run([...verb.argv(key), '--secret-file', file, '--json'], {
      env: { SVC_BASE_URL: lost.proxy().url },
    });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ id: made.id, url: 'https://h.example/moved' });
    expect(readFileSync(file, 'utf8').trim()).toBe(made.secret);
  });
});
