import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository's root, and the launcher the spawned tests run (test/e2e). */
export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const BIN = join(ROOT, 'bin', 'svc.js');
