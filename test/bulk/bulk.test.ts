import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { defaultJournalPath, Journal } from '../../src/bulk/journal.js';
import { readRecords } from '../../src/bulk/readers.js';
import { type BulkItem, type BulkResult, runBulk } from '../../src/bulk/runner.js';
import { UsageError } from '../../src/errors.js';
import { ApiError } from '../../src/http/errors.js';

const dir = () => mkdtempSync(join(tmpdir(), 'svc-bulk-'));

describe('readRecords', () => {
  it('reads CSV with a BOM, CRLF and LF mixed, quoted fields and blank lines, with start lines', () => {
    const csv = Buffer.from('\uFEFFuser, role\r\n"a,b",r1\r\n\r\nc,"r""2"\n"multi\nline",r3\n');
    const { format, records, problems } = readRecords(csv, 'grants.csv');
    expect(format).toBe('csv');
    expect(problems).toEqual([]);
    expect(records).toEqual([
      { line: 2, fields: { user: 'a,b', role: 'r1' } },
      { line: 4, fields: { user: 'c', role: 'r"2' } },
      { line: 5, fields: { user: 'multi\nline', role: 'r3' } },
    ]);
  });

  it('reports every row with the wrong number of fields, and an unclosed quote', () => {
    const bad = readRecords(Buffer.from('user,role\na\nb,c\nd,e,f\n'), 'x.csv');
    expect(bad.problems).toEqual([
      { line: 2, message: 'the number of fields differs from the header row' },
      { line: 4, message: 'the number of fields differs from the header row' },
    ]);
    expect(bad.records).toEqual([{ line: 3, fields: { user: 'b', role: 'c' } }]);
    const unclosed = readRecords(Buffer.from('user,role\n"a,b\n'), 'x.csv');
    expect(unclosed.problems[0]).toMatchObject({ line: 2 });
    expect(unclosed.problems[0]!.message).toMatch(/^not valid CSV: Quote Not Closed/);
  });

  it('reads NDJSON by name or content, reporting bad lines by number', () => {
    const { format, records, problems } = readRecords(Buffer.from('{"a":1}\r\n\n[1]\n{bad\n{"b":2}'), 'rows');
    expect(format).toBe('ndjson');
    expect(records).toEqual([
      { line: 1, fields: { a: 1 } },
      { line: 5, fields: { b: 2 } },
    ]);
    expect(problems.map((p) => p.line)).toEqual([3, 4]);
    expect(problems[0]!.message).toBe('each line must be a JSON object');
  });
});

describe('Journal', () => {
  it('records finished items, survives a torn last line, and refuses another operation', () => {
    const path = join(dir(), 'j.ndjson');
    const j = Journal.open(path, 'op-1');
    j.record('a', { id: 1 });
    j.record('b');
    writeFileSync(path, `${readFileSync(path, 'utf8')}{"key":"c","sta`);
    const again = Journal.open(path, 'op-1');
    expect([again.has('a'), again.has('b'), again.has('c')]).toEqual([true, true, false]);
    expect(again.get('a')?.detail).toEqual({ id: 1 });
    expect(() => Journal.open(path, 'op-2')).toThrow(UsageError);
  });

  it('lives under the state directory, named by a hash of the operation', () => {
    const a = defaultJournalPath({ SVC_STATE_DIR: '/s' }, 'grants', 'x');
    expect(a).toMatch(/^\/s\/journals\/grants-[0-9a-f]{16}\.ndjson$/);
    expect(defaultJournalPath({ SVC_STATE_DIR: '/s' }, 'grants', 'y')).not.toBe(a);
  });
});

describe('runBulk', () => {
  const items = (n: number): Array<BulkItem<number>> =>
    Array.from({ length: n }, (_, i) => ({ key: `k${i}`, line: i + 2, data: i }));

  it('runs every item with bounded concurrency and reports each result', async () => {
    let running = 0;
    let peak = 0;
    const results: BulkResult[] = [];
    const summary = await runBulk({
      items: items(40),
      concurrency: 5,
      interrupt: new AbortController().signal,
      work: async (item) => {
        running++;
        peak = Math.max(peak, running);
        await new Promise((r) => setTimeout(r, 2));
        running--;
        if (item.data % 10 === 3)
          throw new ApiError({ status: 404, code: 'not_found', message: 'no such user', requestId: 'req_1' });
        return { n: item.data };
      },
      onResult: (r) => {
        results.push(r);
      },
    });
    expect(peak).toBe(5);
    expect(summary).toMatchObject({ total: 40, ok: 36, failed: 4, skipped: 0, interrupted: false });
    expect(results.find((r) => r.key === 'k3')).toEqual({
      line: 5,
      key: 'k3',
      status: 'failed',
      error: { code: 'not_found', message: 'no such user', status: 404, request_id: 'req_1' },
    });
    expect(results.find((r) => r.key === 'k4')).toEqual({ line: 6, key: 'k4', status: 'ok', n: 4 });
  });

  it('after Ctrl-C starts nothing new, lets in-flight items finish, and a re-run resumes from the journal', async () => {
    const path = join(dir(), 'j.ndjson');
    const controller = new AbortController();
    let finished = 0;
    const first = await runBulk({
      items: items(100),
      concurrency: 4,
      journal: Journal.open(path, 'op'),
      interrupt: controller.signal,
      work: async (item, signal) => {
        if (item.data === 10) controller.abort();
        await new Promise((r) => setTimeout(r, 5));
        expect(signal.aborted).toBe(false);
        finished++;
        return {};
      },
    });
    expect(first.interrupted).toBe(true);
    expect(first.ok).toBe(finished);
    expect(finished).toBeLessThan(20);
    const done = new Set<string>();
    const second = await runBulk({
      items: items(100),
      concurrency: 4,
      journal: Journal.open(path, 'op'),
      interrupt: new AbortController().signal,
      work: async (item) => {
        done.add(item.key);
        return {};
      },
    });
    expect(second).toMatchObject({ total: 100, ok: 100 - finished, skipped: finished, interrupted: false });
    expect(done.size + finished).toBe(100);
  });

  it('pulls lazily from async iterables', async () => {
    let produced = 0;
    async function* gen() {
      for (let i = 0; i < 10; i++) {
        produced++;
        yield { key: `a${i}`, data: i };
      }
    }
    const summary = await runBulk({
      items: gen(),
      concurrency: 3,
      interrupt: new AbortController().signal,
      work: async () => ({}),
    });
    expect(summary.ok).toBe(10);
    expect(produced).toBe(10);
  });
});
