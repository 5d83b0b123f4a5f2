/**
 * A body goes out as the user wrote it, also when svc puts its idempotency key in (s15 pipes15
 * F2): `svc api POST --input`, `-F` and `records create --data` sent 100.50 as 100.5 and 1E2 as
 * 100 (JSON.stringify of the parsed value), though the help says the input is sent as given and a
 * money platform may keep an amount's scale as written. The text is sent with the key spliced in.
 */
import { describe, expect, it } from 'vitest';
import { runInProcess, useTempDirs } from '../../helpers/context.js';
import { answers, HOSTILE_TENANT, hostileEnv, useHostileServer } from '../../helpers/hostile.js';

const dirs = useTempDirs();
const hostile = useHostileServer();

// Made now: a record made long before the request (the server's Date) is a stored answer.
const NOW = new Date().toISOString();
const RECORD = `{"id":"rec_1","surface":"reconciliations","tenant_id":"${HOSTILE_TENANT}","created_at":"${NOW}","updated_at":"${NOW}","created_by":"usr_1","soft_delete":false,"deleted_at":null,"purge_at":null,"amount":100.50}`;

/** Runs svc against a server that records each body's bytes; the bodies and their header keys. */
async function sent(argv: string[], stdin?: string) {
  const server = await hostile();
  server.answer(answers.json(201, JSON.parse(RECORD)));
  const r = await runInProcess(
    argv,
    { ...dirs(), ...hostileEnv(server) },
    stdin === undefined ? {} : { stdin },
  );
  expect([r.code, r.stderr]).toEqual([0, '']);
  return server.seen.map((q) => ({ body: q.body, key: q.headers['idempotency-key'] as string }));
}

describe('a body is sent as written, the idempotency key put in (F2)', () => {
  it('svc api POST --input: every number, space and escape as given', async () => {
    const text = '{"name":"x", "amount":100.50,"rate":1.10,"n":1E2,"list":[1.0, 0.00],"u":"\\u00e9"}\n';
    const [one, ...more] = await sent(['api', 'POST', '/v1/reconciliations', '--input', '-'], text);
    expect(more).toEqual([]);
    expect(one!.key).toMatch(/^svc_/);
    expect(one!.body).toBe(
      `{"name":"x", "amount":100.50,"rate":1.10,"n":1E2,"list":[1.0, 0.00],"u":"\\u00e9","idempotency_key":"${one!.key}"}\n`,
    );
  });

  it('svc api POST --input with an empty object gets the key alone', async () => {
    const [one] = await sent(['api', 'POST', '/v1/reconciliations', '--input', '-'], '{ }');
    expect(one!.body).toBe(`{ "idempotency_key":"${one!.key}"}`);
  });

  it('svc api POST -f/-F: each value as typed', async () => {
    const [one] = await sent([
      'api',
      'POST',
      '/v1/reconciliations',
      '-f',
      'name=x',
      '-F',
      'amount=100.50',
      '-F',
      'n=1E2',
      '-F',
      'meta={"fx": 1.10}',
      '-F',
      'ok=true',
      '-F',
      'note=plain "text"',
    ]);
    expect(one!.body).toBe(
      `{"name":"x","amount":100.50,"n":1E2,"meta":{"fx": 1.10},"ok":true,"note":"plain \\"text\\"","idempotency_key":"${one!.key}"}`,
    );
  });

  it('records create --data and --data-file -: the data as written', async () => {
    const data = '{"name":"y","amount":100.50,"n":1E2}';
    for (const argv of [
      ['records', 'create', 'reconciliations', '--data', data, '--json'],
      ['records', 'create', 'reconciliations', '--data-file', '-', '--json'],
    ]) {
      const [one] = await sent(argv, data);
      expect(one!.body).toBe(`{"name":"y","amount":100.50,"n":1E2,"idempotency_key":"${one!.key}"}`);
    }
  });

  it("a body's own idempotency_key: the text is sent as given", async () => {
    const text = '{"amount":100.50,"idempotency_key":"mine-1"}';
    const [one] = await sent(['api', 'POST', '/v1/reconciliations', '--input', '-'], text);
    expect(one).toEqual({ body: text, key: 'mine-1' });
  });
});
