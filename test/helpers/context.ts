import { PassThrough, Readable } from 'node:stream';
import { runCli } from '../../src/cli.js';
import { type Context, type ContextDeps, createContext, type GlobalOptions } from '../../src/context.js';
import { createIO, type Env, type IOStreams } from '../../src/output/io.js';
import type { Prompter } from '../../src/system/prompter.js';

export interface FakeIO {
  io: IOStreams;
  stdout: () => string;
  stderr: () => string;
}

export interface FakeIOOptions {
  /** true: stdin, stdout and stderr all claim to be terminals; or claim them one by one. */
  tty?: boolean | Partial<Record<'stdin' | 'stdout' | 'stderr', boolean>>;
  /** Terminal width (default 120). */
  columns?: number;
  stdin?: string | Buffer;
  /** Force colour on or off; otherwise svc's own policy decides from `env` (no env: no colour). */
  color?: boolean;
  env?: Env;
  noColor?: boolean;
}

/** IOStreams over buffers, claiming the terminals the test asks for (src/output/io.ts createIO). */
export function fakeIO(options: FakeIOOptions = {}): FakeIO {
  const out: string[] = [];
  const err: string[] = [];
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  stdout.on('data', (chunk: Buffer) => out.push(chunk.toString('utf8')));
  stderr.on('data', (chunk: Buffer) => err.push(chunk.toString('utf8')));
  const claim = (stream: 'stdin' | 'stdout' | 'stderr') =>
    typeof options.tty === 'object' ? options.tty[stream] === true : options.tty === true;
  const stdin = Readable.from(options.stdin === undefined ? [] : [Buffer.from(options.stdin)]);
  const io = createIO(
    { stdin, stdout, stderr },
    {
      stdin: claim('stdin'),
      stdout: claim('stdout'),
      stderr: claim('stderr'),
      columns: options.columns ?? 120,
    },
    options.env ?? { NO_COLOR: '1' },
    { noColor: options.noColor === true },
  );
  if (options.color !== undefined) {
    io.colorStdout = options.color;
    io.colorStderr = options.color;
  }
  return { io, stdout: () => out.join(''), stderr: () => err.join('') };
}

const noPrompter: Prompter = {
  input: async () => {
    throw new Error('unexpected prompt');
  },
  password: async () => {
    throw new Error('unexpected prompt');
  },
  confirm: async () => {
    throw new Error('unexpected prompt');
  },
  select: async () => {
    throw new Error('unexpected prompt');
  },
};

export function testDeps(
  io: IOStreams,
  env: Record<string, string | undefined>,
  extra: Partial<ContextDeps> = {},
): ContextDeps {
  return { io, env, signal: new AbortController().signal, prompter: noPrompter, ...extra };
}

/** A Context over buffers, for calling a command's run function in-process. */
export function testContext(
  env: Record<string, string | undefined>,
  globals: GlobalOptions = {},
  ioOptions: FakeIOOptions = {},
): FakeIO & { ctx: Context } {
  const fake = fakeIO(ioOptions);
  return { ...fake, ctx: createContext(testDeps(fake.io, env), globals) };
}

/** Runs a whole svc command line in-process (parsing included) and returns its exit code and output. */
export async function runInProcess(
  argv: string[],
  env: Record<string, string | undefined>,
  ioOptions: FakeIOOptions = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  const fake = fakeIO({ env, noColor: argv.includes('--no-color'), ...ioOptions });
  const code = await runCli(argv, testDeps(fake.io, env));
  return { code, stdout: fake.stdout(), stderr: fake.stderr() };
}
