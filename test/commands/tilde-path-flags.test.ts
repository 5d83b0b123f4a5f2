/**
 * attack20 F12: bash and zsh expand `~` only at the start of a word, so `--journal=~/j.ndjson`
 * reaches svc as the text `~/j.ndjson`. Taken literally it made a folder named `~` in the current
 * directory, and the resume hint said `journal ~/j.ndjson`, which the user's shell reads as a file in
 * HOME where nothing is. Every flag whose value is a path refuses a value starting with `~` (exit 2,
 * one line naming the fix) before anything is made or sent, as SVC_CONFIG_DIR does
 * (tilde-dir.test.ts). The options are found in the command tree, so a new path flag is checked
 * without being named here.
 */
import { readdirSync, rmSync } from 'node:fs';
import type { Command, Option } from 'commander';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fullProgram } from '../../src/cli.js';
import { commandPath } from '../../src/cli-errors.js';
import { runInProcess, useFreshDirs } from '../helpers/context.js';
import { tempDir } from '../helpers/temp.js';

const dirs = useFreshDirs();

let cwd = '';
let before = '';
beforeEach(() => {
  cwd = tempDir('svc-tilde-flag-');
  before = process.cwd();
  process.chdir(cwd);
});
afterEach(() => {
  process.chdir(before);
  rmSync(cwd, { recursive: true, force: true });
});

const fix = (flag: string, rest: string, home: string) =>
  `write \`${flag} ~${rest}\` with a space (a shell expands ~ only at the start of a word, not after =)${home}; svc did nothing`;

describe('a path flag whose value starts with a ~ no shell expanded', () => {
  it.each([
    [
      ['roles', 'assign', '--file', 'x.csv', '--journal=~/j.ndjson'],
      '--journal ~/j.ndjson',
      fix('--journal', '/j.ndjson', ', or "$HOME/j.ndjson"'),
    ],
    [
      ['webhooks', 'listen', '--port', '0', '--capture=~/caps', '--secret-file', '/nonexistent/s'],
      '--capture ~/caps',
      fix('--capture', '/caps', ', or "$HOME/caps"'),
    ],
    [
      ['roles', 'assign', '--file=~/g.csv', '--dry-run'],
      '--file ~/g.csv',
      fix('--file', '/g.csv', ', or "$HOME/g.csv"'),
    ],
    [['export', '--output=~'], '--output ~', fix('--output', '', ', or "$HOME"')],
    [
      ['plan', '--file', 'a.yaml', '--out=~alice/p.json'],
      '--out ~alice/p.json',
      fix('--out', 'alice/p.json', ''),
    ],
    // review20b F4: a file whose name starts with ~ was told to add a space it already had.
    [
      ['roles', 'assign', '--file', '~grants.csv', '--dry-run'],
      '--file ~grants.csv',
      'for a file whose name starts with ~, write `--file ./~grants.csv`; for your home, `--file ~/…` with a space before it; svc did nothing',
    ],
    [
      ['oauth', 'token', '--client-secret-file=~/s.txt'],
      '--client-secret-file ~/s.txt',
      fix('--client-secret-file', '/s.txt', ', or "$HOME/s.txt"'),
    ],
  ])('%j is refused, naming the fix; no folder named ~ is made', async (argv, what, hint) => {
    const r = await runInProcess(argv, dirs());
    expect(r).toEqual({
      code: 2,
      stdout: '',
      stderr: `error: ${what} starts with a ~ that no shell expanded; ${hint}\n`,
    });
    expect(readdirSync(cwd)).toEqual([]);
  });

  it('a path flag given with a space (the shell expanded ~) or as ./~x is taken as it is', async () => {
    const r = await runInProcess(['roles', 'assign', '--file', './~g.csv', '--dry-run'], dirs());
    expect(r.stderr).not.toContain('no shell expanded');
  });
});

function everyCommand(command: Command): Command[] {
  return [command, ...command.commands.flatMap(everyCommand)];
}
const program = await fullProgram();
/** A flag whose value placeholder names a path: `<file>`, `<dir>`, `<path>`, `<plan.json>`. */
const pathFlags = everyCommand(program).flatMap((command) =>
  command.options
    .filter((option: Option) => /<(file|dir|path|[\w-]+\.\w+)>$/.test(option.flags))
    .map((option) => ({ path: commandPath(command).split(' ').slice(1), flag: option.long! })),
);

describe('every path flag of the tree', () => {
  it('there are path flags to check', () => {
    expect(pathFlags.map(({ flag }) => flag)).toEqual(
      expect.arrayContaining(['--journal', '--capture', '--secret-file', '--secret-dir', '--out', '--file']),
    );
  });
  it.each(pathFlags.map(({ path, flag }) => [`${path.join(' ')} ${flag}`, path, flag] as const))(
    '%s refuses ~/x',
    async (_name, path, flag) => {
      const r = await runInProcess([...path, `${flag}=~/x`], dirs());
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(new RegExp(`^error: ${flag} ~/x starts with a ~ that no shell expanded;`));
      expect(readdirSync(cwd)).toEqual([]);
    },
  );
});
