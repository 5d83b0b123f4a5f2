// Regenerates the checked-in files derived from the code (tests fail when they are stale):
//   docs/openapi.json — the OpenAPI 3.1 document of everything the sandbox serves;
//   docs/cli.md, completions/{svc.bash,_svc,svc.fish} — from the command tree.
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildDist } from './build.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
await buildDist({ quiet: true });
const write = (file, text) => {
  mkdirSync(dirname(join(root, file)), { recursive: true });
  writeFileSync(join(root, file), text);
  console.error(`wrote ${file}`);
};

write(
  'docs/openapi.json',
  // No code cache: a build script has no business in the developer's ~/.cache/svc.
  execFileSync(process.execPath, [join(root, 'bin', 'svc.js'), 'sandbox', 'openapi'], {
    encoding: 'utf8',
    // The document is over 1 MiB (execFileSync's default buffer).
    maxBuffer: 64 * 1024 * 1024,
    env: { ...process.env, SVC_NO_CODE_CACHE: '1' },
  }),
);
const cli = createRequire(import.meta.url)(join(root, 'dist', 'cli.cjs'));
for (const [file, text] of Object.entries(await cli.generatedFiles())) write(file, text);
