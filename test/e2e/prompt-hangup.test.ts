/**
 * A prompt whose terminal goes away (an SSH drop: the pty's master closed) or whose process is
 * told to stop (SIGTERM): svc stops as at Ctrl-C, exit 130, nothing changed, and never a stack
 * trace nor Node's native abort (nodejs/node#51519: Node 20 asserts when it cannot put a closed
 * terminal's mode back at exit). Spawned in tmux: a real pty is the point. svc's stderr goes to a
 * file and its exit status is written by a shell that ignores SIGHUP, so both outlive the pane.
 * Skipped with a note without tmux (CI=true requires it).
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, expect, it } from 'vitest';
import { shellQuote } from '../../src/system/shell-words.js';
import { needs } from '../helpers/needs.js';
import { useSandbox } from '../helpers/sandbox.js';
import { BIN, createCustomRole, customRoleExists } from '../helpers/svc.js';
import { tempDir } from '../helpers/temp.js';
import { Terminal } from '../helpers/terminal.js';

const sandbox = useSandbox();
let env: Record<string, string>;
let term: Terminal | undefined;
let dir: string;

beforeAll(() => {
  dir = tempDir('svc-prompt-hangup-');
  env = {
    PATH: '/usr/bin:/bin',
    HOME: dir,
    TERM: 'xterm',
    SVC_CONFIG_DIR: join(dir, 'config'),
    SVC_BASE_URL: sandbox().url,
    SVC_TOKEN: sandbox().adminToken,
  };
});
afterEach(async () => {
  await term?.close();
  term = undefined;
});

const acme = ['--tenant', '8ab23c1d-a27b-565a-ad8f-983ecf5fe016'];
const customRole = (name: string) => createCustomRole(env, name);
const roleExists = (name: string) => customRoleExists(env, name);

/** svc in a terminal, its stderr in a file and its exit status (or 128+signal) in another. */
async function started(name: string, args: string[], extraEnv: Record<string, string> = {}) {
  const err = join(dir, `${name}.err`);
  const status = join(dir, `${name}.status`);
  const pid = join(dir, `${name}.pid`);
  const line = [process.execPath, BIN, ...args].map(shellQuote).join(' ');
  const inner = `echo $$ > ${shellQuote(pid)}; exec ${line}`;
  const script = `trap '' HUP; sh -c ${shellQuote(inner)} 2>${shellQuote(err)}; echo $? > ${shellQuote(status)}`;
  term = await Terminal.start(`sh -c ${shellQuote(script)}`, { ...env, ...extraEnv });
  return { err, status, pid: () => Number(readFileSync(pid, 'utf8')) };
}

/** Prompts are written to stderr: here the file, once it shows `pattern`. */
async function asked(file: string, pattern: RegExp): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (!existsSync(file) || !pattern.test(readFileSync(file, 'utf8'))) {
    if (Date.now() > deadline) throw new Error(`svc never asked ${pattern}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  await new Promise((r) => setTimeout(r, 200)); // the prompt now waits for a key
}

async function exitStatus(file: string): Promise<number> {
  const deadline = Date.now() + 30_000;
  while (!existsSync(file) || readFileSync(file, 'utf8').trim() === '') {
    if (Date.now() > deadline) throw new Error('svc did not end within 30 s');
    await new Promise((r) => setTimeout(r, 50));
  }
  return Number(readFileSync(file, 'utf8').trim());
}

/** No JavaScript stack frame, no native stack, no Node banner. */
function expectNoTrace(stderr: string): void {
  expect(stderr).not.toMatch(/^\s+at /m);
  expect(stderr).not.toMatch(/Node\.js v\d|Assertion failed|Native stack|node:events/);
}

needs('tmux').describe('a prompt whose terminal goes away, or that is told to stop', () => {
  it.each<[string, string[], RegExp]>([
    ['a confirmation', [...acme, 'roles', 'delete', 'hangup_role'], /\(y\/N\)/],
    ['a picker', ['tenants', 'api-keys', 'ls'], /Tenant[\s\S]*Acme Treasury/],
  ])('a closed terminal at %s: exit 130, nothing changed, no trace', async (what, args, question) => {
    const deletes = args.includes('delete');
    if (deletes && !(await roleExists('hangup_role'))) await customRole('hangup_role');
    const run = await started(what.replace(/\W/g, '-'), args);
    await asked(run.err, question);
    await term!.close(); // the pty's master closes: SIGHUP, then EIO on the terminal
    term = undefined;
    const code = await exitStatus(run.status);
    const stderr = readFileSync(run.err, 'utf8');
    expectNoTrace(stderr);
    expect(code, stderr).toBe(130);
    if (deletes) expect(await roleExists('hangup_role')).toBe(true);
  });

  it('a closed terminal at the paste prompt of `login --no-browser`: exit 130, no trace', async () => {
    const run = await started('paste', ['-p', 'nb', 'login', '--no-browser', '--client-id', 'svc-cli'], {
      SVC_TOKEN: '',
    });
    await asked(run.err, /Paste the address here: /);
    await term!.close();
    term = undefined;
    const code = await exitStatus(run.status);
    const stderr = readFileSync(run.err, 'utf8');
    expectNoTrace(stderr);
    expect(stderr).not.toContain('Ctrl-D');
    expect(code, stderr).toBe(130);
  });

  it('SIGTERM at a confirmation stops svc at once: exit 130, nothing changed', async () => {
    if (!(await roleExists('sigterm_role'))) await customRole('sigterm_role');
    const run = await started('sigterm', [...acme, 'roles', 'delete', 'sigterm_role']);
    await asked(run.err, /\(y\/N\)/);
    process.kill(run.pid(), 'SIGTERM');
    const code = await exitStatus(run.status);
    const stderr = readFileSync(run.err, 'utf8');
    expectNoTrace(stderr);
    expect(stderr).toContain('nothing was changed');
    expect(code, stderr).toBe(130);
    expect(await roleExists('sigterm_role')).toBe(true);
  });
});
