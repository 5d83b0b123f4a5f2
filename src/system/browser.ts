import { spawn } from 'node:child_process';
import { UsageError } from '../errors.js';
import type { Env } from '../output/io.js';

export interface Browser {
  open(url: string): Promise<void>;
}

/** Splits a command line such as `firefox --new-tab` or `"/opt/my browser/run" -x` into words. */
export function splitCommand(command: string): string[] {
  const words: string[] = [];
  const pattern = /"([^"]*)"|'([^']*)'|(\S+)/g;
  for (let match = pattern.exec(command); match; match = pattern.exec(command)) {
    words.push(match[1] ?? match[2] ?? match[3] ?? '');
  }
  return words;
}

/** The secrets svc reads from its environment, which a browser it starts has no use for. */
export const SECRET_ENV_NAMES = ['SVC_TOKEN', 'SVC_CLIENT_SECRET', 'SVC_WEBHOOK_SECRET'] as const;

/**
 * The environment a browser is started with: svc's own without its secrets (a browser started by
 * svc can run for days and start helpers of its own; review s14, secrets 7).
 */
export function browserEnvironment(env: Env): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = { ...env };
  for (const name of SECRET_ENV_NAMES) delete out[name];
  return out;
}

/**
 * The `open` package starts its opener with process.env and takes no other: the secrets are
 * taken out of process.env for that call and put back after it, whatever happens.
 */
async function withoutSecretsInProcessEnv<T>(run: () => Promise<T>): Promise<T> {
  const saved = SECRET_ENV_NAMES.flatMap((name) =>
    process.env[name] === undefined ? [] : [[name, process.env[name]!] as const],
  );
  for (const [name] of saved) delete process.env[name];
  try {
    return await run();
  } finally {
    for (const [name, value] of saved) process.env[name] = value;
  }
}

/**
 * SVC_BROWSER, else BROWSER, is run with the URL as its last argument; otherwise the platform's
 * opener (the `open` package). Either is started without svc's secrets in its environment.
 */
export function systemBrowser(env: Env): Browser {
  return {
    async open(url) {
      const command = env.SVC_BROWSER || env.BROWSER;
      if (command) {
        const [program, ...args] = splitCommand(command);
        if (!program) throw new UsageError('SVC_BROWSER/BROWSER is set but empty');
        await new Promise<void>((resolve, reject) => {
          const child = spawn(program, [...args, url], {
            stdio: 'ignore',
            detached: true,
            env: browserEnvironment(env),
          });
          child.once('error', (error) =>
            reject(new UsageError(`cannot run browser command ${JSON.stringify(program)}: ${error.message}`)),
          );
          child.once('spawn', () => {
            child.unref();
            resolve();
          });
        });
        return;
      }
      const { default: open } = await import('open');
      const child = await withoutSecretsInProcessEnv(() => open(url, { wait: false }));
      child.unref();
    },
  };
}
