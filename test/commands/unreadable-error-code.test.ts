// A 404 whose body holds a date (or a phrase) in its code's place: `code` in --json is svc's own
// (`not_found`), the server's word kept as `server_code`, never taken as a code (attack27a F5).
import { describe, expect, it } from 'vitest';
import { bulkRunner } from '../helpers/bulk.js';
import { useReshapingProxy } from '../helpers/reshaping-proxy.js';
import { useSandbox } from '../helpers/sandbox.js';

const sandbox = useSandbox();
const svc = bulkRunner(sandbox);
const proxy = useReshapingProxy(sandbox);

async function with404Code(code: string, argv: string[]) {
  proxy().reshape((a) => {
    const body = a.body as { error?: { code?: string } };
    if (a.status === 404 && body?.error) body.error.code = code;
  });
  try {
    return await svc.run(argv, { env: { SVC_BASE_URL: proxy().url, SVC_MAX_RETRIES: '0' } });
  } finally {
    proxy().reshape(undefined);
  }
}

describe('a 404 whose code field holds no code', () => {
  it.each([['2026-01-01'], ['9999-12-31T23:59:59Z'], ['Not Found']])(
    '%j: code not_found, server_code the word, exit 5',
    async (word) => {
      const result = await with404Code(word, ['webhooks', 'get', 'wh_nope', '--json']);
      expect(result.code).toBe(5);
      expect(result.stdout).toBe('');
      const { error } = JSON.parse(result.stderr);
      expect([error.code, error.server_code, error.exit_code, error.status]).toEqual([
        'not_found',
        word,
        5,
        404,
      ]);
      expect(result.stderr).not.toContain(`"code":"${word}"`);
    },
  );

  it('a code that is a word stays the code', async () => {
    const result = await with404Code('webhook_missing', ['webhooks', 'get', 'wh_nope', '--json']);
    const { error } = JSON.parse(result.stderr);
    expect([error.code, error.server_code]).toEqual(['webhook_missing', undefined]);
  });
});
