/**
 * A group builds only the verb a command line names (src/commands/kit.ts verbsOnly): the verb
 * table's names must be the built commands' own, and a verb built alone must be the one of the
 * whole tree, or `svc webhooks VERB` would run (or explain) something else than `svc help webhooks`
 * lists. Lines that name no verb, or a wrong one, still see every verb.
 */
import { describe, expect, it } from 'vitest';
import { globalFlags } from '../../src/cli.js';
import { targetCommand, verbWord } from '../../src/cli-argv.js';
import type { MakeContext } from '../../src/commands/kit.js';
import webhooks, { WEBHOOKS_VERBS } from '../../src/commands/webhooks/index.js';
import { runInProcess } from '../helpers/context.js';

const make: MakeContext = async () => {
  throw new Error('not run');
};

const names = (verbs: readonly (readonly [readonly string[], unknown])[]) => verbs.map(([n]) => [...n]);

describe('the webhooks group built for one verb', () => {
  it('its verb table names each verb as the built command names itself (name, then aliases), all of them', () => {
    const whole = webhooks(make);
    expect(whole.commands.map((c) => [c.name(), ...c.aliases()])).toEqual(names(WEBHOOKS_VERBS));
  });

  it.each(WEBHOOKS_VERBS.flatMap(([n]) => n))(
    '%s: only that verb, the same as in the whole group',
    (verb) => {
      const alone = webhooks(make, verb);
      const whole = webhooks(make);
      expect(alone.commands).toHaveLength(1);
      const built = alone.commands[0]!;
      const same = whole.commands.find((c) => c.name() === built.name())!;
      expect([built.name(), ...built.aliases()]).toContain(verb);
      expect(built.helpInformation()).toBe(same.helpInformation());
      expect(built.commands.map((c) => c.helpInformation())).toEqual(
        same.commands.map((c) => c.helpInformation()),
      );
    },
  );

  it.each([undefined, 'verfy', 'wh_1', '--json'])('%s: every verb', (verb) => {
    expect(webhooks(make, verb).commands).toHaveLength(WEBHOOKS_VERBS.length);
  });

  it('svc webhooks verfy: the unknown verb, with the one meant', async () => {
    const r = await runInProcess(['webhooks', 'verfy'], {});
    expect([r.code, r.stdout]).toEqual([2, '']);
    expect(r.stderr).toMatch(/^error: unknown command 'verfy' \(Did you mean verify\?\)/);
  });

  it('svc help webhooks verify and svc webhooks verify --help: the verb’s help, as the whole group has it', async () => {
    const whole = webhooks(make).commands.find((c) => c.name() === 'verify')!;
    const usage = whole.helpInformation().split('\n')[0];
    for (const argv of [
      ['help', 'webhooks', 'verify'],
      ['webhooks', 'verify', '--help'],
      ['--json', '-p', 'webhooks', 'webhooks', 'verify', '-h'],
    ]) {
      const r = await runInProcess(argv, {});
      expect([r.code, r.stderr, r.stdout.split('\n')[0]]).toEqual([
        0,
        '',
        usage?.replace('Usage: webhooks verify', 'Usage: svc webhooks verify'),
      ]);
    }
  });

  it('svc webhooks -h verify and svc help webhooks: the group’s help, every verb listed', async () => {
    const group = await runInProcess(['webhooks', '--help'], {});
    expect(group.code).toBe(0);
    for (const [, build] of WEBHOOKS_VERBS) expect(group.stdout).toContain(`  ${build(make).name()}`);
    for (const argv of [
      ['webhooks', '-h', 'verify'],
      ['help', 'webhooks'],
      ['webhooks', '--help', 'verify'],
    ])
      expect(await runInProcess(argv, {})).toEqual(group);
  });
});

/**
 * Short flags grouped as commander reads them (review24d M1): `-yp NAME` is `-y -p NAME` and `-yh`
 * is `-y -h`, so the verb (and the command) is the word after NAME, and `-yh` is the group's help.
 * A line with the flags grouped gives what the same line with them apart gives, byte for byte.
 */
