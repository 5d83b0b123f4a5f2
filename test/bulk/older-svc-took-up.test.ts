/**
 * attack23b F2: a run that finished with a failed row (its journal ends `{"finished": T}`), taken
 * up by an svc before truth22 3 (session 18: it tries the failures again, appends their lines and
 * neither a `resumed` nor a `finished` line), then the same command in this svc. It said
 * `resuming the run started at …`, the words of a run cut short, which the earlier svc's was not
 * known to be. The earlier svc's lines are written by hand, as it writes them.
 */
import { appendFileSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { bulkRunner, bulkUser, customRole } from '../helpers/bulk.js';
import { useSandbox } from '../helpers/sandbox.js';

const sandbox = useSandbox({ users: 4 });
const svc = bulkRunner(sandbox);
const ISO = '\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\dZ';
const literal = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

it('a finished run an earlier svc took up since: said so, and that how it ended is not recorded', async () => {
  const role = 'older-took-up';
  await customRole(sandbox(), role);
  const file = svc.file(
    'older-took-up.csv',
    `user,role,expires_in,justification\n${bulkUser(1)},${role},never,x\nusr_nobody,${role},never,x\n`,
  );
  const argv = ['roles', 'assign', '--file', file, '--concurrency', '1', '--ndjson'];
  const first = await svc.run(argv);
  expect(first.code, first.stderr).toBe(7);
  const journal = join(svc.journals, readdirSync(svc.journals).find((f) => f.endsWith('.ndjson'))!);
  const lines = readFileSync(journal, 'utf8').trim().split('\n');
  const finished = JSON.parse(lines.at(-1)!).finished as string;
  expect(finished).toMatch(new RegExp(`^${ISO}$`));
  // The earlier svc's run: the failed row tried again and failed again (exit 7), no mark of its own.
  const failed = lines.map((l) => JSON.parse(l)).find((l) => l.status === 'failed');
  appendFileSync(
    journal,
    `${JSON.stringify({ ...failed, at: new Date().toISOString().slice(0, 19) + 'Z' })}\n`,
  );

  const said = (what: string) =>
    new RegExp(
      `^${what} the run started at ${ISO} \\(it finished at ${finished}; an earlier svc took it up since, and whether that run finished is not recorded\\): 1 done, 1 to do \\(journal ${literal(journal)}\\)$`,
    );
  const dry = await svc.run([...argv, '--dry-run']);
  expect(dry.stderr.split('\n')[0]).toMatch(said('a dry run of taking up again'));
  const again = await svc.run(argv);
  expect(again.code, again.stderr).toBe(7);
  expect(again.stderr.split('\n')[0]).toMatch(said('taking up again'));
});
