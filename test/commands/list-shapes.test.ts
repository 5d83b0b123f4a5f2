/**
 * Every list has the same machine shape: `--json` prints one JSON array of objects and `--ndjson`
 * the same objects one per line. The verbs are found in the command tree (named `ls`, taking
 * `--limit` or `--all`, or marked with listVerb()), so a new list verb is checked without being
 * named here; one that needs arguments fails until ARGS says which.
 */
import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { fullProgram } from '../../src/cli.js';
import { isListVerb } from '../../src/commands/kit.js';
import { DEFAULT_LIMIT } from '../../src/commands/listing.js';
import { SEEDED_WEBHOOKS } from '../../src/sandbox/delivery/events.js';
import { useSandboxContext } from '../helpers/sandbox.js';

const svc = useSandboxContext();
const WEBHOOK = SEEDED_WEBHOOKS.exceptions;

/** Arguments for list verbs that need them (read-only, or --dry-run). */
const ARGS: Record<string, string[]> = {
  'webhooks deliveries ls': [WEBHOOK],
  'roles holders': ['tenant_admin'],
  'webhooks dlq ls': [WEBHOOK],
  'webhooks replay': [WEBHOOK, '--dlq', '--dry-run'],
  'webhooks dlq discard': [WEBHOOK, '--all', '--dry-run'],
  'tenants api-keys ls': ['acme-treasury'],
  'roles assignments': ['usr_analyst'],
  'records ls': ['reconciliations'],
};

function leaves(command: Command, path: string[] = []): Array<{ path: string[]; command: Command }> {
  const visible = command.commands.filter(
    (c) => !(c as unknown as { _hidden?: boolean })._hidden && c.name() !== 'help',
  );
  if (visible.length === 0) return [{ path, command }];
  return visible.flatMap((c) => leaves(c, [...path, c.name()]));
}

const program = await fullProgram();
const lists = leaves(program).filter(({ command }) => isListVerb(command));

describe('the --json and --ndjson shape of every list verb', () => {
  it('finds the list verbs in the command tree', () => {
    const names = lists.map(({ path }) => path.join(' '));
    for (const known of [
      'tenants ls',
      'tenants api-keys ls',
      'roles ls',
      'roles assignments',
      'webhooks ls',
      'webhooks deliveries ls',
      'webhooks dlq ls',
      'roles holders',
      'roles permissions',
      'oauth ls',
      'audit ls',
      'records ls',
      'profiles ls',
      'config ls',
    ]) {
      expect(names).toContain(known);
    }
  });

  it.each(lists.map(({ path }) => [path.join(' ')]))('svc %s', async (name) => {
    const argv = [...name.split(' '), ...(ARGS[name] ?? [])];
    const json = await svc.run([...argv, '--json']);
    expect(json.code, `svc ${argv.join(' ')} --json: ${json.stderr} (arguments it needs go in ARGS)`).toBe(0);
    const array = JSON.parse(json.stdout) as unknown;
    expect(Array.isArray(array), `svc ${name} --json printed ${json.stdout.slice(0, 80)}`).toBe(true);
    for (const item of array as unknown[]) {
      expect(typeof item === 'object' && item !== null && !Array.isArray(item)).toBe(true);
    }
    const ndjson = await svc.run([...argv, '--ndjson']);
    expect(ndjson.code, ndjson.stderr).toBe(0);
    const lines = ndjson.stdout === '' ? [] : ndjson.stdout.trimEnd().split('\n');
    expect(lines.map((line) => JSON.parse(line))).toEqual(array);
  });
});

describe('the names of every ls', () => {
  // `svc webhooks dlq list W` took "list" for the webhook id when dlq's ls had no alias.
  const everyLs = leaves(program).filter(({ path }) => path.at(-1) === 'ls');
  it.each(everyLs.map(({ path, command }) => [path.join(' '), command] as const))(
    'svc %s is also `list`',
    (_name, command) => {
      expect(command.aliases()).toContain('list');
    },
  );

  it('svc webhooks dlq list WEBHOOK lists like dlq ls', async () => {
    const list = await svc.run(['webhooks', 'dlq', 'list', WEBHOOK, '--json']);
    expect(list).toEqual(await svc.run(['webhooks', 'dlq', 'ls', WEBHOOK, '--json']));
    expect(list.code).toBe(0);
  });
});

describe('paging flags', () => {
  // An `ls` that takes --limit reads pages through Listing: --limit a total (with --all too),
  // --cursor to go on, --all to stream every page, in listingOptions()'s words on every list.
  const paged = lists.filter(
    ({ path, command }) => path.at(-1) === 'ls' && command.options.some((o) => o.long === '--limit'),
  );

  it('finds the paged lists', () => {
    expect(paged.map(({ path }) => path.join(' ')).sort()).toEqual([
      'audit ls',
      'oauth ls',
      'records ls',
      'roles ls',
      'tenants api-keys ls',
      'tenants ls',
      'users ls',
      'webhooks deliveries ls',
      'webhooks dlq ls',
      'webhooks ls',
    ]);
  });

  it.each(paged.map(({ path, command }) => [path.join(' '), command] as const))(
    'svc %s',
    (_name, command) => {
      const description = (long: string) => command.options.find((o) => o.long === long)?.description;
      expect(description('--limit')).toMatch(
        new RegExp(`^at most N [a-z ]+ in total \\(default ${DEFAULT_LIMIT}; with --all: every one\\)$`),
      );
      expect(description('--cursor')).toBe('continue where a previous listing stopped');
      expect(description('--all')).toMatch(/^every [a-z]+, streamed as pages arrive$/);
      // "every entry", never "every entrie": the singular of what --limit counts.
      const items = /^at most N ([a-z ]+) in total/.exec(description('--limit') ?? '')![1]!;
      const item = /^every ([a-z]+),/.exec(description('--all') ?? '')![1]!;
      expect(item).toBe(items.endsWith('ies') ? `${items.slice(0, -3)}y` : items.replace(/s$/, ''));
    },
  );
});