describe('grouped short flags before the verb or the command', () => {
  it.each([
    [
      ['webhooks', '-yp', 'test', 'delete', 'wh_1'],
      ['webhooks', '-y', '-p', 'test', 'delete', 'wh_1'],
    ],
    [
      ['webhooks', '-yp', 'test', 'delete', 'wh_1', '--json'],
      ['webhooks', '-y', '-p', 'test', 'delete', 'wh_1', '--json'],
    ],
    [
      ['webhooks', '-yptest', 'delete', 'wh_1'],
      ['webhooks', '-y', '-p', 'test', 'delete', 'wh_1'],
    ],
    [
      ['webhooks', '-yp', 'sign', 'verify', '--help'],
      ['webhooks', '-y', '-p', 'sign', 'verify', '--help'],
    ],
    [
      ['webhooks', '-yh', 'verify'],
      ['webhooks', '-y', '-h', 'verify'],
    ],
    [
      ['webhooks', '-yp', 'test'],
      ['webhooks', '-y', '-p', 'test'],
    ],
    [
      ['-yp', 'prod', 'roles', 'ls'],
      ['-y', '-p', 'prod', 'roles', 'ls'],
    ],
    // A typo before help in a group is the same one line (exit 2), not the group's help.
    [
      ['roles', 'asign', '-yh'],
      ['roles', 'asign', '-y', '-h'],
    ],
  ])('svc %s is svc %s', async (grouped, apart) => {
    expect(await runInProcess(grouped, {})).toEqual(await runInProcess(apart, {}));
  });

  it('they run the verb named after the value, with that profile (svc webhooks -yp test delete wh_1)', async () => {
    const r = await runInProcess(['webhooks', '-yp', 'test', 'delete', 'wh_1'], {});
    expect([r.code, r.stdout]).toEqual([5, '']);
    expect(r.stderr).toMatch(/^error: no profile named "test"/);
    const roles = await runInProcess(['-yp', 'prod', 'roles', 'ls'], {});
    expect([roles.code, roles.stdout]).toEqual([5, '']);
    expect(roles.stderr).toMatch(/^error: no profile named "prod"/);
  });

  // review24f L1: commander splits a group only while its letter is a known option; -h is not one
  // (help is read as a whole word), so -hp and -yhp are an unknown option, as in the full tree.
  it.each([
    [['-hp', 'webhooks', 'delete', 'wh_1'], '-hp'],
    [['-yhp', 'webhooks', 'delete', 'wh_1'], '-hp'],
    [['roles', '-hp', 'x', 'asign'], '-hp'],
  ])('svc %j: h not last in a group is an unknown option (%s), not help', async (argv, option) => {
    const r = await runInProcess(argv, {});
    expect([r.code, r.stdout]).toEqual([2, '']);
    expect(r.stderr).toMatch(new RegExp(`^error: unknown option '${option}'`));
  });

  it('help in a group, or a value that names a verb, still lists every verb (svc webhooks -yh verify, -yp sign verify)', async () => {
    const group = await runInProcess(['webhooks', '--help'], {});
    expect(await runInProcess(['webhooks', '-yh', 'verify'], {})).toEqual(group);
    const help = await runInProcess(['webhooks', '-yp', 'sign', 'verify', '--help'], {});
    expect([help.code, help.stdout.split('\n')[0]]).toEqual([0, 'Usage: svc webhooks verify [options]']);
    const missing = await runInProcess(['webhooks', '-yp', 'test'], {});
    for (const [, build] of WEBHOOKS_VERBS) expect(missing.stderr).toContain(`  ${build(make).name()}`);
  });
});

describe('the verb and command read from argv', () => {
  it.each([
    [['webhooks', '-yp', 'test', 'delete'], 'delete'],
    [['webhooks', '-yptest', 'delete'], 'delete'],
    [['webhooks', '-py', 'delete'], 'delete'],
    [['-y', 'webhooks', '-p', 'x', 'verify'], 'verify'],
    [['help', '-yp', 'x', 'webhooks', 'verify'], 'verify'],
    [['webhooks', '-yh', 'verify'], undefined],
    [['webhooks', '-hy', 'verify'], undefined],
    // review24f L1: h not last in a group is no help for commander, and its p takes no value.
    [['webhooks', '-hp', 'x', 'delete'], undefined],
    // A letter no global flag has: commander hands the rest of the group on unread, so every verb.
    [['webhooks', '-yx', 'test', 'verify'], undefined],
    [['webhooks', '--', 'verify'], undefined],
  ])('svc %j: verb %s', (argv, verb) => {
    expect(verbWord(argv, globalFlags())).toBe(verb);
  });

  it.each([
    [['-yp', 'prod', 'roles', 'ls'], 'roles'],
    [['-ypprod', 'roles', 'ls'], 'roles'],
    [['-vy', 'roles'], 'roles'],
    [['help', '-yp', 'prod', 'roles'], 'roles'],
    [['-hp', 'webhooks', 'delete', 'wh_1'], 'webhooks'],
    [['-yhp', 'webhooks', 'delete', 'wh_1'], 'webhooks'],
  ])('svc %j: command %s', (argv, command) => {
    expect(targetCommand(argv, globalFlags())?.name).toBe(command);
  });
});
