import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useTempDir } from '../helpers/temp.js';
import { DOCUMENT, runTool } from '../helpers/tools.js';

// Stoplight Spectral's spectral:oas ruleset over the published document (issue 10).
describe('spectral lint (spectral:oas)', () => {
  const dir = useTempDir('svc-spectral-');

  it('finds 0 errors and no operation without an operationId', async () => {
    const ruleset = join(dir, '.spectral.json');
    writeFileSync(ruleset, JSON.stringify({ extends: ['spectral:oas'] }));
    const r = await runTool('@stoplight/spectral-cli/dist/index.js', [
      'lint',
      DOCUMENT,
      '--ruleset',
      ruleset,
      '--format',
      'json',
      '--quiet',
    ]);
    const results = JSON.parse(r.stdout || '[]') as Array<{
      code: string;
      severity: number;
      message: string;
      path: string[];
    }>;
    // Spectral's severities: 0 error, 1 warning, 2 information, 3 hint.
    const errors = results.filter((p) => p.severity === 0);
    expect(errors.map((p) => `${p.code} ${p.path.join('.')}: ${p.message}`)).toEqual([]);
    expect(results.filter((p) => p.code === 'operation-operationId')).toEqual([]);
  });
});
