/**
 * A replay whose reader left after every replay was made (review17c C3, C2): only the output was
 * cut, so the run ends 141 and keeps its journal (the contract: "the journal allows resume"); the
 * same command again prints the results from it and sends nothing again. The --no-wait note that
 * the deliveries were not followed is said before the 141 error (stderr was still open).
 */
import { describe, expect, it } from 'vitest';
import { bulkRunner } from '../../helpers/bulk.js';
import { useSandbox } from '../../helpers/sandbox.js';
import { admin, deadLetteredQueue, journalFiles, timeless } from '../../helpers/webhooks.js';

const sandbox = useSandbox({ users: 2 });
const svc = bulkRunner(sandbox);

/** The deliveries that replay `id`: each a send of its event again. */
async function replaysOf(webhook: string, id: string): Promise<number> {
  const r = await admin(sandbox(), 'GET', `/v1/webhooks/${webhook}/deliveries?limit=200`);
  return (r.body.items as Array<{ replay_of: string | null }>).filter((d) => d.replay_of === id).length;
}

describe('webhooks replay --no-wait of a named delivery whose reader left after it was made', () => {
  it('141 with the note that it was not followed; the journal stays; the same command sends nothing again', async () => {
    const q = await deadLetteredQueue(sandbox(), { status: 500 }, 1, { max_attempts: 1 });
    const id = q.entries[0]!.delivery_id;
    const argv = ['webhooks', 'replay', q.webhook, id, '--no-wait'];
    const cut = await svc.run(argv, { stdoutFails: 'EPIPE' });
    const [journal] = journalFiles(svc.journals);
    expect([cut.code, cut.stdout, timeless(cut.stderr)]).toEqual([
      141,
      '',
      '1 replayed in 8ab23c1d-a27b-565a-ad8f-983ecf5fe016 (T)\n' +
        `their deliveries were not followed: see how they went with \`svc webhooks deliveries ${q.webhook}\`, or pass --wait\n` +
        'error: stdout closed, but every item was done (1 of 1): only the output was cut; run the same command again ' +
        `with the same profile, logged in as the same user or with the same API key, to print the results from its journal; nothing is done again (journal ${svc.journals}/${journal})\n`,
    ]);
    expect(await replaysOf(q.webhook, id)).toBe(1);

    const again = await svc.run(argv);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toMatch(new RegExp(`^skipped\\t${id}\\t`));
    expect(again.stderr).not.toMatch(/already replayed|sends its event again/);
    expect(await replaysOf(q.webhook, id)).toBe(1);
    expect(journalFiles(svc.journals)).toEqual([]);
  });
});
