/**
 * review18b R6: `webhooks rotate-secret --idempotency-key K` checks the webhook as it is now and
 * withholds the new secret when it was rotated again since. It compared the two rotation times as
 * text: a server that writes the same instant as `+00:00` (or a read that lags and gives none) got
 * exit 6 "rotated again since", the new secret neither printed nor written — and the old one had
 * already stopped working. The same instant however written, or none given, withholds nothing;
 * nor does a read in whole seconds of an answer in milliseconds (review19 F4).
 */
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { sameRotation } from '../../../src/platform/stored-answer.js';
import { type Reshaped, useReshapingProxy } from '../../helpers/reshaping-proxy.js';
import { call, useSandboxContext } from '../../helpers/sandbox.js';
import { useTempDir } from '../../helpers/temp.js';
import { createWebhook } from '../../helpers/webhooks.js';

const svc = useSandboxContext();
const proxy = useReshapingProxy(svc.sandbox);
const dir = useTempDir('svc-rotation-forms-');
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const signingSecret = async (id: string) =>
  (await call(svc.sandbox(), 'GET', `/_sandbox/webhooks/${id}/secret`)).body.secret;

/** GETs of the webhook answer its rotation time as `form` makes it. */
const readAs =
  (form: (time: string) => string | null) =>
  (answer: Reshaped): void => {
    const body = answer.body as { secret_rotated_at?: string | null } | string;
    if (answer.method !== 'GET' || typeof body !== 'object' || typeof body.secret_rotated_at !== 'string')
      return;
    body.secret_rotated_at = form(body.secret_rotated_at);
  };

describe('rotate-secret under the user’s own key, the webhook read back with its time written otherwise', () => {
  it.each<[string, (time: string) => string | null]>([
    ['+00:00 for Z', (time) => time.replace(/Z$/, '+00:00')],
    ['milliseconds added', (time) => time.replace(/Z$/, '.000Z')],
    ['no time at all (a read that lags)', () => null],
  ])('%s: the new secret is written, exit 0', async (_name, form) => {
    const { id } = await createWebhook(svc.sandbox(), `https://h.example/forms-${Date.now()}`);
    proxy().set({ reshape: readAs(form) });
    const file = join(dir, `${id}.secret`);
    const r = await svc.run(
      ['webhooks', 'rotate-secret', id, '--idempotency-key', `forms-${id}`, '--secret-file', file, '--yes'],
      { env: { SVC_BASE_URL: proxy().url } },
    );
    expect(r.code, r.stderr).toBe(0);
    expect(existsSync(file) && readFileSync(file, 'utf8').startsWith('whsec_')).toBe(true);
  });
});

// review19 F4: a server that answers the rotation from memory (`…:13.437Z`) and reads it back from
// a column in whole seconds (`…:13Z`, a time before the answer's) got exit 6 "rotated again since",
// the new secret lost — and every same-key re-run the same.
describe('rotate-secret under the user’s own key, the answer in milliseconds, the read in whole seconds', () => {
  const answeredWithMs = (answer: Reshaped): void => {
    const body = answer.body as { secret_rotated_at?: string | null };
    if (answer.method === 'POST' && typeof body === 'object' && typeof body.secret_rotated_at === 'string')
      body.secret_rotated_at = body.secret_rotated_at.replace(/(\.\d+)?Z$/, '.437Z');
  };

  it('webhooks: the new signing secret is written, exit 0', async () => {
    const { id } = await createWebhook(svc.sandbox(), `https://h.example/ms-${Date.now()}`);
    proxy().set({ reshape: answeredWithMs });
    const file = join(dir, `ms-${id}.secret`);
    const r = await svc.run(
      ['webhooks', 'rotate-secret', id, '--idempotency-key', `ms-${id}`, '--secret-file', file, '--yes'],
      { env: { SVC_BASE_URL: proxy().url } },
    );
    expect(r.code, r.stderr).toBe(0);
    expect(readFileSync(file, 'utf8')).toBe(await signingSecret(id));
  });

  it('oauth: the new client secret is written, exit 0', async () => {
    const made = JSON.parse(
      (
        await svc.run([
          ...['oauth', 'create', '--name', `ms-${Date.now()}`, '--redirect-uri', 'https://r.example/cb'],
          ...['--scope', 'read:exceptions', '--show-secret', '--json'],
        ])
      ).stdout,
    );
    proxy().set({ reshape: answeredWithMs });
    const file = join(dir, `ms-${made.client_id}.secret`);
    const r = await svc.run(
      [
        ...['oauth', 'rotate-secret', made.client_id, '--idempotency-key', `ms-${made.client_id}`],
        ...['--secret-file', file, '--yes'],
      ],
      { env: { SVC_BASE_URL: proxy().url } },
    );
    expect(r.code, r.stderr).toBe(0);
    const secret = readFileSync(file, 'utf8');
    expect(secret).not.toBe(made.client_secret);
    expect(secret).toMatch(/^\S+$/);
  });

  it('rotated again clearly later, the answer not marked as stored: exit 6, never "made by an earlier run"', async () => {
    const { id } = await createWebhook(svc.sandbox(), `https://h.example/later-${Date.now()}`);
    let at = '';
    proxy().set({
      reshape: (answer) => {
        delete answer.headers['idempotent-replayed'];
        const body = answer.body as { secret_rotated_at?: string | null };
        if (typeof body !== 'object' || typeof body.secret_rotated_at !== 'string') return;
        // The rotation's answer says a time a minute before the one the webhook is read back with.
        if (answer.method === 'POST')
          body.secret_rotated_at = new Date(Date.parse(body.secret_rotated_at) - 60_000).toISOString();
        else at = body.secret_rotated_at;
      },
    });
    const file = join(dir, `later-${id}.secret`);
    const r = await svc.run(
      ['webhooks', 'rotate-secret', id, '--idempotency-key', `later-${id}`, '--secret-file', file, '--yes'],
      { env: { SVC_BASE_URL: proxy().url } },
    );
    expect(r).toEqual({
      code: 6,
      stdout: '',
      stderr:
        // The read before it showed no rotation: the answer's is this command's own (review29b H1: said so).
        `error: the rotation this command made with idempotency key later-${id} is not the latest: ` +
        `webhook ${id}'s secret was rotated again since (${at}), so the secret in its answer is not the current one, and svc neither prints nor writes it; ` +
        `get a new one with: svc webhooks rotate-secret ${id} --secret-file ${file}\n`,
    });
    expect(existsSync(file)).toBe(false);
  });
});

