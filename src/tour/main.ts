import { startSandbox } from '../sandbox/server.js';
import { CHAPTERS } from './chapters/index.js';
import { Tour } from './runner.js';

/** Set by the first signal: from then on the handler, not the chapters, ends the tour. */
let interrupted = false;

/**
 * `npm start`: starts a sandbox in this process on a free port, then runs real svc commands
 * against it and prints them with their output. Nothing outside a temporary directory is touched.
 */
async function main(): Promise<number> {
  const sandbox = await startSandbox({ port: 0 });
  const tour = new Tour(sandbox);
  // Ctrl-C (or a kill, or a closed terminal) skips `finally`: the running steps are interrupted
  // and, once they have stopped writing, the temporary directory (it holds the tour's credentials)
  // is removed. The exit is the contract's "interrupted", 130; the interrupted step's failure, which
  // the chapters see meanwhile, is not reported as the tour stopping.
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    // `on`, not `once`: a second Ctrl-C while the steps stop must not kill the tour before it cleans up.
    process.on(signal, () => {
      if (interrupted) return;
      interrupted = true;
      void tour.interrupted().then((left) => {
        process.stderr.write(`\ntour interrupted; ${left ?? 'its temporary files are removed'}\n`);
        process.exit(130);
      });
    });
  }
  process.stdout.write(
    `svc tour — real commands against a sandbox started for the tour at ${sandbox.url}\n` +
      `(settings go to a temporary SVC_CONFIG_DIR; your own profiles are not touched)\n`,
  );
  try {
    for (const chapter of CHAPTERS) await chapter(tour);
    process.stdout.write(
      '\n── Next ──────────────────────────────────────────────────\n' +
        'Keep a sandbox running in one terminal and use svc in another:\n' +
        '  $ svc sandbox start            # http://127.0.0.1:4010, writes a "sandbox" profile (active unless another is set up)\n' +
        '  $ svc tenants ls               # as its "Try" line says (with -p sandbox when not active)\n' +
        'Not shown here: OAuth clients (svc oauth), API keys (svc tenants api-keys), records, and any call\n' +
        'with `svc api`. `npx svc …` from this folder, or `npm link` to put svc on your PATH.\n' +
        'Every command: svc COMMAND --help; all of them: docs/cli.md; the rest: README.md.\n',
    );
    return 0;
  } catch (error) {
    if (!interrupted) process.stderr.write(`\ntour stopped: ${(error as Error).message}\n`);
    return 1;
  } finally {
    // On a signal, the handler removes the directory once every step has stopped.
    if (!interrupted) {
      const left = tour.cleanup();
      if (left) process.stderr.write(`${left}\n`);
      await sandbox.close();
    }
  }
}

main().then(
  (code) => {
    // Interrupted: the signal's handler exits (130) once the steps have stopped.
    if (!interrupted) process.exit(code);
  },
  (error: unknown) => {
    if (interrupted) return;
    process.stderr.write(`tour failed: ${(error as Error).message}\n`);
    process.exit(1);
  },
);
