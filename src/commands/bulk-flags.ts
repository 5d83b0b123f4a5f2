import { type Command, Option } from 'commander';
import { UsageError } from '../errors.js';
import { intFlag } from './kit.js';

/** Requests in flight during a bulk run (one keep-alive pool; a 429 slows every worker). */
export const BULK_CONCURRENCY = { default: 8, max: 64 } as const;

export interface BulkFlags {
  concurrency: number;
  dryRun: boolean;
  journal: string | undefined;
}

/**
 * --concurrency, --dry-run and --journal, worded the same for every bulk command. `only` names
 * the flag they need (`--file`), if any; `dryRun` says what a dry run prints.
 */
export function withBulkFlags(command: Command, only: string | undefined, dryRun: string): Command {
  const within = only ? `with ${only}: ` : '';
  const range = `1-${BULK_CONCURRENCY.max} (default ${BULK_CONCURRENCY.default})`;
  return (
    command
      .addOption(new Option('--concurrency <n>', `${within}requests in flight, ${range}`))
      // Each planned row says it is one, in every machine mode (attack29a F8); `[]` of an empty dry run is told by its line.
      .addOption(new Option('--dry-run', `${dryRun} (--json/--ndjson rows carry "dry_run": true)`))
      .addOption(
        new Option('--journal <path>', `${within}where finished items are recorded (default: state dir)`),
      )
  );
}

/** `--dry-run` for commander's `dryRun`: the flag as the user typed it. */
export function flagName(attribute: string): string {
  return `--${attribute.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;
}

/**
 * Flags that only mean something with another one (`--concurrency` only with `--file`): the first
 * given without it is a usage error. Every cross-check of bulk flags goes through here.
 */
export function onlyWith(flags: Record<string, unknown>, attributes: string[], needed: string): void {
  const given = attributes.find((a) => flags[a] !== undefined);
  if (given !== undefined) throw new UsageError(`${flagName(given)} only works with ${needed}`);
}

/** The bulk flags; `needs` names the flag they only work with (`file` for `--file`), if any. */
export function parseBulkFlags(flags: Record<string, unknown>, needs?: string): BulkFlags {
  if (needs !== undefined && flags[needs] === undefined) {
    onlyWith(flags, ['concurrency', 'dryRun', 'journal'], flagName(needs));
  }
  const journal = flags.journal === undefined ? undefined : String(flags.journal).trim();
  if (journal === '') throw new UsageError('--journal must not be empty');
  return {
    concurrency:
      intFlag('--concurrency', flags.concurrency, 1, BULK_CONCURRENCY.max) ?? BULK_CONCURRENCY.default,
    dryRun: flags.dryRun === true,
    journal,
  };
}
