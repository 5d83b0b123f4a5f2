import { describe, expect, it } from 'vitest';
import { createClient } from '../helpers/oauth.js';
import { call, useGrantRules } from '../helpers/sandbox.js';

// conform16 #5: a just-in-time oauth_client.manage holder rotated an OAuth client's secret and was
// handed it — a standing credential outliving the grant — while a webhook's signing secret refused
// the same caller "as API keys do". One rule (src/api/holds.ts standingRefusal): handing out a
// standing credential takes the permission that manages it held without an end date.
const { sandbox, key, user, as, inHours, grant, customRole, refusal } = useGrantRules('client-secret-hold');

const rotate = (clientId: string, caller: { token: string; tenant: string }) =>
  call(sandbox(), 'POST', `/v1/oauth/clients/${clientId}/rotate-secret`, {
    ...caller,
    body: { idempotency_key: key() },
  });

describe("rotating an OAuth client's secret takes oauth_client.manage held without an end date", () => {
  it('a just-in-time oauth_client.manage, the scopes’ reach held for good: 403 naming until when, the secret unchanged', async () => {
    const client = await createClient(sandbox(), { scopes: ['read:exceptions'] });
    const readers = await customRole('csh-readers', ['exception.read']);
    const managers = await customRole('csh-managers', ['oauth_client.manage']);
    const until = inHours(1);
    await grant(user(1), readers.id);
    await grant(user(1), managers.id, until);
    const before = sandbox().state.oauth.clients.get(client.client_id)!.secret_rotated_at;
    expect(refusal(await rotate(client.client_id, as(user(1))))).toEqual([
      403,
      'insufficient_permission',
      "an OAuth client's secret is a standing credential, like an API key: rotating an OAuth client's secret (it hands you the new one) " +
        `takes oauth_client.manage held without an end date, and you hold it only until ${until}; have someone who holds it without an end date do it`,
    ]);
    expect(sandbox().state.oauth.clients.get(client.client_id)!.secret_rotated_at).toBe(before);

    // Held for good: rotated.
    const standing = await customRole('csh-standing', ['oauth_client.manage']);
    await grant(user(2), readers.id);
    await grant(user(2), standing.id);
    const rotated = await rotate(client.client_id, as(user(2)));
    expect(rotated.status, rotated.text).toBe(200);
  });
});
