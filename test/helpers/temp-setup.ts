/**
 * Setup file (vitest.config.ts, vitest.mutation.config.ts): it runs before each test file, also
 * with isolate:false, so its hooks are the file's first and run around each of its tests.
 * They tell tempDir (./temp.ts) which directories belong to a test and which to the file, and
 * remove them after it.
 */
import { afterAll, afterEach, beforeAll, beforeEach } from 'vitest';
import { tempDirHooks } from './temp.js';

tempDirHooks.collecting();
beforeAll(() => tempDirHooks.fileStarts());
beforeEach(() => tempDirHooks.testStarts());
afterEach(() => tempDirHooks.testEnds());
afterAll(() => tempDirHooks.fileEnds());
