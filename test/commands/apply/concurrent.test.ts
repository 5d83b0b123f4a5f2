// Over 300 lines: concurrent and interrupted `svc apply` runs share one sandbox, its proxy barrier
// and their exact outputs, one race per test.
import { readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { tenantId } from '../../../src/sandbox/seed.js';
import type { Prompter } from '../../../src/system/prompter.js';
import { as, user, writeFile } from '../../helpers/ascode.js';
import { ndjson } from '../../helpers/context.js';
import { useLossyProxy } from '../../helpers/lossy-proxy.js';
import { advanceClock, useSandboxContext } from '../../helpers/sandbox.js';
import { useTempDir } from '../../helpers/temp.js';

// `svc apply` runs that meet other runs: two CI jobs (two runners, two state directories, so the
// journal's lock cannot see the other) applying the same file at once create each webhook and
// OAuth client once, the later one told so with the id; a role the other job deleted first is
// already removed, not a failure; a creation whose secret cannot be saved says it was made.
const svc = useSandboxContext({ users: 20 }, { tenant: false });
const dir = useTempDir('svc-apply-concurrent-');
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const real = { clock: { now: () => Date.now() } };
const EU = tenantId('acme-payments-eu');
const LEDGER = tenantId('acme-ledger-uk');

/** Before forwarding a request, what a test asks to happen meanwhile (once). */
let meanwhile: { method: string; path: string; act: () => void | Promise<void> } | undefined;
/**
 * When set, each creation (a POST to one of these paths) waits for the other job's creation at the
 * same path: both jobs have planned before either creates, however loaded the machine is.
 */
let bothPlanned: Map<string, { arrived: number; go: () => void; went: Promise<void> }> | undefined;
const pairUp = (path: string): Promise<void> | undefined => {
  const pair = bothPlanned?.get(path);
  if (!pair) return undefined;
  pair.arrived += 1;
  if (pair.arrived === 2) pair.go();
  return pair.went;
};
/** Both jobs plan before either creates: each creation waits at the proxy for the other's. */
const pairCreations = () => {
  bothPlanned = new Map(
    ['/v1/webhooks', '/v1/oauth/clients'].map((path) => {
      let go = () => {};
      const went = new Promise<void>((resolve) => {
        go = resolve;
      });
      return [path, { arrived: 0, go, went }];
    }),
  );
};
const proxy = useLossyProxy(svc.sandbox, {
  lose: () => false,
  before: (method, path) => {
    if (method === 'POST' && bothPlanned?.has(path)) return pairUp(path);
    if (meanwhile && method === meanwhile.method && path === meanwhile.path) {
      const { act } = meanwhile;
      meanwhile = undefined;
      return act();
    }
  },
});

const RACE = `version: 1
blocks:
  - tenants: acme-payments-eu
    webhooks:
      - url: https://race.example.com/hook
        event_types: [exception.created]
    oauth_clients:
      - name: race-client
        redirect_uris: [https://race.example.com/cb]
        scopes: [read:tenants]
`;

const live = async () => ({
  hooks: (await as(svc.sandbox(), EU, 'GET', '/v1/webhooks')).items.filter(
    (w: { url: string }) => w.url === 'https://race.example.com/hook',
  ),
  clients: (await as(svc.sandbox(), EU, 'GET', '/v1/oauth/clients')).items.filter(
    (c: { name: string }) => c.name === 'race-client',
  ),
});

/** One CI job: its own state directory and secret directory. */
const job = (file: string, name: string, env: Record<string, string> = {}) => {
  const state = join(dir, `state-${name}`);
  return svc.run(['apply', '-f', file, '--yes', '--ndjson', '--secret-dir', join(dir, `secrets-${name}`)], {
    ...real,
    env: { SVC_STATE_DIR: state, ...env },
  });
};

describe('svc apply, two runs of one file at once', () => {
  it('creates each webhook and OAuth client once; the later run says another made it, with its id and secret', async () => {
    const file = writeFile(dir, 'race.yaml', RACE);
    pairCreations();
    const through = { SVC_BASE_URL: proxy().url };
    const [a, b] = await Promise.all([job(file, 'a', through), job(file, 'b', through)]).finally(() => {
      bothPlanned = undefined;
    });
    expect([a.code, b.code], `${a.stderr}\n${b.stderr}`).toEqual([0, 0]);
    const { hooks, clients } = await live();
    expect(hooks).toHaveLength(1);
    expect(clients).toHaveLength(1);
    const rows = [...ndjson(a.stdout), ...ndjson(b.stdout)];
    const of = (kind: string) =>
      rows
        .filter((r) => r.kind === kind)
        .map((r) => ({ status: r.status, reason: r.reason, id: r.id }))
        .sort((x, y) => String(x.status).localeCompare(String(y.status)));
    expect(of('webhook')).toEqual([
      { status: 'ok', reason: undefined, id: hooks[0].id },
      { status: 'skipped', reason: 'created_by_another_run', id: hooks[0].id },
    ]);
    expect(of('oauth_client')).toEqual([
      { status: 'ok', reason: undefined, id: clients[0].client_id },
      { status: 'skipped', reason: 'created_by_another_run', id: clients[0].client_id },
    ]);
    // Each job holds the one secret there is (the platform's stored answer carries it).
    const secret = (await as(svc.sandbox(), EU, 'GET', `/_sandbox/webhooks/${hooks[0].id}/secret`)).secret;
    const files = rows.filter((r) => r.kind === 'webhook').map((r) => readFileSync(r.secret_file, 'utf8'));
    expect(files).toEqual([secret, secret]);
    const clientFiles = rows
      .filter((r) => r.kind === 'oauth_client')
      .map((r) => readFileSync(r.secret_file, 'utf8'));
    expect(clientFiles[0]).toBe(clientFiles[1]);
    // The file can still be planned: it matches.
    expect((await svc.run(['plan', '-f', file], real)).code).toBe(0);
  });

  it('under two credentials creates twice (keys are per caller); svc plan then says how and which command deletes one', async () => {
    await as(svc.sandbox(), EU, 'POST', `/v1/users/${user(3)}/roles`, { role_id: 'tenant_admin' });
    const file = writeFile(dir, 'two.yaml', RACE.replaceAll('race', 'two'));
    const as3 = { SVC_TOKEN: svc.sandbox().issueToken(user(3)).token };
    const through = { SVC_BASE_URL: proxy().url };
    pairCreations();
    const [a, b] = await Promise.all([
      job(file, 'two-a', through),
      job(file, 'two-b', { ...through, ...as3 }),
    ]).finally(() => {
      bothPlanned = undefined;
    });
    expect([a.code, b.code], `${a.stderr}\n${b.stderr}`).toEqual([0, 0]);
    const hooks = (await as(svc.sandbox(), EU, 'GET', '/v1/webhooks')).items.filter(
      (w: { url: string }) => w.url === 'https://two.example.com/hook',
    );
    expect(hooks).toHaveLength(2);
    const planned = await svc.run(['plan', '-f', file], real);
    expect(planned.code).toBe(2);
    const ids = planned.stderr.match(/\((wh_\w+), (wh_\w+)\)/)!.slice(1);
    expect([...ids].sort()).toEqual(hooks.map((h: { id: string }) => h.id).sort());
    expect(planned.stderr).toContain(
      `two.yaml:5: 2 live webhooks are https://two.example.com/hook (${ids.join(', ')}): runs applying this file at once under two credentials (the platform keeps each caller's creations apart) may each create one; delete the extra one (svc --tenant acme-payments-eu webhooks delete ID), or give this entry the id of the one it is (svc export writes them)`,
    );
    expect(planned.stderr).toContain('(svc --tenant acme-payments-eu oauth delete CLIENT_ID)');
  });

  it('creates an entry again after the one made was deleted, within the key lifetime', async () => {
    const file = writeFile(dir, 'race.yaml', RACE);
    const before = await live();
    await as(svc.sandbox(), EU, 'DELETE', `/v1/webhooks/${before.hooks[0].id}`);
    await as(svc.sandbox(), EU, 'DELETE', `/v1/oauth/clients/${before.clients[0].client_id}`);
    const again = await job(file, 'c');
    expect(again.code, again.stderr).toBe(0);
    const after = await live();
    expect(after.hooks).toHaveLength(1);
    expect(after.clients).toHaveLength(1);
    expect(after.hooks[0].id).not.toBe(before.hooks[0].id);
    expect(after.clients[0].client_id).not.toBe(before.clients[0].client_id);
    // Rows come as their requests end (the run's concurrency): compared in one order.
    expect(
      ndjson(again.stdout)
        .map((r) => `${r.kind} ${r.status} ${r.id}`)
        .sort(),
    ).toEqual([`oauth_client ok ${after.clients[0].client_id}`, `webhook ok ${after.hooks[0].id}`]);
  });
});

describe("svc apply, the other run's creation rotated before this one hears of it", () => {
  it('writes no secret and says the one stored is no longer the current one, though it still signs', async () => {
    const file = writeFile(
      dir,
      'rotated.yaml',
      'version: 1\nblocks:\n  - tenants: acme-payments-eu\n    webhooks:\n      - url: https://rotated.example.com/hook\n        event_types: [exception.created]\n',
    );
    let rotatedAt = '';
    // Run B has planned; before its creation arrives, run A creates the webhook and someone rotates it.
    meanwhile = {
      method: 'POST',
      path: '/v1/webhooks',
      act: async () => {
        expect((await job(file, 'rotated-a')).code).toBe(0);
        const made = (await as(svc.sandbox(), EU, 'GET', '/v1/webhooks')).items.find(
          (w: { url: string }) => w.url === 'https://rotated.example.com/hook',
        );
        // A later second than the creation (the sandbox's times are in seconds): a rotation read
        // back as the creation's own second is none (review19 F4).
        await advanceClock(svc.sandbox(), 2);
        await as(svc.sandbox(), EU, 'POST', `/v1/webhooks/${made.id}/rotate-secret`, {});
        rotatedAt = (await as(svc.sandbox(), EU, 'GET', `/v1/webhooks/${made.id}`)).secret_rotated_at;
      },
    };
    const b = await svc.run(
      ['apply', '-f', file, '--yes', '--ndjson', '--secret-dir', join(dir, 'secrets-rotated-b')],
      { ...real, env: { SVC_STATE_DIR: join(dir, 'state-rotated-b'), SVC_BASE_URL: proxy().url } },
    );
    expect(b.code, b.stderr).toBe(0);
    const [row] = ndjson(b.stdout);
    expect(row).toMatchObject({ kind: 'webhook', status: 'skipped', reason: 'created_by_another_run' });
    expect(row.secret).toBe(
      `rotated at ${rotatedAt} since it was created: not saved (no longer the webhook's current secret; a rotated-out secret still signs, as a previous one, for 24 hours: svc --tenant acme-payments-eu webhooks get ${row.id} shows until when)`,
    );
    expect(readdirSync(join(dir, 'secrets-rotated-b'))).toEqual([]);
  });
});

describe('svc apply after a run whose creation the platform refused', () => {
  it('creates the entry once the caller may: the stored refusal of the same plan is not its answer', async () => {
    // user 2 manages webhooks; reading exceptions (which an exception webhook sends) is a second role.
    const manage = await as(svc.sandbox(), EU, 'POST', '/v1/roles', {
      name: 'hook-manager',
      permissions: ['role.read', 'webhook.manage', 'webhook.read'],
    });
    const reads = await as(svc.sandbox(), EU, 'POST', '/v1/roles', {
      name: 'exception-reader',
      permissions: ['exception.read'],
    });
    await as(svc.sandbox(), EU, 'POST', `/v1/users/${user(2)}/roles`, { role_id: manage.id });
    const grantReads = () =>
      as(svc.sandbox(), EU, 'POST', `/v1/users/${user(2)}/roles`, { role_id: reads.id });
    await grantReads();
    const file = writeFile(
      dir,
      'refused.yaml',
      'version: 1\nblocks:\n  - tenants: acme-payments-eu\n    webhooks:\n      - url: https://refused.example.com/hook\n        event_types: [exception.created]\n',
    );
    const token = svc.sandbox().issueToken(user(2)).token;
    const run = (name: string, env: Record<string, string> = {}) =>
      svc.run(['apply', '-f', file, '--yes', '--ndjson', '--secret-dir', join(dir, `secrets-${name}`)], {
        ...real,
        env: { SVC_TOKEN: token, SVC_STATE_DIR: join(dir, `state-${name}`), ...env },
      });
    // Planned while user 2 could; the role is taken away before the creation is sent.
    meanwhile = {
      method: 'POST',
      path: '/v1/webhooks',
      act: async () => {
        await as(svc.sandbox(), EU, 'DELETE', `/v1/users/${user(2)}/roles/${reads.id}`, {
          justification: 'rota',
        });
      },
    };
    const refused = await run('refused', { SVC_BASE_URL: proxy().url });
    expect(refused.code).toBe(7);
    expect(ndjson(refused.stdout)[0].error.message).toContain('you lack exception.read');
    // The role is back; another runner (a fresh state directory) applies the same plan.
    await grantReads();
    const again = await run('after-refusal');
    expect(again.code, again.stderr).toBe(0);
    const hooks = (await as(svc.sandbox(), EU, 'GET', '/v1/webhooks')).items.filter(
      (w: { url: string }) => w.url === 'https://refused.example.com/hook',
    );
    expect(hooks).toHaveLength(1);
    expect(ndjson(again.stdout).map((r) => `${r.kind} ${r.status} ${r.id}`)).toEqual([
      `webhook ok ${hooks[0].id}`,
    ]);
  });
});

describe('svc apply of an entry created and deleted again and again within a day', () => {
  it('creates it every time: the chain of stored answers has no small cap', async () => {
    const file = writeFile(
      dir,
      'cycle.yaml',
      'version: 1\nblocks:\n  - tenants: acme-ledger-uk\n    webhooks:\n      - url: https://cycle.example.com/hook\n        event_types: [exception.created]\n',
    );
    const made: string[] = [];
    for (let round = 0; round < 12; round++) {
      const r = await job(file, `cycle-${round}`);
      expect(r.code, `round ${round}: ${r.stderr}`).toBe(0);
      const [row] = ndjson(r.stdout);
      expect(row).toMatchObject({ kind: 'webhook', status: 'ok' });
      made.push(row.id);
      await as(svc.sandbox(), LEDGER, 'DELETE', `/v1/webhooks/${row.id}`);
    }
    expect(new Set(made).size).toBe(12);
  });
});

describe('svc apply --prune, a role deleted meanwhile', () => {
  it('is already removed (skipped), not a failure: exit 0', async () => {
    const role = await as(svc.sandbox(), LEDGER, 'POST', '/v1/roles', {
      name: 'night-desk',
      permissions: ['exception.read'],
    });
    const file = writeFile(
      dir,
      'prune.yaml',
      'version: 1\nmanage: { roles: all }\nblocks:\n  - tenants: acme-ledger-uk\n    roles: []\n',
    );
    // Another job (or a person) deletes it between this run's read and its deletion.
    const deleting: Prompter = {
      confirm: async () => {
        await as(svc.sandbox(), LEDGER, 'DELETE', `/v1/roles/${role.id}`);
        return true;
      },
      input: async () => '',
      password: async () => '',
      select: async () => {
        throw new Error('no select');
      },
    };
    const r = await svc.run(['apply', '-f', file, '--prune', '--ndjson'], {
      ...real,
      tty: true,
      prompter: deleting,
    });
    expect(r.code, r.stderr).toBe(0);
    expect(ndjson(r.stdout).map((row) => `${row.kind} ${row.name} ${row.status} ${row.reason}`)).toEqual([
      'role night-desk skipped already_removed',
    ]);
  });
});

describe('svc apply, a secret that cannot be saved', () => {
  it('says the webhook was created, with its id, and how to get its secret; the same command then saves it', async () => {
    const file = writeFile(
      dir,
      'unsaved.yaml',
      'version: 1\nblocks:\n  - tenants: acme-payments-eu\n    webhooks:\n      - url: https://unsaved.example.com/hook\n        event_types: [exception.created]\n',
    );
    const secrets = join(dir, 'secrets-unsaved');
    const aside = `${secrets}.aside`;
    // The directory was checked; by the time the answer arrives nothing can be written there.
    meanwhile = {
      method: 'POST',
      path: '/v1/webhooks',
      act: () => {
        renameSync(secrets, aside);
        writeFileSync(secrets, '');
      },
    };
    const env = { SVC_BASE_URL: proxy().url };
    const first = await svc.run(['apply', '-f', file, '--yes', '--ndjson', '--secret-dir', secrets], {
      ...real,
      env,
    });
    const [hook] = (await as(svc.sandbox(), EU, 'GET', '/v1/webhooks')).items.filter(
      (w: { url: string }) => w.url === 'https://unsaved.example.com/hook',
    );
    expect(first.code).toBe(7);
    const [row] = ndjson(first.stdout);
    expect(row).toMatchObject({ kind: 'webhook', status: 'failed', id: hook.id });
    expect(row.error.message).toBe(
      `created ${hook.id}, but its secret could not be saved to ${join(secrets, `acme-payments-eu.webhook.unsaved.example.com_hook.${hook.id}.secret`)}: not a directory`,
    );
    // Counted as what it is: failed, yet made.
    expect(first.stderr.split('\n')[0]).toMatch(
      /^0 applied, 1 failed \(1 of them created, their secret not saved\) \(\d+\.\d s\)$/,
    );
    // Created: not "nothing done" (review27a F5).
    expect(JSON.parse(first.stderr.trimEnd().split('\n').at(-1)!).error.code).toBe('partial_failure');
    expect(first.stderr.split('\n')[1]).toBe(
      `1 of the failed items was created (${hook.id}) but their secret could not be saved: make room, then run the same command again within 23 hours to save it (the platform answers with it again); after that it is lost: svc --tenant acme-payments-eu webhooks rotate-secret ${hook.id} --secret-file PATH makes a new one`,
    );
    rmSync(secrets);
    renameSync(aside, secrets);
    expect(readdirSync(secrets)).toEqual([]);

    const again = await svc.run(['apply', '-f', file, '--yes', '--ndjson', '--secret-dir', secrets], {
      ...real,
      env,
    });
    expect(again.code, again.stderr).toBe(0);
    const [saved] = ndjson(again.stdout);
    expect(saved).toMatchObject({ kind: 'webhook', status: 'ok', id: hook.id });
    const secret = (await as(svc.sandbox(), EU, 'GET', `/_sandbox/webhooks/${hook.id}/secret`)).secret;
    expect(readFileSync(saved.secret_file, 'utf8')).toBe(secret);
  });
});

// usr_admin administers acme-ledger-uk: the removal of that grant is refused even with --prune.
describe('svc apply without --prune, removals --prune would refuse', () => {
  it('counts them apart from those --prune makes', async () => {
    const file = writeFile(
      dir,
      'left.yaml',
      `version: 1\nmanage: { grants: all }\nblocks:\n  - tenants: acme-ledger-uk\n    grants:\n      - { user: ${user(7)}, role: tenant_viewer, justification: one more }\n`,
    );
    const planned = ndjson((await svc.run(['plan', '-f', file, '--ndjson'], real)).stdout);
    const made = planned.filter((c) => c.prune && !c.refused).length;
    const refused = planned.filter((c) => c.prune && c.refused).length;
    expect(refused).toBe(1);
    const r = await svc.run(['apply', '-f', file, '--yes'], real);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr.trim().split('\n').at(-1)).toBe(
      `${made === 1 ? '1 removal was' : `${made} removals were`} not applied: run svc apply with --prune to make ${made === 1 ? 'it' : 'them'}; 1 removal svc refuses to make (svc plan says why; keep it in the file) even then`,
    );
  });
});

