import { spawn } from 'node:child_process';

export interface ProcessResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs a program to completion and collects its output (the tour's steps, the tests' svc
 * runs). With `timeoutMs`, a program still running then is killed and the promise rejects with
 * what it printed so far.
 */
export function runProcess(
  command: string,
  args: string[],
  options: { env: Record<string, string>; input?: string | Buffer; cwd?: string; timeoutMs?: number },
): Promise<ProcessResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { env: options.env, ...(options.cwd ? { cwd: options.cwd } : {}) });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      stdout += d;
    });
    child.stderr.setEncoding('utf8').on('data', (d: string) => {
      stderr += d;
    });
    const timer =
      options.timeoutMs === undefined
        ? undefined
        : setTimeout(() => {
            child.kill('SIGKILL');
            reject(
              new Error(`${[command, ...args].join(' ')} timed out\nstdout: ${stdout}\nstderr: ${stderr}`),
            );
          }, options.timeoutMs);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
    // A child that exits before reading its input (a usage error) closes the pipe: EPIPE is its
    // business, reported through its exit code, not an uncaught error here.
    child.stdin.on('error', () => {});
    child.stdin.end(options.input ?? '');
  });
}
