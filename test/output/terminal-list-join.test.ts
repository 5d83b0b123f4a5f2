/**
 * attack26a F12: a list in a cell reads the same on every terminal table and record — items joined
 * with ", " (`webhooks get` and `roles get` always did; `oauth get`, `oauth ls` and `webhooks ls`
 * showed `a,b`) — while a pipe's TSV keeps "," (scripts split on it) and --json its array.
 */
import { describe, expect, it } from 'vitest';
import { useSandboxContext } from '../helpers/sandbox.js';

const svc = useSandboxContext();
const terminal = { tty: { stdout: true }, columns: 200 };

async function client(): Promise<string> {
  const r = await svc.run([
    ...['oauth', 'create', '--name', 'joined', '--redirect-uri', 'https://vendor.example/a'],
    ...[
      '--redirect-uri',
      'https://vendor.example/b',
      '--scope',
      'read:exceptions',
      '--show-secret',
      '--json',
    ],
  ]);
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout).client_id;
}

async function webhook(): Promise<string> {
  const r = await svc.run([
    ...['webhooks', 'create', '--url', 'https://hooks.example/joined', '--event-type', 'exception.created'],
    ...['--event-type', 'exception.assigned', '--show-secret', '--json'],
  ]);
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout).id;
}

describe('lists in cells: ", " on a terminal, "," in a pipe', () => {
  it('oauth get and oauth ls', async () => {
    const id = await client();
    const get = await svc.run(['oauth', 'get', id], terminal);
    expect(get.code, get.stderr).toBe(0);
    expect(get.stdout).toMatch(
      /^redirect uris +https:\/\/vendor\.example\/a, https:\/\/vendor\.example\/b$/m,
    );
    expect(get.stdout).toMatch(/^grant types +authorization_code, refresh_token$/m);
    const ls = await svc.run(['oauth', 'ls'], terminal);
    expect(ls.code, ls.stderr).toBe(0);
    expect(ls.stdout.split('\n').find((line) => line.includes(id))).toContain(
      'https://vendor.example/a, https://vendor.example/b',
    );

    const piped = await svc.run(['oauth', 'get', id]);
    expect(piped.stdout).toContain('\nredirect uris\thttps://vendor.example/a,https://vendor.example/b\n');
    expect(piped.stdout).toContain('\ngrant types\tauthorization_code,refresh_token\n');
    const pipedLs = await svc.run(['oauth', 'ls']);
    expect(pipedLs.stdout.split('\n').find((line) => line.startsWith(id))).toContain(
      '\thttps://vendor.example/a,https://vendor.example/b\t',
    );
  });

  it('webhooks ls and webhooks get', async () => {
    const id = await webhook();
    const ls = await svc.run(['webhooks', 'ls'], terminal);
    expect(ls.code, ls.stderr).toBe(0);
    expect(ls.stdout.split('\n').find((line) => line.includes(id))).toContain(
      'exception.created, exception.assigned',
    );
    const get = await svc.run(['webhooks', 'get', id], terminal);
    expect(get.stdout).toMatch(/^event types +exception\.created, exception\.assigned$/m);

    const piped = await svc.run(['webhooks', 'ls']);
    const row = piped.stdout.split('\n').find((line) => line.startsWith(id))!;
    expect(row.split('\t').slice(0, 3)).toEqual([
      id,
      'https://hooks.example/joined',
      'exception.created,exception.assigned',
    ]);
    const json = JSON.parse((await svc.run(['webhooks', 'ls', '--json'])).stdout);
    expect(json.find((w: { id: string }) => w.id === id).event_types).toEqual([
      'exception.created',
      'exception.assigned',
    ]);
  });
});
