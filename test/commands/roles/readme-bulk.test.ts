import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useSandboxContext } from '../../helpers/sandbox.js';
import { ROOT } from '../../helpers/svc.js';
import { tempDir } from '../../helpers/temp.js';

// Finding examples 4 (s10): README's "Bulk role grants" file named a role (fx-desk) a fresh
// sandbox does not have, and the section did not say to create it. Its commands are run here as
// written, in order, with its CSV as grants.csv, against a fresh sandbox.
const svc = useSandboxContext();

function section(): { csv: string; commands: string[][] } {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const start = readme.indexOf('## Bulk role grants');
  const text = readme.slice(start, readme.indexOf('\n## ', start + 1));
  const block = (lang: string) => [...text.matchAll(new RegExp(`\`\`\`${lang}\\n([\\s\\S]*?)\`\`\``, 'g'))];
  const csv = block('csv')[0]?.[1] ?? '';
  const commands = block('bash')
    .flatMap((m) => m[1]!.split('\n'))
    .map((line) => line.replace(/\s+#.*$/, '').trim())
    .filter((line) => line.startsWith('svc '))
    .map((line) => line.split(/\s+/).slice(1));
  return { csv, commands };
}

describe('README: Bulk role grants', () => {
  it('runs as written against a fresh sandbox', async () => {
    const { csv, commands } = section();
    expect(commands.map((argv) => argv.slice(0, 3).join(' '))).toContain('roles assign --file');
    const dir = tempDir('svc-readme-bulk-');
    writeFileSync(join(dir, 'grants.csv'), csv);
    for (const argv of commands) {
      const result = await svc.run(argv.map((word) => (word === 'grants.csv' ? join(dir, word) : word)));
      expect(result.code, `svc ${argv.join(' ')}: ${result.stderr}`).toBe(0);
    }
  });
});
