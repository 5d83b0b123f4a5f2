import { PassThrough, Readable } from 'node:stream';
import { runCli } from '../../src/cli.js';
import { type Context, type ContextDeps, createContext, type GlobalOptions } from '../../src/context.js';
import type { IOStreams } from '../../src/output/io.js';
import type { Prompter } from '../../src/system/prompter.js';

export interface FakeIO {
  io: IOStreams;
  stdout: () => string;
  stderr: () => string;
}

/** IOStreams over buffers; `tty` makes every stream claim to be a terminal. */
export function fakeIO(
  options: { tty?: boolean; color?: boolean; columns?: number; stdin?: string } = {},
): FakeIO {
  const out: string[] = [];
  const err: string[] = [];
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  stdout.on('data', (chunk: Buffer) => out.push(chunk.toString('utf8')));
  stderr.on('data', (chunk: Buffer) => err.push(chunk.toString('utf8')));
  const tty = options.tty ?? false;
  return {
    io: {
      stdin: Readable.from(options.stdin === undefined ? [] : [Buffer.from(options.stdin)]),
      stdout,
      stderr,
      stdinIsTTY: tty,
      stdoutIsTTY: tty,
      stderrIsTTY: tty,
      columns: options.columns ?? 120,
      colorStdout: options.color ?? false,
      colorStderr: options.color ?? false,
    },
    stdout: () => out.join(''),
    stderr: () => err.join(''),
  };
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
  ioOptions: Parameters<typeof fakeIO>[0] = {},
): FakeIO & { ctx: Context } {
  const fake = fakeIO(ioOptions);
  return { ...fake, ctx: createContext(testDeps(fake.io, env), globals) };
}

/**
 * Runs a whole svc command line in-process (parsing included) and returns its exit code and
 * output. `extra` replaces dependencies: a clock, a prompter, a Ctrl-C signal, streams' TTY flags.
 */
export async function runInProcess(
  argv: string[],
  env: Record<string, string | undefined>,
  ioOptions: Parameters<typeof fakeIO>[0] = {},
  extra: Omit<Partial<ContextDeps>, 'io'> & { io?: Partial<IOStreams> } = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  const fake = fakeIO(ioOptions);
  const { io, ...deps } = extra;
  const code = await runCli(argv, testDeps({ ...fake.io, ...io }, env, deps));
  return { code, stdout: fake.stdout(), stderr: fake.stderr() };
}
