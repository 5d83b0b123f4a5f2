/**
 * How `svc records get/create/update` show one record: the platform's fields under fixed labels,
 * always present in a pipe (deleted and purge at empty while the record is live), and the
 * record's own fields under `field.NAME`, so a field called "deleted" never poses as svc's line.
 */
import { describe, expect, it } from 'vitest';
import { runInProcess } from '../../helpers/context.js';
import { ACME, useLiveAdmin } from '../../helpers/sandbox.js';

const { env, sandbox, svc } = useLiveAdmin();

const HOUR = 3600 * 1000;

async function created(data: string): Promise<Record<string, any>> {
  const r = await svc(['records', 'create', 'accounts', '--data', data, '--json'], { env });
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout);
}

/**
 * `args` on a terminal two hours later on both clocks (a terminal's relative times count from the
 * platform's, attack22 F1), with a token minted then.
 */
async function twoHoursLater(args: string[], now: number) {
  sandbox().state.clock.advance(2 * HOUR);
  env.SVC_TOKEN = sandbox().issueToken('usr_admin').token;
  return runInProcess(
    args,
    { ...env, NO_COLOR: '1' },
    { tty: { stdout: true, stderr: true }, columns: 120, now },
  );
}

describe('svc records get: fixed system lines, the record own fields set apart', () => {
  it('a live record whose own fields are named deleted and purged does not look deleted', async () => {
    const live = await created(
      '{"name":"live","deleted":"2026-11-01T00:00:00Z","purged":"2026-12-01T00:00:00Z"}',
    );
    const piped = await svc(['records', 'get', 'accounts', live.id], { env });
    expect(piped).toEqual({
      code: 0,
      stderr: '',
      stdout:
        `id\t${live.id}\nsurface\taccounts\ntenant\t${ACME}\ncreated\t${live.created_at}\n` +
        `created by\tusr_admin\nupdated\t${live.updated_at}\ndeleted\t\npurge at\t\n` +
        'field.name\tlive\nfield.deleted\t2026-11-01T00:00:00Z\nfield.purged\t2026-12-01T00:00:00Z\n',
    });
    expect(piped.stdout.split('\n').filter((line) => line.startsWith('deleted\t'))).toEqual(['deleted\t']);

    const shown = await twoHoursLater(
      ['records', 'get', 'accounts', live.id],
      Date.parse(live.created_at) + 2 * HOUR,
    );
    expect(shown).toEqual({
      code: 0,
      stderr: '',
      stdout:
        `id             ${live.id}\n` +
        'surface        accounts\n' +
        `tenant         ${ACME}\n` +
        `created        ${live.created_at} (2 hours ago)\n` +
        'created by     usr_admin\n' +
        `updated        ${live.updated_at} (2 hours ago)\n` +
        'field.name     live\n' +
        'field.deleted  2026-11-01T00:00:00Z\n' +
        'field.purged   2026-12-01T00:00:00Z\n',
    });
  });

  it('a soft-deleted record has the same lines in a pipe, and says "purge at" for its future purge', async () => {
    const gone = await created('{"name":"gone","tags":["a","b"]}');
    const deleted = await svc(['records', 'delete', 'accounts', gone.id, '--yes', '--json'], { env });
    expect(deleted.code, deleted.stderr).toBe(0);
    const { record } = JSON.parse(deleted.stdout);
    const piped = await svc(['records', 'get', 'accounts', gone.id], { env });
    expect(piped.stdout).toBe(
      `id\t${gone.id}\nsurface\taccounts\ntenant\t${ACME}\ncreated\t${record.created_at}\n` +
        `created by\tusr_admin\nupdated\t${record.updated_at}\ndeleted\t${record.deleted_at}\n` +
        `purge at\t${record.purge_at}\nfield.name\tgone\nfield.tags\t["a","b"]\n`,
    );

    const shown = await twoHoursLater(
      ['records', 'get', 'accounts', gone.id],
      Date.parse(record.deleted_at) + 2 * HOUR,
    );
    expect(shown.stdout).toContain(`\ndeleted     ${record.deleted_at} (2 hours ago)\n`);
    // 29 days 22 hours: whole days reached, never rounded up to 30 (attack22 F8).
    expect(shown.stdout).toContain(`\npurge at    ${record.purge_at} (in 29 days)\n`);
    expect(shown.stdout).not.toMatch(/^purged /m);
  });

  it.each([
    ['create', (_id: string) => ['records', 'create', 'accounts', '--data', '{"deleted":"x"}'], 'created'],
    ['update', (id: string) => ['records', 'update', 'accounts', id, '--data', '{"deleted":"x"}'], 'updated'],
  ])('%s shows the record with the same labels', async (_verb, args, done) => {
    const base = await created('{"name":"base"}');
    const r = await svc(args(base.id), { env });
    expect(r.code, r.stderr).toBe(0);
    const labels = r.stdout
      .trimEnd()
      .split('\n')
      .map((line) => line.split('\t')[0]);
    expect(labels.slice(0, 8)).toEqual([
      'id',
      'surface',
      'tenant',
      'created',
      'created by',
      'updated',
      'deleted',
      'purge at',
    ]);
    expect(labels).toContain('field.deleted');
    expect(r.stdout).toMatch(/\ndeleted\t\n/);
    expect(r.stderr).toMatch(new RegExp(`^✓ ${done} accounts record rec_`));
  });
});
