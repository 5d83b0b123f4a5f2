/**
 * `webhooks ls`, `oauth ls`, `roles ls` and `tenants api-keys ls` take `--limit`, `--cursor` and
 * `--all` as every list does (attack26a F12: `--limit` was an unknown option), with the same
 * continuation line on stderr in every mode. OAuth clients and API keys come whole in one answer:
 * --limit bounds the rows printed, and the continuation names --all, not a cursor
 * (test/commands/whole-lists.test.ts).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { useSandboxContext } from '../helpers/sandbox.js';

const svc = useSandboxContext();

const MODES = [
  ['a terminal', '', { tty: { stdout: true, stderr: true }, columns: 250 }],
  ['a pipe', '', {}],
  ['--json', '--json', {}],
  ['--ndjson', '--ndjson', {}],
] as const;

type Item = Record<string, unknown>;

beforeAll(async () => {
  for (const name of ['c1', 'c2']) {
    const r = await svc.run([
      ...['oauth', 'create', '--name', name, '--redirect-uri', 'https://example.com/cb'],
      ...['--scope', 'read:exceptions', '--show-secret', '--json'],
    ]);
    expect(r.code, r.stderr).toBe(0);
  }
  for (const name of ['k1', 'k2']) {
    const r = await svc.run([
      ...[
        'tenants',
        'api-keys',
        'create',
        'acme-treasury',
        '--name',
        name,
        '--kind',
        'publishable',
        '--json',
      ],
    ]);
    expect(r.code, r.stderr).toBe(0);
  }
});

/** The rows a mode printed, as the ids of their items (the first column, or the object's id). */
function ids(stdout: string, mode: string, key: string, tty = false): string[] {
  if (mode === '--json') return (JSON.parse(stdout) as Item[]).map((item) => item[key] as string);
  const lines = stdout === '' ? [] : stdout.trimEnd().split('\n');
  if (mode === '--ndjson') return lines.map((line) => (JSON.parse(line) as Item)[key] as string);
  // A table's first line is its header.
  return (tty ? lines.slice(1) : lines).map((line) => line.split(/\t| {2}/)[0]!);
}

describe.each([
  // verb, the id's field, whether the API pages it (a cursor of the server's) or gives it whole
  ['webhooks ls', 'id', 'paged', 'ID  URL  EVENTS  STATUS  ATTEMPTS  DESCRIPTION  CREATED'],
  ['oauth ls', 'client_id', 'whole', 'CLIENT ID  NAME  SCOPES  REDIRECT URIS  PKCE  CREATED  SECRET ROTATED'],
  ['roles ls', 'id', 'paged', 'ID  NAME  KIND  PERMISSIONS  DESCRIPTION'],
  [
    'tenants api-keys ls acme-treasury',
    'id',
    'whole',
    'ID  KIND  NAME  PREFIX  CREATED  REVOKED  STATUS  STOPPED BECAUSE',
  ],
] as const)('svc %s', (verb, key, paging, header) => {
  const argv = verb.split(' ');
  let every: string[] = [];
  beforeAll(async () => {
    const all = await svc.run([...argv, '--all', '--json']);
    expect(all.code, all.stderr).toBe(0);
    expect(all.stderr).toBe('');
    every = (JSON.parse(all.stdout) as Item[]).map((item) => item[key] as string);
    expect(every.length).toBeGreaterThan(1);
  });

  it.each(MODES)(
    '--limit 1 on %s prints one row and where to go on; --cursor goes on',
    async (_, mode, io) => {
      const modeArgs = mode === '' ? [] : [mode];
      const first = await svc.run([...argv, '--limit', '1', ...modeArgs], io);
      expect(first.code, first.stderr).toBe(0);
      if (io === MODES[0][2]) {
        // A table: its header, then the one row.
        const [head, ...rows] = first.stdout.trimEnd().split('\n');
        expect(head!.replace(/ {2,}/g, '  ')).toBe(header);
        expect(rows).toHaveLength(1);
      }
      expect(ids(first.stdout, mode, key, io === MODES[0][2])).toEqual(every.slice(0, 1));
      const modeWord = mode === '' ? '' : ` ${mode}`;
      if (paging === 'whole') {
        // One request reads them all: the rest with --all, no cursor counting rows (review27a F1).
        expect(first.stderr).toBe(
          `1 of ${every.length} shown; every one with: svc ${verb}${modeWord} --all\n`,
        );
        return;
      }
      const shown = `1 shown; more with: svc ${verb}${modeWord} --cursor `;
      expect(first.stderr).toMatch(new RegExp(`^${shown}[\\w-]+  \\(or --all\\)\\n$`));
      const cursor = /--cursor (\S+) {2}/.exec(first.stderr)![1]!.replace(/^'|'$/g, '');
      const rest = await svc.run([...argv, '--cursor', cursor, ...modeArgs], io);
      expect(rest.code, rest.stderr).toBe(0);
      expect(ids(rest.stdout, mode, key, io === MODES[0][2])).toEqual(every.slice(1));
      expect(rest.stderr).toBe('');
    },
  );

  it('--all --limit N prints N, and the continuation has no "(or --all)"', async () => {
    const r = await svc.run([...argv, '--all', '--limit', '1']);
    expect(r.code, r.stderr).toBe(0);
    expect(ids(r.stdout, '', key)).toEqual(every.slice(0, 1));
    expect(r.stderr).toMatch(
      paging === 'whole'
        ? new RegExp(`^1 of ${every.length} shown; every one with: svc ${verb} --all\\n$`)
        : new RegExp(`^1 shown; more with: svc ${verb} --cursor \\S+\\n$`),
    );
  });

  it('takes the paging flags in the words of every list', async () => {
    const help = (
      await svc.run([...argv.filter((word) => word !== 'acme-treasury'), '--help'])
    ).stdout.replace(/\s+/g, ' ');
    expect(help).toMatch(/--limit <n> at most N \w+ in total \(default 50; with --all: every one\)/);
    expect(help).toMatch(/--cursor <cursor> continue where a previous listing stopped/);
    expect(help).toMatch(/--all every \w+, streamed as pages arrive/);
    // A list the API gives whole says what the flags bound.
    expect(help.includes('The API gives this list whole, in one answer')).toBe(paging === 'whole');
  });
});

describe('a list the API gives whole', () => {
  it.each([
    ['oauth ls', ['oauth', 'ls']],
    ['tenants api-keys ls', ['tenants', 'api-keys', 'ls', 'acme-treasury']],
  ])(
    'svc %s refuses a cursor on a whole answer: read as none, it would list from the start',
    async (verb, argv) => {
      const r = await svc.run([...argv, '--cursor', 'eyJ2IjoxfQ']);
      expect(r.code).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr).toBe(
        verb === 'oauth ls'
          ? 'error: `svc oauth ls` takes no --cursor: the API gives this list whole, in one answer; give --all to list every one (or a larger --limit)\n'
          : `error: --cursor eyJ2IjoxfQ is not one \`svc ${verb}\` printed; give the cursor of svc's "more with:" line, or --all to list every one\n`,
      );
    },
  );
});

describe('svc roles ls', () => {
  it('repeats its filters in the continuation: a cursor is bound to them', async () => {
    const r = await svc.run(['roles', 'ls', '--builtin', '--include-deleted', '--limit', '1']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(
      /^1 shown; more with: svc roles ls --builtin --include-deleted --cursor [\w-]+ {2}\(or --all\)\n$/,
    );
  });
});
