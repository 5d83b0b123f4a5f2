#!/usr/bin/env node
// The launcher. CommonJS (see bin/package.json) so `svc --version` answers without loading
// the ESM program; everything else is handed to dist/cli.js.
'use strict';

const args = process.argv.slice(2);
if (args.length === 1 && (args[0] === '--version' || args[0] === '-v')) {
  process.stdout.write(`${require('../package.json').version}\n`);
} else {
  import('../dist/cli.js').then(
    (cli) => cli.main(args),
    (error) => {
      if (error && error.code === 'ERR_MODULE_NOT_FOUND' && /dist[\\/]cli\.js/.test(String(error.message))) {
        process.stderr.write(
          'error: svc is not built; run `npm install` (or `npm run build`) in its folder\n',
        );
      } else {
        process.stderr.write(`error: svc failed to start: ${error?.message}\n`);
      }
      process.exitCode = 1;
    },
  );
}
