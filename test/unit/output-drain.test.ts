import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { Output } from '../../src/output/output.js';
import { fakeIO } from '../helpers/context.js';

describe('Output.write under backpressure', () => {
  it('waits for a slow reader without leaving listeners behind (bulk runs write thousands of lines)', async () => {
    let received = 0;
    const slow = new Writable({
      highWaterMark: 8,
      write(chunk, _encoding, done) {
        received += chunk.length;
        setImmediate(done);
      },
    });
    const warnings: Error[] = [];
    const onWarning = (w: Error) => warnings.push(w);
    process.on('warning', onWarning);
    const { io } = fakeIO();
    const out = new Output({ ...io, stdout: slow }, 'ndjson', () => 0);
    // Eight writers at a time, like the workers of a bulk run.
    for (let i = 0; i < 200; i += 8) {
      await Promise.all(Array.from({ length: 8 }, (_, j) => out.json({ i: i + j })));
    }
    await new Promise((r) => setImmediate(r));
    process.off('warning', onWarning);
    expect(received).toBe(1890);
    expect(slow.listenerCount('drain') + slow.listenerCount('close')).toBe(0);
    expect(slow.listenerCount('close')).toBe(0);
    expect(slow.listenerCount('drain')).toBe(0);
    expect(slow.listenerCount('error')).toBe(0);
    expect(warnings).toEqual([]);
  });
});
