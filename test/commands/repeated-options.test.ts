/**
 * An option that takes one value, given twice, is a usage error (exit 2, one line) in every
 * command of the tree, global flags included: keeping the last value silently made
 * `svc apply -f a.yaml -f b.yaml --prune` apply b.yaml only and revoke what a.yaml declares.
 * Options meant to repeat (they collect their values: --permission, svc api's -f/-F/-H, …) keep
 * every value. The options are found in the command tree, so a new one is checked without being
 * named here.
 */
import type { Command, Option } from 'commander';
import { describe, expect, it } from 'vitest';
import { fullProgram } from '../../src/cli.js';
import { commandPath } from '../../src/cli-errors.js';
import { isRepeatable } from '../../src/commands/kit.js';
import { runInProcess, useTempDirs } from '../helpers/context.js';

const dirs = useTempDirs();
const env = () => ({ ...dirs(), NO_COLOR: '1' });

function everyCommand(command: Command): Command[] {
  return [command, ...command.commands.flatMap(everyCommand)];
}

const program = await fullProgram();
const valued = (option: Option) => option.required || option.optional;
const flag = (option: Option) => (option.long ?? option.short)!;
const nameOf = (option: Option) => [option.short, option.long].filter(Boolean).join('/');

/** A value the option's own parser accepts (the test is about the second one, not the first). */
function valueFor(option: Option): string {
  const candidates = [
    ...(option.argChoices ?? []),
    '1',
    '30d',
    'x',
    'https://example.com/x',
    '2030-01-01T00:00:00Z',
  ];
  for (const value of candidates) {
    try {
      option.parseArg?.(value, undefined);
      return value;
    } catch {
      // not this one
    }
  }
  throw new Error(`no value found that ${nameOf(option)} accepts: add one to the candidates`);
}

const own = everyCommand(program)
  .filter((command) => command !== program)
  .flatMap((command) =>
    command.options
      .filter(valued)
      .map((option) => ({ path: commandPath(command).split(' ').slice(1), option })),
  );
const once = own.filter(({ option }) => !isRepeatable(option));
const repeatable = own.filter(({ option }) => isRepeatable(option));
const globals = program.options.filter(valued);

describe('an option that takes one value, given twice', () => {
  it('finds them in the command tree', () => {
    const names = once.map(({ path, option }) => `${path.join(' ')} ${nameOf(option)}`);
    for (const known of [
      'plan -f/--file',
      'plan --out',
      'apply -f/--file',
      'apply --journal',
      'apply --secret-dir',
      'apply --concurrency',
      'export -o/--output',
      'roles assign --expires-in',
      'api --input',
    ]) {
      expect(names).toContain(known);
    }
    expect(repeatable.map(({ path, option }) => `${path.join(' ')} ${nameOf(option)}`)).toEqual(
      expect.arrayContaining([
        'roles create --permission',
        'api -f/--raw-field',
        'api -F/--field',
        'api -H/--header',
        'users ls --id',
      ]),
    );
    expect(globals.map(nameOf)).toEqual([
      '-p/--profile',
      '--base-url',
      '--app-url',
      '--tenant',
      '--org',
      '--timeout',
    ]);
  });

  it.each(once.map(({ path, option }) => [`${path.join(' ')} ${nameOf(option)}`, path, option] as const))(
    'svc %s: exit 2, one line, nothing done',
    async (_name, path, option) => {
      const value = valueFor(option);
      const run = await runInProcess([...path, flag(option), value, flag(option), value], env());
      expect(run).toEqual({
        code: 2,
        stdout: '',
        stderr: `error: ${nameOf(option)} is given more than once; svc ${path.join(' ')} takes one ${nameOf(option)} (a second would replace the first, not add to it): give it once\n`,
      });
    },
  );

  it.each(
    globals.filter((option) => option.long !== '--tenant').map((option) => [nameOf(option), option] as const),
  )('the global %s: before or after the verb, or both', async (_name, option) => {
    const value = valueFor(option);
    for (const argv of [
      [flag(option), value, flag(option), value, 'config', 'ls'],
      ['config', 'ls', flag(option), value, `${flag(option)}=${value}`],
      [flag(option), value, 'config', 'ls', flag(option), value],
    ]) {
      expect(await runInProcess(argv, env())).toEqual({
        code: 2,
        stdout: '',
        stderr: `error: ${nameOf(option)} is given more than once; svc takes one ${nameOf(option)} (a second would replace the first, not add to it): give it once\n`,
      });
    }
    if (option.short) {
      expect(
        (await runInProcess([option.short, value, option.long!, value, 'config', 'ls'], env())).code,
      ).toBe(2);
    }
  });

  it('--tenant twice: only a command that acts in several tenants takes it (svc export)', async () => {
    expect(
      await runInProcess(['roles', 'ls', '--tenant', 'acme-labs', '--tenant', 'acme-apac'], env()),
    ).toEqual({
      code: 2,
      stdout: '',
      stderr:
        'error: --tenant is given more than once; svc roles ls acts in one tenant (a second would replace the first, not add to it): give it once\n',
    });
    const exported = await runInProcess(['export', '--tenant', 'acme-labs', '--tenant', 'acme-apac'], env());
    // No platform here: export went past its flags to look for one (export.test.ts exports both).
    expect(exported.stderr).toMatch(/^error: no API base URL for profile "default"/);
  });
});

describe('an option meant to repeat', () => {
  it.each(
    repeatable.map(({ path, option }) => [`${path.join(' ')} ${nameOf(option)}`, path, option] as const),
  )('svc %s keeps every value', async (_name, path, option) => {
    const run = await runInProcess([...path, flag(option), 'a=1', flag(option), 'b=2'], env());
    expect(run.stderr).not.toMatch(/more than once/);
  });
});
