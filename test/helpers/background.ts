import { type ChildProcess, spawn } from 'node:child_process';
import { onTestFinished } from 'vitest';
import { BIN, baseEnv, ROOT } from './svc.js';

export interface Background {
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  /**
   * Resolves with the first match of `pattern` in stderr (or stdout), waiting up to `timeoutMs`
   * (30 s: a start-up under a full run beside other work once took over 15 s; half the test's 60 s).
   */
  waitFor(pattern: RegExp, stream?: 'stdout' | 'stderr', timeoutMs?: number): Promise<RegExpExecArray>;
  /** SIGINT (Ctrl-C), then the exit code. */
  interrupt(): Promise<number | null>;
  exited: Promise<number | null>;
}

/** The built svc binary as a long-running child process (listen, a slow bulk run); call it in a test. */
export function background(args: string[], env: Record<string, string | undefined>): Background {
  const child = spawn(process.execPath, [BIN, ...args], { env: baseEnv(env), cwd: ROOT });
  let out = '';
  let err = '';
  child.stdout!.setEncoding('utf8').on('data', (d: string) => {
    out += d;
  });
  child.stderr!.setEncoding('utf8').on('data', (d: string) => {
    err += d;
  });
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  // Killed when the test ends, however it ends (an afterAll called inside a test never ran: a
  // `sandbox start` whose test failed was left running after the suite), and if the worker exits.
  const kill = () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  };
  onTestFinished(kill);
  process.once('exit', kill);
  child.once('close', () => process.off('exit', kill));
  return {
    child,
    stdout: () => out,
    stderr: () => err,
    exited,
    async waitFor(pattern, stream = 'stderr', timeoutMs = 30_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const match = pattern.exec(stream === 'stderr' ? err : out);
        if (match) return match;
        if (Date.now() > deadline || child.exitCode !== null) {
          throw new Error(
            `no ${pattern} in ${stream} of svc ${args.join(' ')}\nstdout: ${out}\nstderr: ${err}`,
          );
        }
        await new Promise((r) => setTimeout(r, 20));
      }
    },
    async interrupt() {
      child.kill('SIGINT');
      return exited;
    },
  };
}
