/**
 * A rotation the platform answers with its stored answer (the same --idempotency-key again,
 * `Idempotent-Replayed`) prints one shape for both verbs (brief s29 fixrot 1): `--json` and
 * `--ndjson` carry `"replayed": true` after the answer's own fields, so a script tells it from a
 * rotation it made with `.replayed` (`webhooks rotate-secret` left it out, `oauth rotate-secret`
 * had it); a terminal gets the earlier run's note on stderr and no ✓. One place builds it
 * (sayRotation, src/commands/replayed-creation.ts).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createClient } from '../helpers/oauth.js';
import { useSandboxContext } from '../helpers/sandbox.js';
import { useTempDir } from '../helpers/temp.js';
import { createWebhook } from '../helpers/webhooks.js';

const svc = useSandboxContext();
const dir = useTempDir('svc-rotation-replayed-shape-');
let runs = 0;

const VERBS = [
  {
    group: 'oauth',
    what: 'OAuth client',
    made: async () => (await createClient(svc.sandbox(), { name: `shape-${++runs}` })).client_id as string,
    fileField: 'client_secret_file',
  },
  {
    group: 'webhooks',
    what: 'webhook',
    made: async () => (await createWebhook(svc.sandbox(), `https://h.example/shape-${++runs}`)).id as string,
    fileField: 'secret_file',
  },
] as const;

async function twice(group: string, id: string, ...flags: string[]) {
  const args = [group, 'rotate-secret', id, '--yes', '--idempotency-key', `shape-key-${++runs}`];
  const first = await svc.run([...args, ...flags]);
  expect(first.code, first.stderr).toBe(0);
  const again = await svc.run([...args, ...flags.map((f) => (f.startsWith(dir) ? `${f}.again` : f))]);
  expect(again.code, again.stderr).toBe(0);
  return [first, again] as const;
}

describe.each(VERBS)('svc $group rotate-secret, the same key again', ({ group, what, made, fileField }) => {
  it('--json: the stored answer, then "replayed": true', async () => {
    const [first, again] = await twice(group, await made(), '--show-secret', '--json');
    const stored = JSON.parse(first.stdout);
    expect(stored.replayed).toBeUndefined();
    expect(again.stdout).toBe(`${JSON.stringify({ ...stored, replayed: true }, null, 2)}\n`);
    expect(again.stderr).toBe('');
  });

  it('--ndjson: one line, "replayed": true', async () => {
    const [first, again] = await twice(group, await made(), '--show-secret', '--ndjson');
    const stored = JSON.parse(first.stdout);
    expect(again.stdout).toBe(`${JSON.stringify({ ...stored, replayed: true })}\n`);
    expect(again.stderr).toBe('');
  });

  it('--json --secret-file: the secret in the file, "replayed": true before the file', async () => {
    const file = join(dir, `s-${++runs}`);
    const [first, again] = await twice(group, await made(), '--secret-file', file, '--json');
    const { [fileField]: _file, ...stored } = JSON.parse(first.stdout);
    expect(again.stdout).toBe(
      `${JSON.stringify({ ...stored, replayed: true, [fileField]: `${file}.again` }, null, 2)}\n`,
    );
    expect(readFileSync(`${file}.again`, 'utf8')).toBe(readFileSync(file, 'utf8'));
  });

  it('on a terminal: the same fields as the first run, the earlier run’s note, no ✓', async () => {
    const id = await made();
    const [first, again] = await twice(group, id, '--show-secret');
    expect(again.stdout).toBe(first.stdout);
    const firstLines = first.stderr.split('\n');
    expect(firstLines[0]).toMatch(/^✓ rotated the /);
    expect(again.stderr).toBe(
      [
        `${what} ${id}'s secret was already rotated by an earlier run with this idempotency key: this is the platform's stored answer, and its secret is still the current one`,
        ...firstLines.slice(1),
      ].join('\n'),
    );
  });
});
