import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { loginHint } from '../../src/auth/login-hint.js';
import { reloginHint } from '../../src/auth/refresh.js';
import { otherCallersRun } from '../../src/bulk/caller.js';
import { refuseDirectory, refusedOwner } from '../../src/bulk/journal.js';
import { createOnce } from '../../src/commands/replayed-creation.js';
import { CaptureDir } from '../../src/commands/webhooks/capture.js';
import type { SvcError } from '../../src/errors.js';
import { ConnectionError, OutcomeUnknownError } from '../../src/http/errors.js';
import { runInProcess } from '../helpers/context.js';
import { useTempDir } from '../helpers/temp.js';

// Every command a hint prints is run by pasting it (examples16 E2: `rm <journal>` printed bare, in
// a state dir whose path held a space, deleted another file and left the journal). Each hint below
// embeds a path, id or value the user chose; each must come back from a shell as exactly that word.

/** A value that is one word to no shell as it is: a space, a quote and a `$`. */
const AWKWARD = "my dir/it's $HOME";

/** The words sh reads in `line`, expanded as a paste would (nothing is run). */
function shellWords(line: string): string[] {
  const r = spawnSync('sh', ['-c', `set -- ${line}; printf '%s\\0' "$@"`], { encoding: 'utf8' });
  expect(r.status, r.stderr).toBe(0);
  return r.stdout.split('\0').slice(0, -1);
}

/** The command in backquotes in `text` that starts with `start`. */
function quotedCommand(text: string, start: string): string {
  const found = [...text.matchAll(/`([^`]*)`/g)].map((m) => m[1]!).find((c) => c.startsWith(start));
  expect(found, text).toBeDefined();
  return found!;
}

function hintOf(thrown: () => unknown): string {
  try {
    thrown();
  } catch (error) {
    return (error as SvcError).hint ?? '';
  }
  throw new Error('nothing was thrown');
}

const base = useTempDir('svc-hint-quoting-', (made) => mkdirSync(join(made, AWKWARD), { recursive: true }));
const dir = join(base, AWKWARD);
const journal = join(dir, 'roles-assign-0123456789abcdef.ndjson');
const owner = { operation: 'op-new', command: 'cmd', by: 'usr_me' };

describe('hints that embed a path, id or value come back from a shell as that word', () => {
  const legacy = () => refusedOwner(journal, { operation: 'cmd', run_id: 'r' }, owner);
  it.each([
    ['the old-journal refusal: cat', () => legacy()?.hint ?? '', 'cat ', ['cat', journal]],
    ['the old-journal refusal: rm', () => legacy()?.hint ?? '', 'rm ', ['rm', journal]],
    [
      'the old-journal refusal of a relative --journal starting with -: rm reads no option',
      () => refusedOwner('-x run.ndjson', { operation: 'cmd', run_id: 'r' }, owner)?.hint ?? '',
      'rm ',
      ['rm', './-x run.ndjson'],
    ],
    [
      "another caller's run: cat",
      () => {
        const journals = join(base, 'journals dir $X');
        mkdirSync(journals, { recursive: true });
        const theirs = join(journals, "roles-assign-o'ther.ndjson");
        writeFileSync(
          theirs,
          `${JSON.stringify({ operation: 'op-theirs', command: 'cmd', by: 'usr_other' })}\n`,
        );
        return otherCallersRun(journals, 'roles-assign', owner) ?? '';
      },
      'cat ',
      ['cat', join(base, 'journals dir $X', "roles-assign-o'ther.ndjson")],
    ],
    [
      'a --journal that is a directory',
      () => `\`${/--journal \S.*$/.exec(hintOf(() => refuseDirectory(dir)))?.[0]}\``,
      '--journal ',
      ['--journal', join(dir, 'svc-journal.ndjson')],
    ],
    [
      "a confidential client's login to run again: --client-id",
      () => reloginHint('svc login', { client_id: AWKWARD, client_secret: 's' } as never),
      'svc login ',
      ['svc', 'login', '--client-id', AWKWARD, '--client-secret-file', 'FILE'],
    ],
    [
      'a login to run again for a profile named by SVC_PROFILE: -p',
      () => loginHint({ profile: AWKWARD, profileSource: 'env' }, {}),
      'svc -p',
      ['svc', '-p', AWKWARD, 'login'],
    ],
  ])('%s', (_name, hint, start, words) => {
    expect(shellWords(quotedCommand(hint(), start))).toEqual(words);
  });

  // A profile whose name no svc makes now (a hand edit, an older svc) is still used with -p: the
  // hints that name it by -p give it as one word (profileOption), not `-p my dir/it's $HOME`.
  describe('a profile named with a space, a quote and a `$`', () => {
    const config = join(base, 'config');
    beforeAll(() => {
      mkdirSync(config, { recursive: true, mode: 0o700 });
      writeFileSync(
        join(config, 'config.json'),
        JSON.stringify({ profiles: { [AWKWARD]: { base_url: 'http://127.0.0.1:9' } } }),
        { mode: 0o600 },
      );
      writeFileSync(
        join(config, 'credentials.json'),
        JSON.stringify({
          profiles: {
            [AWKWARD]: {
              type: 'token',
              access_token: 'svc_pk_a\nb',
              obtained_at: '2026-01-15T12:00:00.000Z',
            },
          },
        }),
        { mode: 0o600 },
      );
    });
    const run = async (argv: string[]) =>
      (await runInProcess(['-p', AWKWARD, ...argv], { SVC_CONFIG_DIR: config, NO_COLOR: '1' })).stderr;
    it.each<[string, string[], string, string[]]>([
      [
        'config get of an unset key',
        ['config', 'get', 'tenant'],
        'svc -p',
        ['svc', '-p', AWKWARD, 'config', 'set', 'tenant', 'ID_OR_SLUG'],
      ],
      [
        'a stored credential that cannot be sent: log in again',
        ['tenants', 'ls'],
        'svc -p',
        ['svc', '-p', AWKWARD, 'login'],
      ],
      [
        'a stored credential that cannot be sent: forget it',
        ['tenants', 'ls'],
        `svc -p ${"'"}`,
        ['svc', '-p', AWKWARD, 'logout', '--no-revoke'],
      ],
    ])('%s', async (_name, argv, start, words) => {
      const stderr = await run(argv);
      const commands = [...stderr.matchAll(/`([^`]*)`/g)]
        .map((m) => m[1]!)
        .filter((c) => c.startsWith(start));
      expect(commands.map(shellWords), stderr).toContainEqual(words);
    });
  });

  it('the --capture directory others can read: chmod', async () => {
    const capture = join(base, `capture ${AWKWARD}`);
    mkdirSync(capture, { recursive: true });
    chmodSync(capture, 0o755);
    const error = await CaptureDir.open(capture).then(
      () => undefined,
      (e: SvcError) => e,
    );
    expect(shellWords(quotedCommand(error?.hint ?? '', 'chmod '))).toEqual(['chmod', '700', capture]);
  });

  it('a creation whose answer was lost: the --idempotency-key to re-run with', async () => {
    const lost = new OutcomeUnknownError(new ConnectionError('socket hang up'));
    const request = () => ({ withResponse: () => Promise.reject(lost) }) as never;
    const error = await createOnce(AWKWARD, 'webhook', request).then(
      () => undefined,
      (e: SvcError) => e,
    );
    const flag = /--idempotency-key .* to get the same answer/.exec(error?.hint ?? '')?.[0];
    expect(shellWords(flag?.replace(/ to get the same answer$/, '') ?? '')).toEqual([
      '--idempotency-key',
      AWKWARD,
    ]);
  });
});
