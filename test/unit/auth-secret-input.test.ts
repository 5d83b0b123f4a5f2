/**
 * Where a secret comes from (src/auth/secret-input.ts): a file, standard input, an environment
 * variable, a hidden prompt, or nowhere — each source's exact refusals, and the order they are
 * tried in. Never a flag's value.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkSecretFlags, readSecret, secretShellText } from '../../src/auth/secret-input.js';
import { UsageError } from '../../src/errors.js';
import { pathWord } from '../../src/system/shell-words.js';
import { testContext } from '../helpers/context.js';
import { useTempDir } from '../helpers/temp.js';

const OPTIONS = { name: 'client-secret', label: 'client secret', env: 'SVC_CLIENT_SECRET' };
const dir = useTempDir('svc-secret-input-');
const file = (name: string, text: string) => {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
};

async function refusal(promise: Promise<unknown>): Promise<[string, string | undefined]> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(UsageError);
  return [(error as UsageError).message, (error as UsageError).hint];
}

describe('checkSecretFlags', () => {
  it.each([
    [
      { file: 'a', stdin: true },
      '--client-secret-file and --client-secret-stdin cannot be combined; pick one',
    ],
    [{ file: ' ' }, '--client-secret-file needs a path'],
    [{ file: '' }, '--client-secret-file needs a path'],
  ])('%j: %s', (flags, message) => {
    expect(() => checkSecretFlags('client-secret', flags)).toThrow(message);
  });

  it.each([[{ file: 'x' }], [{ stdin: true }], [{}]])('%j passes', (flags) => {
    expect(checkSecretFlags('client-secret', flags)).toBe(flags);
  });
});

describe('readSecret', () => {
  it('reads a file first, whatever else is set', async () => {
    const { ctx } = testContext({ env: { SVC_CLIENT_SECRET: 'from-env' }, stdin: 'from-stdin' });
    expect(await readSecret(ctx, { file: file('a', 'from-file\n') }, OPTIONS)).toBe('from-file');
    expect(ctx.secrets.values()).toContain('from-file');
  });

  it.each([
    ['empty.txt', '\n', 'is empty; it must hold the client secret'],
    ['blank.txt', '   \n', 'is empty; it must hold the client secret'],
    ['two.txt', 'a b\n', 'contains whitespace; it must hold exactly one client secret'],
  ])('refuses the file %s', async (name, text, problem) => {
    const path = file(name, text);
    const { ctx } = testContext();
    expect(await refusal(readSecret(ctx, { file: path }, OPTIONS))).toEqual([
      `--client-secret-file ${path} ${problem}`,
      undefined,
    ]);
  });

  it('reads standard input when it is not a terminal', async () => {
    const { ctx } = testContext({ stdin: 's3cret\n', env: { SVC_CLIENT_SECRET: 'from-env' } });
    expect(await readSecret(ctx, { stdin: true }, OPTIONS)).toBe('s3cret');
    const empty = testContext({ stdin: '' });
    expect(await refusal(readSecret(empty.ctx, { stdin: true }, OPTIONS))).toEqual([
      'standard input is empty; it must hold the client secret',
      undefined,
    ]);
  });

  it('refuses standard input that is a terminal', async () => {
    const { ctx } = testContext({ tty: { stdin: true } });
    expect(await refusal(readSecret(ctx, { stdin: true }, OPTIONS))).toEqual([
      '--client-secret-stdin reads the client secret from standard input, which is a terminal',
      'pipe it in, e.g. `… --client-secret-stdin < client-secret.txt`',
    ]);
  });

  it('then the environment variable, unless it is empty', async () => {
    expect(await readSecret(testContext({ env: { SVC_CLIENT_SECRET: 'e' } }).ctx, {}, OPTIONS)).toBe('e');
    expect(
      await readSecret(testContext({ env: { SVC_CLIENT_SECRET: '' } }).ctx, {}, OPTIONS),
    ).toBeUndefined();
    expect(
      await readSecret(
        testContext({ env: { SVC_CLIENT_SECRET: 'e' } }).ctx,
        {},
        { ...OPTIONS, env: undefined },
      ),
    ).toBeUndefined();
  });

  it('then a hidden prompt on a terminal, asked with the label capitalised', async () => {
    const { ctx, questions } = testContext({ tty: true, answers: ['typed\n'] });
    expect(await readSecret(ctx, {}, { ...OPTIONS, prompt: true })).toBe('typed');
    expect(questions).toEqual(['Client secret:']);
    const blank = testContext({ tty: true, answers: [' '] });
    expect(await refusal(readSecret(blank.ctx, {}, { ...OPTIONS, prompt: true }))).toEqual([
      'the answer is empty; it must hold the client secret',
      undefined,
    ]);
  });

  it('without a terminal there is no prompt: nothing, or a usage error naming every way', async () => {
    expect(await readSecret(testContext().ctx, {}, { ...OPTIONS, prompt: true })).toBeUndefined();
    expect(
      await refusal(readSecret(testContext().ctx, {}, { ...OPTIONS, prompt: true, required: true })),
    ).toEqual([
      'this needs the client secret',
      'pass --client-secret-file FILE or --client-secret-stdin, or set SVC_CLIENT_SECRET',
    ]);
    expect(
      await refusal(readSecret(testContext().ctx, {}, { name: 'token', label: 'token', required: true })),
    ).toEqual(['this needs the token', 'pass --token-file FILE or --token-stdin']);
  });
});

describe('secretShellText: how a printed command reads the secret again', () => {
  it('names the file when a shell reads it as svc did (every final newline dropped, as $(cat) does)', async () => {
    const path = file('two-newlines.txt', 'from-file\n\n');
    const { ctx } = testContext();
    expect(await readSecret(ctx, { file: path }, OPTIONS)).toBe('from-file');
    expect(secretShellText(ctx, { file: path }, 'SVC_CLIENT_SECRET')).toBe(`"$(cat ${pathWord(path)})"`);
  });

  it('names no file for standard input given as -: a later command cannot read it again', async () => {
    const { ctx } = testContext({ stdin: 'from-stdin\n' });
    expect(await readSecret(ctx, { file: '-' }, OPTIONS)).toBe('from-stdin');
    expect(secretShellText(ctx, { file: '-' }, 'SVC_CLIENT_SECRET')).toBeUndefined();
  });

  it('names the variable it was read from, and nothing for a file that was not read', async () => {
    const { ctx } = testContext({ env: { SVC_CLIENT_SECRET: 'e' } });
    expect(await readSecret(ctx, {}, OPTIONS)).toBe('e');
    expect(secretShellText(ctx, {}, 'SVC_CLIENT_SECRET')).toBe('"$SVC_CLIENT_SECRET"');
    expect(secretShellText(ctx, { file: join(dir, 'never-read.txt') }, 'SVC_CLIENT_SECRET')).toBeUndefined();
  });
});

describe('a secret file that cannot be read', () => {
  it('is named by its flag', async () => {
    const missing = join(dir, 'missing.txt');
    const [message] = await refusal(readSecret(testContext().ctx, { file: missing }, OPTIONS));
    expect(message).toContain('--client-secret-file');
    expect(message).toContain(missing);
  });
});
