import { basename } from 'node:path';
import { expect, it } from 'vitest';
import { cpuMs, record } from './lib.js';

const atImport = cpuMs();
await import('../../test/helpers/context.js');
const afterHelper = cpuMs();
it('records', () => {
  record({ file: basename(import.meta.url), atImport, afterHelper, atTest: cpuMs() });
  expect(true).toBe(true);
});
