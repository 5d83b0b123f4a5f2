import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/paths.js';

// README named a flag svc does not have (`--include-inactive` for `--include-ended`, review20c F5):
// every `--flag` README quotes is one of svc's (docs/cli.md is every verb's --help), or another
// tool's, or one svc names to refuse, listed here with where.

const read = (file: string) => readFileSync(join(ROOT, file), 'utf8');
const NOT_SVCS = new Set([
  '--env-file', // docker run's
  '--request', // curl's, which `svc api` refuses
  '--data-raw', // curl's, likewise
  '--code', // refused: a secret on a command line
  '--heap-growing-percent', // a V8 flag
]);

describe('README', () => {
  it("names svc's flags as they are", () => {
    const cli = read('docs/cli.md');
    const quoted = [...read('README.md').matchAll(/`[^`\n]*`/g)].map((m) => m[0]);
    const flags = new Set(
      quoted.flatMap((q) => [...q.matchAll(/(?<![\w-])--[a-z][a-z0-9-]*/g)].map((m) => m[0])),
    );
    const unknown = [...flags].filter(
      (flag) => !NOT_SVCS.has(flag) && !new RegExp(`(?<![\\w-])${flag}(?![\\w-])`).test(cli),
    );
    expect(unknown).toEqual([]);
  });
});
