// Regenerates the checked-in files derived from the code (tests fail when they are stale):
//   docs/openapi.json — the OpenAPI 3.1 document of everything the sandbox serves.
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildDist } from './build.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
await buildDist({ quiet: true });
const svc = (...args) =>
  execFileSync(process.execPath, [join(root, 'bin', 'svc.js'), ...args], { encoding: 'utf8' });

writeFileSync(join(root, 'docs', 'openapi.json'), svc('sandbox', 'openapi'));
console.error('wrote docs/openapi.json');
