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

/**
 * SVC_BROWSER, else BROWSER, is run with the URL as its last argument; otherwise the platform's
 * opener (the `open` package).
 */
export function systemBrowser(env: Env): Browser {
  return {
    async open(url) {
      const command = env.SVC_BROWSER || env.BROWSER;
      if (command) {
        const [program, ...args] = splitCommand(command);
        if (!program) throw new UsageError('SVC_BROWSER/BROWSER is set but empty');
        await new Promise<void>((resolve, reject) => {
          const child = spawn(program, [...args, url], { stdio: 'ignore', detached: true });
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
      const child = await open(url, { wait: false });
      child.unref();
    },
  };
}