// review19b F4: a read-back written with a space for the T (a database column's text form) was taken
// as precise only to the minute, so a rotation seconds after the answer's was none: the answer's
// (already dead) secret was printed as "still the current one", exit 0.
describe('rotate-secret under the user’s own key, the webhook read back with a space for the T', () => {
  it('rotated again 4 s later: exit 6, the answer’s secret neither printed nor written', async () => {
    const { id } = await createWebhook(svc.sandbox(), `https://h.example/space-${Date.now()}`);
    let at = '';
    proxy().set({
      reshape: (answer) => {
        const body = answer.body as { secret_rotated_at?: string | null };
        if (typeof body !== 'object' || typeof body.secret_rotated_at !== 'string') return;
        const ms = Date.parse(body.secret_rotated_at);
        if (answer.method === 'POST')
          body.secret_rotated_at = new Date(ms - 4000).toISOString().replace(/\.\d+Z$/, 'Z');
        else
          at = body.secret_rotated_at = new Date(ms)
            .toISOString()
            .replace(/\.\d+Z$/, 'Z')
            .replace('T', ' ');
      },
    });
    const file = join(dir, `space-${id}.secret`);
    const r = await svc.run(
      ['webhooks', 'rotate-secret', id, '--idempotency-key', `space-${id}`, '--secret-file', file, '--yes'],
      { env: { SVC_BASE_URL: proxy().url } },
    );
    expect(r.code, r.stderr).toBe(6);
    expect(r.stderr).toContain(`webhook ${id}'s secret was rotated again since (${at})`);
    expect(r.stdout).toBe('');
    expect(existsSync(file)).toBe(false);
  });
});

describe('sameRotation', () => {
  it.each<[string | null | undefined, string | null | undefined, boolean]>([
    ['2026-11-25T10:00:00Z', '2026-11-25T10:00:00Z', true],
    ['2026-11-25T10:00:00+00:00', '2026-11-25T10:00:00Z', true],
    ['2026-11-25T11:00:00+01:00', '2026-11-25T10:00:00Z', true],
    // Written to two precisions, later by no more than the coarser (a second) may be the same
    // instant, cut or rounded; only later than that is a rotation since.
    ['2026-11-25T10:00:13Z', '2026-11-25T10:00:13.437Z', true],
    ['2026-11-25T10:00:14Z', '2026-11-25T10:00:13.437Z', true],
    ['2026-11-25T10:00:15Z', '2026-11-25T10:00:13.437Z', false],
    ['2026-11-25T10:00:13.437Z', '2026-11-25T10:00:13Z', true],
    ['2026-11-25T10:00:14.001Z', '2026-11-25T10:00:13Z', false],
    // A space or a lowercase `t` for the T (as serverTime reads them, review19b F4) is as precise
    // as the T: seconds later is later, not within a minute.
    ['2026-11-25 10:00:04Z', '2026-11-25T10:00:00Z', false],
    ['2026-11-25 10:00:04+00', '2026-11-25T10:00:00Z', false],
    ['2026-11-25t10:00:04z', '2026-11-25T10:00:00Z', false],
    ['2026-11-25 10:00:04', '2026-11-25T10:00:00Z', false],
    ['2026-11-25 10:00:00.437Z', '2026-11-25T10:00:00.000Z', false],
    ['2026-11-25 10:00:00Z', '2026-11-25T10:00:00Z', true],
    ['2026-11-25 10:01Z', '2026-11-25T10:00:30Z', true],
    // Written to one precision, cut alike: a later time is a later instant.
    ['2026-11-25T10:00:01Z', '2026-11-25T10:00:00Z', false],
    ['2026-11-25T10:00:00.001Z', '2026-11-25T10:00:00.000Z', false],
    ['2026-11-25T09:00:00Z', '2026-11-25T10:00:00Z', true],
    ['2026-11-25T10:00:00Z', null, false],
    [null, '2026-11-25T10:00:00Z', true],
    [undefined, undefined, true],
    ['', '2026-11-25T10:00:00Z', true],
    ['not a time', 'not a time', true],
    ['not a time', 'another', false],
  ])('now %j, then %j: %s', (now, then, same) => {
    expect(sameRotation(now, then)).toBe(same);
  });

  // A "last rotated" that starts at creation, read back while the creation's answer says none yet.
  it.each<[string, string | undefined, boolean]>([
    ['2026-11-25T10:00:00Z', '2026-11-25T10:00:00Z', true],
    ['2026-11-25T10:00:00Z', '2026-11-25T10:00:00.437Z', true],
    ['2026-11-25T10:00:05Z', '2026-11-25T10:00:00Z', false],
    ['2026-11-25T10:00:00Z', undefined, false],
  ])('now %j, then null, created %j: %s', (now, created, same) => {
    expect(sameRotation(now, null, created)).toBe(same);
  });
});