describe('svc apply, a role the plan creates made meanwhile by another run (role_name_taken)', () => {
  const roleFile = (name: string) =>
    writeFile(
      dir,
      `${name}.yaml`,
      `version: 1\nblocks:\n  - tenants: acme-ledger-uk\n    roles:\n      - { name: ${name}, permissions: [rule.read, exception.read] }\n    grants:\n      - { user: ${user(11)}, role: ${name}, justification: desk rota }\n      - { user: ${user(12)}, role: ${name}, justification: desk rota }\n`,
    );
  const roleNamed = async (name: string) =>
    (await as(svc.sandbox(), LEDGER, 'GET', '/v1/roles?limit=200')).items.find(
      (r: { name: string; deleted_at: string | null }) => r.name === name && !r.deleted_at,
    );
  const holders = async (roleId: string) =>
    (await as(svc.sandbox(), LEDGER, 'GET', `/v1/role-assignments?role_id=${roleId}`)).items
      .map((a: { user_id: string }) => a.user_id)
      .sort();
  /** Run B, through the proxy: before its role creation is sent, `act` (run A) goes first. */
  const raced = (file: string, name: string, act: () => Promise<void>) => {
    meanwhile = { method: 'POST', path: '/v1/roles', act };
    return svc.run(['apply', '-f', file, '--yes', '--ndjson', '--concurrency', '1'], {
      ...real,
      env: { SVC_STATE_DIR: join(dir, `state-${name}`), SVC_BASE_URL: proxy().url },
    });
  };
  const rowsOf = (stdout: string) =>
    ndjson(stdout)
      .map((r) => `${r.kind} ${r.name} ${r.status} ${r.reason ?? r.error?.code ?? ''} ${r.id ?? ''}`.trim())
      .sort();

  it('with the planned permissions: the row says another run made it, and its grants are made against it', async () => {
    const file = roleFile('race-desk');
    // Run A, the same file: it creates the role (and, applied whole, its grants) first.
    const b = await raced(file, 'race-desk-b', async () => {
      await as(svc.sandbox(), LEDGER, 'POST', '/v1/roles', {
        name: 'race-desk',
        permissions: ['exception.read', 'rule.read'],
      });
    });
    expect(b.code, b.stderr).toBe(0);
    const role = await roleNamed('race-desk');
    expect(rowsOf(b.stdout)).toEqual([
      `grant ${user(11)} race-desk ok`,
      `grant ${user(12)} race-desk ok`,
      `role race-desk skipped created_by_another_run ${role.id}`,
    ]);
    expect(await holders(role.id)).toEqual([user(11), user(12)]);
    expect((await svc.run(['plan', '-f', file], real)).code).toBe(0);
  });

  it('two applies of one file racing: both exit 0, the role made once, each grant made once', async () => {
    const file = roleFile('race-desk-two');
    const b = await raced(file, 'race-two-b', async () => {
      expect((await job(file, 'race-two-a')).code).toBe(0);
    });
    expect(b.code, b.stderr).toBe(0);
    const role = await roleNamed('race-desk-two');
    // The other run's grants, made after this run's plan: made by another run (attack21 F2).
    expect(rowsOf(b.stdout)).toEqual([
      `grant ${user(11)} race-desk-two skipped created_by_another_run`,
      `grant ${user(12)} race-desk-two skipped created_by_another_run`,
      `role race-desk-two skipped created_by_another_run ${role.id}`,
    ]);
    expect(await holders(role.id)).toEqual([user(11), user(12)]);
  });

  it('with other permissions: no grant is made, one line names the difference and svc plan', async () => {
    const file = roleFile('race-other');
    const b = await raced(file, 'race-other-b', async () => {
      await as(svc.sandbox(), LEDGER, 'POST', '/v1/roles', {
        name: 'race-other',
        permissions: ['exception.read', 'webhook.read'],
      });
    });
    const role = await roleNamed('race-other');
    const said = `role race-other was created since the plan (${role.id}) with other permissions than planned (it also has webhook.read; it lacks rule.read): nothing was granted with it; svc plan shows the difference`;
    const rows = ndjson(b.stdout);
    expect(rows.find((r) => r.kind === 'role')?.error).toMatchObject({
      code: 'role_name_taken',
      message: said,
    });
    expect(rowsOf(b.stdout)).toEqual([
      `grant ${user(11)} race-other failed dependency_failed`,
      `grant ${user(12)} race-other failed dependency_failed`,
      'role race-other failed role_name_taken',
    ]);
    expect(await holders(role.id)).toEqual([]);
    expect(b.code).toBe(7);
    expect(b.stderr).toContain(said);
    // As it says: the plan now shows the role's permissions to change (exit 10, changes pending).
    const planned = await svc.run(['plan', '-f', file], real);
    expect(planned.code, planned.stderr).toBe(10);
    expect(planned.stdout).toMatch(/race-other/);
  });
});
