/**
 * Refresh-token lifetime (attack28a L6): each refresh token lives refresh_token_lifetime_seconds
 * from its issue (sliding: a grant in use goes on), but no refresh token of a family outlives
 * the family's absolute lifetime, 365 days after the authorization that started it (a stolen,
 * regularly refreshed token does not live for ever). Moves the sandbox clock: a file of its own.
 */
import { describe, expect, it } from 'vitest';
import { codeTokens, createClient, tokenRequest } from '../helpers/oauth.js';
import { call, useSandbox } from '../helpers/sandbox.js';

const sandbox = useSandbox();
const DAY = 86_400;

describe('refresh-token lifetime', () => {
  it('slides with each rotation, and ends 365 days after the authorization however often refreshed', async () => {
    const client = await createClient(sandbox(), { refresh_token_lifetime_seconds: 300 * DAY });
    let tokens = (await codeTokens(sandbox(), client)).body;
    const refresh = (token: string) =>
      tokenRequest(sandbox(), {
        grant_type: 'refresh_token',
        client_id: client.client_id,
        client_secret: client.client_secret,
        refresh_token: token,
      });
    // Sliding: refreshed every 200 days, each new token lives 300 days from its issue.
    await call(sandbox(), 'POST', '/_sandbox/clock', { body: { advance_seconds: 200 * DAY } });
    const next = await refresh(tokens.refresh_token);
    expect(next.status, JSON.stringify(next.body)).toBe(200);
    tokens = next.body;
    // Day 364: still inside the family's 365 days.
    await call(sandbox(), 'POST', '/_sandbox/clock', { body: { advance_seconds: 164 * DAY } });
    const late = await refresh(tokens.refresh_token);
    expect(late.status, JSON.stringify(late.body)).toBe(200);
    // Day 365 and a second: the newest token's 300 days are not over, the family's 365 are.
    await call(sandbox(), 'POST', '/_sandbox/clock', { body: { advance_seconds: DAY + 1 } });
    const over = await refresh(late.body.refresh_token);
    expect([over.status, over.body]).toEqual([
      400,
      {
        error: 'invalid_grant',
        error_description:
          'the refresh token has expired: its grant reached the 365 days a login lasts, however often it is refreshed; log in again',
      },
    ]);
  });
});
