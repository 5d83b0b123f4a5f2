import { startSandbox } from '../sandbox/server.js';
import { CHAPTERS } from './chapters/index.js';
import { Tour } from './runner.js';

/**
 * `npm start`: starts a sandbox in this process on a free port, then runs real svc commands
 * against it and prints them with their output. Nothing outside a temporary directory is touched.
 */
async function main(): Promise<number> {
  const sandbox = await startSandbox({ port: 0 });
  const tour = new Tour(sandbox);
  // Ctrl-C (or a kill, or a closed terminal) skips `finally`: the temporary directory, which holds
  // the tour's credentials, is removed here too. The exit is the contract's "interrupted", 130.
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    process.once(signal, () => {
      const left = tour.cleanup();
      process.stderr.write(`\ntour interrupted; ${left ?? 'its temporary files are removed'}\n`);
      process.exit(130);
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
    process.stderr.write(`\ntour stopped: ${(error as Error).message}\n`);
    return 1;
  } finally {
    const left = tour.cleanup();
    if (left) process.stderr.write(`${left}\n`);
    await sandbox.close();
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`tour failed: ${(error as Error).message}\n`);
    process.exit(1);
  },
);
