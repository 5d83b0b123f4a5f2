import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { join } from 'node:path';
import { ROOT } from './paths.js';
import { reservedPort } from './ports.js';

/** The published document, as the conformance tools read it. */
export const DOCUMENT = join(ROOT, 'docs', 'openapi.json');

/** Environment for the tools: no telemetry, no update checks, nothing beyond loopback. */
const QUIET = {
  ...process.env,
  REDOCLY_TELEMETRY: 'off',
  REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true',
  NO_UPDATE_NOTIFIER: '1',
  NO_COLOR: '1',
};

/** Runs a tool's CLI (a JS file under node_modules) with this Node; resolves with its exit code and output. */
export function runTool(
  script: string,
  args: string[],
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [join(ROOT, 'node_modules', script), ...args],
      { env: QUIET, cwd: ROOT, maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) => resolve({ code: error ? ((error.code as number) ?? 1) : 0, stdout, stderr }),
    );
  });
}

export interface Prism {
  url: string;
  /** Everything Prism logged so far. */
  log: () => string;
  /** The request and response violations Prism logged so far. */
  violations: () => string[];
  /** Stops Prism and waits for it to exit (call it in afterAll: nothing else does). */
  stop: () => Promise<void>;
}

/**
 * Stoplight Prism on a free loopback port, serving docs/openapi.json: `mock` answers from the
 * document alone; `proxy` forwards to `upstream` and checks every request and response against
 * the document, logging each difference as a violation. The caller stops it (`stop()`).
 */
export async function startPrism(mode: 'mock' | 'proxy', upstream?: string): Promise<Prism> {
  const port = await reservedPort();
  const args = [
    mode,
    DOCUMENT,
    ...(upstream ? [upstream] : []),
    '--port',
    String(port),
    '--host',
    '127.0.0.1',
  ];
  const child: ChildProcess = spawn(
    process.execPath,
    [join(ROOT, 'node_modules/@stoplight/prism-cli/dist/index.js'), ...args],
    {
      env: QUIET,
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let output = '';
  const collect = (chunk: Buffer) => {
    output += chunk.toString('utf8');
  };
  child.stdout!.on('data', collect);
  child.stderr!.on('data', collect);
  await new Promise<void>((resolve, reject) => {
    // Prism takes ~2 s on a quiet machine; under a full run beside other work it once took over
    // 30 s to start. Just inside the suite's 60 s hook timeout, so its own message is the one seen.
    const timer = setTimeout(() => {
      // Not left running: a Prism that never said it listens went on using a core for an hour.
      child.kill('SIGKILL');
      reject(new Error(`prism did not start:\n${output}`));
    }, 55_000);
    const check = () => {
      if (output.includes('Prism is listening')) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout!.on('data', check);
    child.stderr!.on('data', check);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`prism exited with ${code}:\n${output}`));
    });
  });
  return {
    url: `http://127.0.0.1:${port}`,
    log: () => output,
    violations: () => output.split('\n').filter((line) => line.includes('Violation:')),
    stop: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGKILL');
      await exited;
    },
  };
}
