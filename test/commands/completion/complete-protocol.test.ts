/**
 * `svc __complete` (hidden), in-process: what it prints to the scripts of today (which say
 * `--protocol 2` and quote each value themselves) and to a script written before that, installed
 * once in a file and still calling the svc of today. Such a script hands the values to
 * `compgen -W`, which expands `$(…)` and backquotes in them: it gets only the values nothing in
 * which the shell would expand. The real old scripts run in bash in test/e2e/completion.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { runInProcess, useTempDirs } from '../../helpers/context.js';
import { answers, HOSTILE_TENANT, hostileEnv, useHostileServer } from '../../helpers/hostile.js';

const server = useHostileServer({ perFile: true });
const dirs = useTempDirs();

/** Names a server may give its roles (the reference sets no pattern), that no shell expands. */
const PLAIN = ['tenant_admin', 'acme-labs', 'a.b:c@d+e,f=g%h/i', 'rôle_été', '0123', '-leading-dash'];
/** Names holding what a shell expands, splits, globs or quotes, or a control character. */
const SHELLY = [
  '$(touch /tmp/x)',
  '`touch /tmp/x`',
  // biome-ignore lint/suspicious/noTemplateCurlyInString: the shell's ${…}, written as the server sends it
  '${HOME}',
  '$HOME',
  'semi;colon',
  'pi|pe',
  'amp&',
  'gt>lt<',
  "quo'te",
  'dq"uote',
  'back\\slash',
  'with space',
  'star*',
  'q?',
  '[ab]',
  '{a,b}',
  '~root',
  'bang!',
  '#hash',
  'paren(',
  'caret^',
  'nb\u00a0space',
  'bell\u0007',
  'esc\u001b[31m',
  'del\u007f',
  'rtl\u202eoverride',
];
/** Never a candidate, for any script: a second line, or a tab (fish reads a description after it). */
const NEVER = ['two\nlines', 'cr\rhere', 'tab\there'];

async function complete(argv: string[]) {
  const t = await server();
  const items = [...PLAIN, ...SHELLY, ...NEVER].map((name, i) => ({ id: `role_${i}`, name }));
  t.answer(answers.json(200, { items, next_cursor: null }));
  return runInProcess(argv, { ...dirs(), ...hostileEnv(t) });
}

describe('svc __complete: the values a completion script is given', () => {
  it('--protocol 2 (the scripts of today, which quote each value): every one-line value, as it is', async () => {
    expect(await complete(['__complete', '--protocol', '2', 'roles'])).toEqual({
      code: 0,
      stdout: `${[...PLAIN, ...SHELLY].join('\n')}\n`,
      stderr: '',
    });
  });

  it('no --protocol (a script written before it, which hands them to compgen -W): only the plain values, quietly', async () => {
    expect(await complete(['__complete', 'roles'])).toEqual({
      code: 0,
      stdout: `${PLAIN.join('\n')}\n`,
      stderr: '',
    });
  });

  it('as the scripts of sessions 9 and 10 call it (options on the line before __complete): only the plain values', async () => {
    expect(await complete(['--tenant', HOSTILE_TENANT, '__complete', 'roles'])).toEqual({
      code: 0,
      stdout: `${PLAIN.join('\n')}\n`,
      stderr: '',
    });
  });

  it('a protocol it does not know: the plain values only (a newer script asks a newer svc for more)', async () => {
    expect(await complete(['__complete', '--protocol', '3', 'roles'])).toEqual({
      code: 0,
      stdout: `${PLAIN.join('\n')}\n`,
      stderr: '',
    });
  });
});
