/**
 * What the zsh script reads from the line before svc (`__svc_assigned`, src/completion/zsh.ts): the
 * SVC_* variables the command will get, or false (nothing offered) when they cannot be known from
 * the line. Its functions are run in `zsh -f` with LBUFFER set, as at TAB, without a terminal.
 */

import { spawnSync } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fullProgram } from '../../src/cli.js';
import { commandModel } from '../../src/completion/model.js';
import { zshScript } from '../../src/completion/zsh.js';
import { useTempDir } from '../helpers/temp.js';

const hasZsh = spawnSync('zsh', ['-fc', 'true']).status === 0;
const dir = useTempDir('svc-zsh-assigned-');
const functions = join(dir, 'functions.zsh');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

beforeAll(async () => {
  const script = zshScript(commandModel(await fullProgram()));
  const from = script.indexOf('__svc_unquote() {');
  const to = script.indexOf('# Values svc knows at TAB time');
  writeFileSync(functions, script.slice(from, to));
});

/** `__svc_assigned` for `line` (LBUFFER): its assignments, or false. */
function assigned(line: string): string[] | false {
  const run = spawnSync(
    'zsh',
    [
      '-fc',
      `source ${functions}; local -a assigned unassigned; LBUFFER=$1; if __svc_assigned; then print -rl -- ok "\${assigned[@]}"; else print -r -- no; fi`,
      'zsh',
      line,
    ],
    { encoding: 'utf8' },
  );
  const [said, ...rest] = run.stdout.trimEnd().split('\n');
  return said === 'ok' ? rest : false;
}

describe.skipIf(!hasZsh)('zsh completion: the variables typed before svc', () => {
  it.each([
    ['SVC_TENANT=acme-labs svc roles get ', ['SVC_TENANT=acme-labs']],
    ['env SVC_TENANT=acme-labs svc roles get ', ['SVC_TENANT=acme-labs']],
    ["env 'SVC_TENANT=acme-labs' svc roles get ", ['SVC_TENANT=acme-labs']],
    // review24b L2: env spelt by its path, or after a precommand modifier, is read as env.
    ['/usr/bin/env SVC_TENANT=acme-labs svc roles get ', ['SVC_TENANT=acme-labs']],
    ['noglob env SVC_TENANT=acme-labs svc roles get ', ['SVC_TENANT=acme-labs']],
    ['command env SVC_TENANT=acme-labs svc roles get ', ['SVC_TENANT=acme-labs']],
    ['exec env SVC_TENANT=acme-labs svc roles get ', ['SVC_TENANT=acme-labs']],
    ['svc roles get ', []],
    ['noglob svc roles get ', []],
  ])('reads %j', (line, expected) => {
    expect(assigned(line)).toEqual(expected);
  });

  it.each([
    // review24b L1: a process substitution in an assignment's value (zsh makes it a /proc path).
    'SVC_TENANT=<(echo hi) svc roles get ',
    'SVC_TENANT=a>(cat) svc roles get ',
    'SVC_TENANT=a=(echo hi) svc roles get ',
    // review24b L1: env's words are arguments: zsh brace-expands and globs them.
    'env SVC_TENANT={acme,labs} svc roles get ',
    'env SVC_TENANT=ac* svc roles get ',
    'env SVC_TENANT=acme? svc roles get ',
    'env SVC_TENANT=[ab]cme svc roles get ',
    'env SVC_TENANT=acme# svc roles get ',
    'env SVC_TENANT=^acme svc roles get ',
    'env SVC_TENANT=<(echo hi) svc roles get ',
    // review24b L2: forms that change the environment before svc, not read.
    'builtin export SVC_TENANT=acme; svc roles get ',
    'integer SVC_N=1; svc roles get ',
    'float SVC_N=1; svc roles get ',
    'private SVC_TENANT=acme; svc roles get ',
    'command -p env SVC_TENANT=acme svc roles get ',
    'exec -a x env SVC_TENANT=acme svc roles get ',
    // As before: what zsh expands in an assignment, and an earlier export.
    'SVC_TENANT==cfg svc roles get ',
    'export SVC_TENANT=acme; svc roles get ',
  ])('offers nothing for %j', (line) => {
    expect(assigned(line)).toBe(false);
  });
});
