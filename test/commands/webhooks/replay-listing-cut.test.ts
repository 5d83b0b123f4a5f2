import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { bulkRunner, lastJson } from '../../helpers/bulk.js';
import { ndjson } from '../../helpers/context.js';
import { useLossyProxy } from '../../helpers/lossy-proxy.js';
import { call, useSandbox } from '../../helpers/sandbox.js';
import { startTarget } from '../../helpers/targets.js';
import { createWebhook } from '../../helpers/webhooks.js';

/**
 * A `replay --dlq` run whose next page of the queue cannot be read (every page after the first is
 * cut): it made the replays of the first page, and ends as every stopped bulk run does: the
 * counts, what stopped it, and how to resume (exit 1, the listing's own), in every output mode.
 */
const sandbox = useSandbox({ webhooks: { timeScale: 0.0001 } });
const svc = bulkRunner(sandbox);
let cutting = true;
const proxy = useLossyProxy(sandbox, {
  // The run's listing of its entries (not its look, by id, at the second it starts in: since=).
  lose: (method, path) =>
    cutting && method === 'GET' && /\/dlq\?.*cursor=/.test(path) && !/since=/.test(path)
      ? ('drop' as const)
      : false,
});

async function queue(count: number): Promise<string> {
  const target = await startTarget(() => ({ status: 204 }));
  const webhook = (await createWebhook(sandbox(), target.url)).id;
  await call(sandbox(), 'POST', '/_sandbox/webhooks/dead-letters', { body: { webhook_id: webhook, count } });
  return webhook;
}

const timeless = (text: string) => text.replace(/ \([\d.]+ s\)\n/g, ' (T s)\n');

describe('replay --dlq whose next queue page cannot be read', () => {
  it.each([
    ['text', []],
    ['--ndjson', ['--ndjson']],
    ['--json', ['--json']],
  ])(
    '%s: the counts, the reason and the resume hint; exit 1; the same command resumes',
    async (mode, flags) => {
      const webhook = await queue(250);
      const journal = join(svc.dir, `cut-${mode}`);
      const argv = ['webhooks', 'replay', webhook, '--dlq', '--no-wait', '--journal', journal, ...flags];
      const env = { SVC_BASE_URL: proxy().url, SVC_MAX_RETRIES: '0' };
      cutting = true;
      const cut = await svc.run(argv, { env });
      expect(cut.code, cut.stderr).toBe(1);
      // Every replay made has its row: a --json array, whole.
      const rows =
        mode === '--json'
          ? JSON.parse(cut.stdout)
          : mode === '--ndjson'
            ? ndjson(cut.stdout)
            : cut.stdout.trim().split('\n');
      expect(rows).toHaveLength(200);
      const reason = `stopped after 200 of 250: the listing is incomplete: it stopped after 200 items, when the next page failed: the connection to ${proxy().url} failed after the request was sent: other side closed (UND_ERR_SOCKET)`;
      const hint = `try again; if it keeps happening, check the server or the proxy between; then run the same command again with the same profile, logged in as the same user or with the same API key, to resume (journal ${journal})`;
      if (mode === '--json') {
        // The counts before the error too (attack26a F11), the error object the last line.
        expect(timeless(`${cut.stderr.split('\n')[0]}\n`)).toBe(
          '200 replayed, 50 not started in 8ab23c1d-a27b-565a-ad8f-983ecf5fe016 (T s)\n',
        );
        expect(lastJson(cut.stderr).error).toEqual({
          code: 'connection_error',
          message: reason,
          exit_code: 1,
          hint,
        });
      } else if (mode === '--ndjson') {
        const [counts, error] = cut.stderr.trimEnd().split('\n');
        expect(timeless(`${counts}\n`)).toBe(
          '200 replayed, 50 not started in 8ab23c1d-a27b-565a-ad8f-983ecf5fe016 (T s)\n',
        );
        expect(JSON.parse(error!).error).toEqual({
          code: 'connection_error',
          message: reason,
          exit_code: 1,
          hint,
        });
      } else {
        expect(timeless(cut.stderr)).toBe(
          `200 replayed, 50 not started in 8ab23c1d-a27b-565a-ad8f-983ecf5fe016 (T s)\nerror: ${reason}; ${hint}\n`,
        );
      }
      cutting = false;
      const resumed = await svc.run(argv, { env });
      expect(resumed.code, resumed.stderr).toBe(0);
      // Said in every mode, --json too (attack26a F11).
      expect(resumed.stderr.split('\n')[0]).toMatch(
        /^resuming the run started at \S+: 200 done, 50 to do \(journal /,
      );
    },
  );
});
