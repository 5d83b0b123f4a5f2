import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Journal } from '../../src/bulk/journal.js';
import { useTempDir } from '../helpers/temp.js';

// attack17 A7: a file kept beside a journal (apply's plan) is taken back only as svc wrote it for
// the run; the journal, which is owner-checked, records its sha256.
const dir = useTempDir('svc-journal-kept-');
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const now = () => Date.parse('2026-01-01T00:00:00Z');

describe('a file kept beside a journal', () => {
  it('is read back as written; changed, or kept by a journal that does not record it, it is refused', () => {
    const path = join(dir, 'a.ndjson');
    const first = Journal.load(path, 'op', now);
    first.keepBeside('.plan.json', ['{"a":', '1}\n']);
    first.start();
    const again = Journal.load(path, 'op', now);
    expect(again.readBeside('.plan.json')?.toString()).toBe('{"a":1}\n');
    writeFileSync(`${path}.plan.json`, '{"a":2}\n');
    expect(() => Journal.load(path, 'op', now).readBeside('.plan.json')).toThrow(
      `the plan kept beside journal ${path}, ${path}.plan.json, is not what svc wrote there for this run, so svc will not apply it`,
    );

    // A journal started without one (an earlier svc): a file there is not taken for its plan.
    const old = join(dir, 'old.ndjson');
    Journal.load(old, 'op', now).start();
    writeFileSync(`${old}.plan.json`, '{"a":1}\n');
    expect(() => Journal.load(old, 'op', now).readBeside('.plan.json')).toThrow(
      `the plan kept beside journal ${old}, ${old}.plan.json, is not recorded in the journal (an earlier svc, or not svc, put it there), so svc will not apply it`,
    );
  });

  it('kept again by a resumed run: its digest is a line of the journal, and the next resume takes it', () => {
    const path = join(dir, 'b.ndjson');
    Journal.load(path, 'op', now).start();
    const resumed = Journal.load(path, 'op', now);
    expect(resumed.readBeside('.plan.json')).toBeUndefined();
    resumed.keepBeside('.plan.json', ['{"b":1}\n']);
    expect(readFileSync(path, 'utf8').split('\n')[1]).toMatch(
      /^\{"kept":\{"\.plan\.json":"[0-9a-f]{64}"\}\}$/,
    );
    expect(Journal.load(path, 'op', now).readBeside('.plan.json')?.toString()).toBe('{"b":1}\n');
  });
});
