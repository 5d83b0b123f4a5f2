/**
 * review18b R6: `webhooks rotate-secret --idempotency-key K` checks the webhook as it is now and
 * withholds the new secret when it was rotated again since. It compared the two rotation times as
 * text: a server that writes the same instant as `+00:00` (or a read that lags and gives none) got
 * exit 6 "rotated again since", the new secret neither printed nor written — and the old one had
 * already stopped working. The same instant however written, or none given, withholds nothing.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { sameRotation } from '../../../src/commands/replayed-creation.js';
import { type Reshaped, useReshapingProxy } from '../../helpers/reshaping-proxy.js';
import { useSandboxContext } from '../../helpers/sandbox.js';
import { createWebhook } from '../../helpers/webhooks.js';

const svc = useSandboxContext();
const proxy = useReshapingProxy(svc.sandbox);
const dir = mkdtempSync(join(tmpdir(), 'svc-rotation-forms-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

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

describe('sameRotation', () => {
  it.each<[string | null | undefined, string | null | undefined, boolean]>([
    ['2026-11-25T10:00:00Z', '2026-11-25T10:00:00Z', true],
    ['2026-11-25T10:00:00+00:00', '2026-11-25T10:00:00Z', true],
    ['2026-11-25T11:00:00+01:00', '2026-11-25T10:00:00Z', true],
    ['2026-11-25T10:00:01Z', '2026-11-25T10:00:00Z', false],
    ['2026-11-25T10:00:00Z', null, false],
    [null, '2026-11-25T10:00:00Z', true],
    [undefined, undefined, true],
    ['', '2026-11-25T10:00:00Z', true],
    ['not a time', 'not a time', true],
    ['not a time', 'another', false],
  ])('now %j, then %j: %s', (now, then, same) => {
    expect(sameRotation(now, then)).toBe(same);
  });
});
