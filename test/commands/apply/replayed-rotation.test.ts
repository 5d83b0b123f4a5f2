import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { as, LABS, losingAnswersOnConfirm, writeFile } from '../../helpers/ascode.js';
import { ndjson } from '../../helpers/context.js';
import { type Reshaped, useReshapingProxy } from '../../helpers/reshaping-proxy.js';
import { advanceClock, call, useSandboxContext } from '../../helpers/sandbox.js';
import { useTempDir } from '../../helpers/temp.js';

// review19 F9: svc apply's replayed creations took any secret_rotated_at for a rotation since the
// creation, where the single verbs compare it with the stored answer's own (sameRotation): on a
// server that stamps it at creation, the secret of a webhook never rotated was not saved. And the
// human table of a resumed run showed such a row as a bare `ok`, nothing saying why no file.
const svc = useSandboxContext({}, { tenant: false });
const proxy = useReshapingProxy(svc.sandbox);
const dir = useTempDir('svc-apply-rotation-');
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const real = { clock: { now: () => Date.now() } };

const file = (name: string) =>
  writeFile(
    dir,
    `${name}.yaml`,
    `version: 1\nblocks:\n  - tenants: acme-labs\n    webhooks:\n      - { url: "https://hooks.example.com/${name}", event_types: [webhook.test] }\n`,
  );
const hooks = async (name: string) =>
  (await as(svc.sandbox(), LABS, 'GET', '/v1/webhooks')).items.filter(
    (w: { url: string }) => w.url === `https://hooks.example.com/${name}`,
  );
const secretOf = async (id: string) =>
  (await call(svc.sandbox(), 'GET', `/_sandbox/webhooks/${id}/secret`)).body.secret;

/** A server whose "last rotated" starts at creation: a webhook's null secret_rotated_at is its created_at. */
const rotatedAtCreation = (answer: Reshaped): void => {
  const body = answer.body as { secret_rotated_at?: string | null; created_at?: string };
  if (typeof body !== 'object' || body === null || !/^\/v1\/webhooks(\/wh_[0-9a-f]+)?$/.test(answer.path))
    return;
  if (body.secret_rotated_at === null && body.created_at) body.secret_rotated_at = body.created_at;
};

/** A first run that creates the webhook of `plan` but loses every answer: the run to resume. */
async function lostRun(plan: string, secrets: string, env: Record<string, string> = {}): Promise<void> {
  const sandbox = svc.sandbox();
  const first = await svc.run(['apply', '-f', plan, '--secret-dir', secrets], {
    ...real,
    tty: true,
    prompter: losingAnswersOnConfirm(sandbox),
    env: { SVC_MAX_RETRIES: '0', ...env },
  });
  sandbox.faults.update({ drop_rate: 0 });
  expect(first.code, first.stderr).toBe(7);
}

describe('svc apply resumed, on a server whose secret_rotated_at starts at creation', () => {
  it('saves the secret of its webhook, never rotated (the stored answer and the read give one time)', async () => {
    const plan = file('stamped');
    const secrets = join(dir, 'stamped');
    proxy().set({ reshape: rotatedAtCreation });
    await lostRun(plan, secrets, { SVC_BASE_URL: proxy().url });
    const again = await svc.run(['apply', '-f', plan, '--secret-dir', secrets, '--yes', '--ndjson'], {
      ...real,
      env: { SVC_BASE_URL: proxy().url },
    });
    expect(again.code, again.stderr).toBe(0);
    const [hook] = await hooks('stamped');
    const [row] = ndjson(again.stdout);
    expect(row).toMatchObject({ status: 'ok', replayed: true, id: hook.id });
    expect(row.secret).toBeUndefined();
    expect(readFileSync(row.secret_file as string, 'utf8')).toBe(await secretOf(hook.id));
  });
});

describe('svc apply resumed, its creation rotated since', () => {
  it('says in the human table why the secret was not saved', async () => {
    const sandbox = svc.sandbox();
    const plan = file('resumed-rotated');
    const secrets = join(dir, 'resumed');
    await lostRun(plan, secrets);
    const [hook] = await hooks('resumed-rotated');
    // Rotated a later second (the sandbox's times are in seconds) than the creation.
    await advanceClock(sandbox, 5);
    await as(sandbox, LABS, 'POST', `/v1/webhooks/${hook.id}/rotate-secret`, {});
    const at = (await as(sandbox, LABS, 'GET', `/v1/webhooks/${hook.id}`)).secret_rotated_at;
    const again = await svc.run(['apply', '-f', plan, '--secret-dir', secrets, '--yes'], real);
    expect(again.code, again.stderr).toBe(0);
    const row = again.stdout.split('\n').find((line) => line.includes(hook.id));
    expect(row?.split('\t').slice(-3)).toEqual([
      'ok',
      hook.id,
      `rotated at ${at} since it was created: not saved (no longer the webhook's current secret; a rotated-out secret still signs, as a previous one, for 24 hours: svc --tenant acme-labs webhooks get ${hook.id} shows until when)`,
    ]);
    expect(readdirSync(secrets)).toEqual([]);
  });
});
