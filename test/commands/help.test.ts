/** Every command's help: a description and examples; the program's own --help. In-process. */
import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { buildProgram } from '../../src/cli.js';
import { createContext } from '../../src/context.js';
import { fakeIO, runInProcess, testDeps } from '../helpers/context.js';

function leaves(command: Command): Command[] {
  const subs = command.commands.filter(
    (c) => c.name() !== 'help' && !(c as unknown as { _hidden?: boolean })._hidden,
  );
  return subs.length === 0 ? [command] : subs.flatMap(leaves);
}

function path(command: Command): string {
  const names: string[] = [];
  for (let c: Command | null = command; c; c = c.parent) names.unshift(c.name());
  return names.join(' ');
}

describe('help', () => {
  it('every command has a description and examples', async () => {
    const fake = fakeIO();
    const deps = testDeps(fake.io, {});
    const program = await buildProgram(
      async (cmd) => createContext(deps, cmd.optsWithGlobals()),
      fake.io,
      [],
      {
        loadAll: true,
      },
    );
    const all = leaves(program);
    expect(all.length).toBeGreaterThan(10);
    for (const command of all) {
      let text = '';
      command.configureOutput({ writeOut: (s) => (text += s), writeErr: (s) => (text += s) });
      command.outputHelp();
      expect(command.description(), path(command)).not.toBe('');
      expect(text, `${path(command)} --help`).toMatch(/\nExamples:\n {2}# .+\n {2}\$ .*svc /);
    }
  });

  it('answers --help from the program, on stdout, with exit 0', async () => {
    const help = await runInProcess(['--help'], {});
    expect([help.code, help.stderr]).toEqual([0, '']);
    expect(help.stdout).toContain('Usage: svc [options] [command]');
    for (const name of ['login', 'tenants', 'api', 'sandbox'])
      expect(help.stdout).toMatch(new RegExp(`\\n {2}${name}`));
  });

  it.each<[string[], string]>([
    [['help', 'tenats'], "error: unknown command 'tenats' (Did you mean tenants?); see `svc --help`\n"],
    [['help', 'zzzz'], "error: unknown command 'zzzz'; see `svc --help`\n"],
  ])('svc %j: one line naming the unknown command, exit 2 (as `svc tenats`)', async (argv, stderr) => {
    expect(await runInProcess(argv, {})).toEqual({ code: 2, stdout: '', stderr });
  });

  it.each<[string[], string]>([
    [
      ['help', 'roles', 'asign'],
      "error: unknown command 'asign' (Did you mean assign?); see `svc roles --help`\n",
    ],
    [
      ['help', 'webhooks', 'dlq', 'dscard'],
      "error: unknown command 'dscard' (Did you mean discard?); see `svc webhooks dlq --help`\n",
    ],
    [['help', 'roles', 'assign', 'now'], "error: unknown command 'now'; see `svc roles assign --help`\n"],
  ])(
    'svc %j: a typo in a nested name is the one line `svc roles asign` gets, exit 2',
    async (argv, stderr) => {
      expect(await runInProcess(argv, {})).toEqual({ code: 2, stdout: '', stderr });
      expect(await runInProcess([...argv.slice(1), '--json'], {})).toMatchObject({ code: 2 });
    },
  );

  it.each<[string[], string]>([
    [['roles', 'nosuch', '--help'], "error: unknown command 'nosuch'; see `svc roles --help`\n"],
    [
      ['roles', 'asign', '-h'],
      "error: unknown command 'asign' (Did you mean assign?); see `svc roles --help`\n",
    ],
    [['tenats', '--help'], "error: unknown command 'tenats' (Did you mean tenants?); see `svc --help`\n"],
    [
      ['tenants', 'api-keys', 'lss', '--help'],
      "error: unknown command 'lss' (Did you mean ls?); see `svc tenants api-keys --help`\n",
    ],
    [
      ['--tenant', 'x', 'webhooks', 'nosuch', '--help'],
      "error: unknown command 'nosuch'; see `svc webhooks --help`\n",
    ],
  ])(
    'svc %j: an unknown word before --help is the error `svc help …` gives, exit 2',
    async (argv, stderr) => {
      expect(await runInProcess(argv, {})).toEqual({ code: 2, stdout: '', stderr });
      expect(
        await runInProcess(['help', ...argv.filter((a) => !a.startsWith('-') && a !== 'x')], {}),
      ).toEqual({
        code: 2,
        stdout: '',
        stderr,
      });
    },
  );

  // Finding L2 (review-c, s11): in a group whose default verb takes the words (`webhooks dlq
  // WEBHOOK`), more words than that verb takes start with a typo of a verb: the same one line,
  // with --help or without, not the group's help with exit 0.
  it.each<[string[], string]>([
    [
      ['webhooks', 'dlq', 'discardd', 'wh_1'],
      "error: unknown command 'discardd' (Did you mean discard?); see `svc webhooks dlq --help`\n",
    ],
    [
      ['webhooks', 'deliveries', 'gett', 'wh_1', 'dlv_1'],
      "error: unknown command 'gett' (Did you mean get?); see `svc webhooks deliveries --help`\n",
    ],
  ])('svc %j, with or without --help: a typo of a verb before more words, exit 2', async (argv, stderr) => {
    for (const help of [[], ['--help'], ['-h']]) {
      expect(await runInProcess([...argv, ...help], {})).toEqual({ code: 2, stdout: '', stderr });
    }
  });

  // attack18a F3: a word beyond the default verb's arguments that is no typo of a verb (an
  // unquoted "2 hours", a second value after a flag) is named, not the webhook id blamed.
  const extra = (words: string, group: string, takes: string) =>
    `error: too many arguments: ${words} (svc webhooks ${group} takes ${takes}); a flag takes one word: quote a value with spaces, or give the flag again for another value; see \`svc webhooks ${group} --help\`\n`;
  it.each<[string[], string]>([
    [
      ['webhooks', 'dlq', 'wh_b7ade1d59b1adb36c9e785eb', '--since', '2', 'hours'],
      extra('"hours"', 'dlq', 'WEBHOOK'),
    ],
    [['webhooks', 'dlq', 'wh_x', '--since', '2', 'hours'], extra('"hours"', 'dlq', 'WEBHOOK')],
    [
      ['webhooks', 'dlq', 'wh_x', '--event-type', 'exception.created', 'exception.sla.breached'],
      extra('"exception.sla.breached"', 'dlq', 'WEBHOOK'),
    ],
    [['webhooks', 'deliveries', 'wh_x', 'extra', 'more'], extra('"extra", "more"', 'deliveries', 'WEBHOOK')],
  ])('svc %j: the extra words named, exit 2', async (argv, stderr) => {
    expect(await runInProcess(argv, {})).toEqual({ code: 2, stdout: '', stderr });
  });

  it.each<[string[], string]>([
    [
      ['webhooks', 'dlq', 'wh_x', '--since', '2h', '--event-type', 'webhook.test', '--help'],
      'Usage: svc webhooks dlq',
    ],
    [['webhooks', 'deliveries', 'wh_x', '--status', 'failed', '-h'], 'Usage: svc webhooks deliveries'],
    [['roles', 'get', 'nosuch', '--help'], 'Usage: svc roles get'],
    [['webhooks', 'dlq', 'wh_x', '--help'], 'Usage: svc webhooks dlq'],
    [['roles', '--help', '--', 'nosuch'], 'Usage: svc roles'],
    [['api', 'GET', '/v1/me', '--help'], 'Usage: svc api'],
  ])('svc %j: an argument of a verb before --help is no typo: the help, exit 0', async (argv, usage) => {
    const help = await runInProcess(argv, {});
    expect([help.code, help.stderr, help.stdout.split('\n')[0]?.startsWith(usage)]).toEqual([0, '', true]);
  });

  it.each<[string[], string]>([
    [['help', 'roles', 'assign'], 'Usage: svc roles assign'],
    [['help', 'webhooks', 'dlq', 'discard'], 'Usage: svc webhooks dlq discard'],
    [['--json', 'help', 'role', 'assign'], 'Usage: svc roles assign'],
    [['help', 'help'], 'Usage: svc [options] [command]'],
  ])('svc %j prints that command’s help, exit 0', async (argv, usage) => {
    const help = await runInProcess(argv, {});
    expect([help.code, help.stderr, help.stdout.split('\n')[0]?.startsWith(usage)]).toEqual([0, '', true]);
  });

  it('a missing subcommand shows the help on stderr before the error, but not with --json/--ndjson', async () => {
    const text = await runInProcess(['roles'], {});
    expect(text.code).toBe(2);
    expect(text.stderr).toMatch(
      /^Usage: svc roles\|role \[options\] \[command\]\n[\s\S]*\nerror: svc roles needs a subcommand; see `svc roles --help`\n$/,
    );
    for (const [argv, path] of [
      [['--json'], 'svc'],
      [['roles', '--json'], 'svc roles'],
      [['roles', '--ndjson'], 'svc roles'],
    ] as const) {
      const r = await runInProcess([...argv], {});
      expect([r.code, r.stdout, r.stderr]).toEqual([
        2,
        '',
        `${JSON.stringify({ error: { code: 'usage', message: `${path} needs a subcommand`, exit_code: 2, hint: `see \`${path} --help\`` } })}\n`,
      ]);
    }
  });

  it('svc help tenants still prints its help', async () => {
    const help = await runInProcess(['help', 'tenants'], {});
    expect([help.code, help.stderr]).toEqual([0, '']);
    expect(help.stdout).toContain('Usage: svc tenants|tenant [options] [command]');
  });
});
