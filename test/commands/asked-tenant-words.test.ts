/**
 * review25b L5: a change's question and its ✓ line named the tenant by two rules: `roles delete`
 * asked "…in Acme Treasury (acme-treasury)?" and printed "✓ deleted … in 8ab23c1d-…". One rule
 * now (changed-in.ts): the ✓ line after a question uses the question's words; without one (`--yes`,
 * no terminal) the tenant as the run named it.
 */
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { customRole } from '../helpers/bulk.js';
import { scriptedPrompter } from '../helpers/context.js';
import { ACME, useSandboxContext } from '../helpers/sandbox.js';
import { useTempDir } from '../helpers/temp.js';

const svc = useSandboxContext();
const WORDS = 'Acme Treasury (acme-treasury)';
const dir = useTempDir('svc-asked-words-');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Runs `argv` on a terminal whose user answers yes; its output and the question asked. */
async function askedYes(argv: string[]) {
  const prompter = scriptedPrompter([true]);
  const r = await svc.run(argv, { tty: true, prompter });
  return { ...r, questions: prompter.questions };
}

describe('the ✓ line names the tenant in the words its question did', () => {
  it('roles delete asked on a terminal: both say Acme Treasury (acme-treasury)', async () => {
    const id = await customRole(svc.sandbox(), 'asked-words');
    const r = await askedYes(['roles', 'delete', 'asked-words']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.questions).toEqual([`Delete the custom role asked-words (${id}) in ${WORDS}? Nobody holds it.`]);
    expect(r.stderr).toBe(`✓ deleted role asked-words (${id}) in ${WORDS}; nobody held it\n`);
  });

  it('revoke asked on a terminal: the ✓ line says the question’s words', async () => {
    const grant = [
      'roles',
      'assign',
      'usr_analyst',
      'tenant_viewer',
      '--expires-in',
      '1d',
      '--justification',
      'x',
    ];
    expect((await svc.run([...grant, '--yes'])).code).toBe(0);
    const r = await askedYes(['roles', 'revoke', 'usr_analyst', 'tenant_viewer']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.questions).toEqual([`Revoke tenant_viewer from usr_analyst in ${WORDS}?`]);
    expect(r.stderr).toMatch(
      new RegExp(`^✓ revoked tenant_viewer from usr_analyst in ${WORDS.replace(/[()]/g, '\\$&')} `),
    );
  });

  it('--yes (no question): the tenant as the run named it', async () => {
    const id = await customRole(svc.sandbox(), 'unasked-words');
    const r = await svc.run(['roles', 'delete', 'unasked-words', '--yes']);
    expect([r.code, r.stderr]).toEqual([
      0,
      `✓ deleted role unasked-words (${id}) in ${ACME}; nobody held it\n`,
    ]);
  });

  // Session 25's open list: the bulk summary's words were taken when the run was described, before
  // its question (asked during the run) named the tenant; discard read them at print time. One rule
  // now (BulkVerb.where is read when the summary is printed).
  it('roles revoke --file asked on a terminal: its summary says the question’s words', async () => {
    const grant = [
      'roles',
      'assign',
      'usr_analyst',
      'tenant_viewer',
      '--expires-in',
      '1d',
      '--justification',
      'x',
    ];
    expect((await svc.run([...grant, '--yes'])).code).toBe(0);
    const file = join(dir, 'revoke.csv');
    writeFileSync(file, 'user,role\nusr_analyst,tenant_viewer\n', { mode: 0o600 });
    const r = await askedYes(['roles', 'revoke', '--file', file]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.questions).toEqual([
      `Revoke the 1 role assignment listed in ${file} that is held (a row whose grant is not is skipped), in ${WORDS}?`,
    ]);
    // On a terminal the progress line is cleared (ESC [2K) before the summary.
    const summary = r.stderr
      .slice(r.stderr.lastIndexOf('\u001b[2K') + 4)
      .replace(/ \(\d+\.\d s\)\n$/, ' (T s)\n');
    expect(summary).toBe(`✓ 1 revoked in ${WORDS} (T s)\n`);
  });
});
