/** Help words of the webhooks list verbs that finding 9 of the on-call test named. In-process. */
import { describe, expect, it } from 'vitest';
import { runInProcess, useTempDirs } from '../../helpers/context.js';

const dirs = useTempDirs();
/** The help text with its wrapping undone. */
const help = async (argv: string[]) =>
  (await runInProcess([...argv, '--help'], { ...dirs() })).stdout.replace(/\s+/g, ' ');

describe('webhooks list help', () => {
  it('deliveries ls: --all says "every delivery" and --summary lists every count it prints', async () => {
    const text = await help(['webhooks', 'deliveries', 'ls']);
    expect(text).toContain('every delivery, streamed as pages arrive');
    expect(text.replace(/\s+/g, ' ')).toContain(
      '--summary only the counts over every delivery (not with --status): total, delivered, failed, recovered, in flight',
    );
  });

  it('dlq ls: --all says "every entry"', async () => {
    expect(await help(['webhooks', 'dlq', 'ls'])).toContain('every entry, streamed as pages arrive');
  });
});
