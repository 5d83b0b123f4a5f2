import { describe, expect, it } from 'vitest';
import { MASK, redactUrlReference, redactUrlText } from '../../src/api/secret-names.js';
import { redactTracedBody } from '../../src/http/redact.js';

// Findings s14 secrets #3: a Slack, Discord or Teams webhook URL carries its credential in the
// path, and was written 0644 without a warning by svc export and shown whole in the audit trail.
// The one rule (redactUrlText: "this URL carries a secret" when it masks something) masks it.
describe('a credential in a URL path', () => {
  it.each([
    [
      'https://hooks.slack.com/services/T0AAAAAAA/B0BBBBBBB/abcdefghijklmnopqrstuvwx',
      `https://hooks.slack.com/services/T0AAAAAAA/B0BBBBBBB/${MASK}`,
    ],
    [
      'https://discord.com/api/webhooks/123456789012345678/AbCdEf_ghIJ-klmnop',
      `https://discord.com/api/webhooks/123456789012345678/${MASK}`,
    ],
    [
      'https://discordapp.com/api/v10/webhooks/123456789012345678/tok/slack?wait=true',
      `https://discordapp.com/api/v10/webhooks/123456789012345678/${MASK}/slack?wait=true`,
    ],
    [
      'https://contoso.webhook.office.com/webhookb2/1f0e-aa@72f9-bb/IncomingWebhook/0123abcd/9e8d-cc/V2sigSIG',
      `https://contoso.webhook.office.com/webhookb2/1f0e-aa@72f9-bb/IncomingWebhook/${MASK}`,
    ],
    [
      'https://outlook.office.com/webhook/1f0e-aa@72f9-bb/IncomingWebhook/0123abcd/9e8d-cc',
      `https://outlook.office.com/webhook/1f0e-aa@72f9-bb/IncomingWebhook/${MASK}`,
    ],
    // Any host: a last path segment shaped like a random credential (mixed-case letters and
    // digits, 20 or more; or 32 or more hex digits), a trailing slash and the query kept.
    [
      'https://hooks.example.com/in/Zx81kQm2Lp9VbN4cRt7Ws3Y/?a=1',
      `https://hooks.example.com/in/${MASK}/?a=1`,
    ],
    [
      'https://hooks.example.com/catch/0123456789abcdef0123456789abcdef',
      `https://hooks.example.com/catch/${MASK}`,
    ],
    // review16 R5: common targets whose key is in the path, not a Slack-like host.
    [
      'https://api.telegram.org/bot123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw/sendMessage',
      `https://api.telegram.org/bot123456789:${MASK}/sendMessage`,
    ],
    ['https://mm.example.com/hooks/xjhwa5pq3ib8mrrp1c3z8ce8jh', `https://mm.example.com/hooks/${MASK}`],
    [
      'https://hooks.zapier.com/hooks/catch/1234567/abcdef1/',
      `https://hooks.zapier.com/hooks/catch/1234567/${MASK}/`,
    ],
    // Rocket.Chat: /hooks/ID/TOKEN, a token of 48 letters and digits.
    [
      'https://chat.example.com/hooks/nF8hKq3Zr5LmT2xWd/p4Gv8sQ1nB7zX3cK9mR2tL6wY0hJ5dF8aE3uN7iO1qS4vZ2b?x=1',
      `https://chat.example.com/hooks/nF8hKq3Zr5LmT2xWd/${MASK}?x=1`,
    ],
    ['https://mm.example.com/hooks/4k2q8r1x7c9b3m5n6p0w2z4y8t', `https://mm.example.com/hooks/${MASK}`],
    // review17 F1: Mattermost keys (26 from `ybndrfg8ejkmcpqxot1uwisza345h769`) with two digits,
    // one in the middle, one at the end and none: about 1 in 120 has fewer than three switches.
    ['https://chat.example.com/hooks/xi30fbuctpgwjmsjzqnkzqwrhe', `https://chat.example.com/hooks/${MASK}`],
    ['https://chat.example.com/hooks/sinorihjfsngrifmsjhur7xudy', `https://chat.example.com/hooks/${MASK}`],
    [
      'https://chat.example.com/hooks/sinorihjfsngrifmsjhurexudy7/',
      `https://chat.example.com/hooks/${MASK}/`,
    ],
    ['https://chat.example.com/hooks/ybndrfgejkmcpqxotuwiszahyb', `https://chat.example.com/hooks/${MASK}`],
    [
      'https://hooks.zapier.com/hooks/catch/98765/o2x4kzq/?a=1',
      `https://hooks.zapier.com/hooks/catch/98765/${MASK}/?a=1`,
    ],
    // review17c C1: Slack's other webhooks on its host (Workflow Builder, triggers) whatever their
    // secret's shape (here no digit): all of the path after its first segment.
    [
      'https://hooks.slack.com/workflows/T02AB12CD/A03XY45ZW/412345678901234567/aBcDeFgHiJkLmNoPqRsTuVwX',
      `https://hooks.slack.com/workflows/${MASK}`,
    ],
    [
      'https://hooks.slack.com/triggers/T02AB12CD/412345678901234567/abcdefghijklmnopqrstuvwx?x=1',
      `https://hooks.slack.com/triggers/${MASK}?x=1`,
    ],
    [
      'https://hooks.slack.com/services/T0AAAAAAA/B0BBBBBBB/ABCDEFGHIJKLMNOPQRSTUVWX',
      `https://hooks.slack.com/services/T0AAAAAAA/B0BBBBBBB/${MASK}`,
    ],
    // Rocket.Chat tokens with no digit: mixed case, or 40+ letters after /hooks/ID/ (all lower case).
    [
      'https://chat.example.com/hooks/5f3c1a2b3c4d5e6f7/AbCdEfGhIjKmNoPqRsTuVwXyZaBcDeFgHiJkMnOpQrStUvWxYz',
      `https://chat.example.com/hooks/5f3c1a2b3c4d5e6f7/${MASK}`,
    ],
    [
      'https://chat.example.com/hooks/5f3c1a2b3c4d5e6f7/abcdefghijkmnopqrstuvwxyzabcdefghijkmnopqrstuvw/',
      `https://chat.example.com/hooks/5f3c1a2b3c4d5e6f7/${MASK}/`,
    ],
    ['https://chat.example.com/hooks/AbCdEfGhIjKmNoPqRsTuVw', `https://chat.example.com/hooks/${MASK}`],
    // IFTTT Maker: the key after /with/key/ (22 of [A-Za-z0-9_-], here no digit), the event kept.
    [
      'https://maker.ifttt.com/trigger/recon_done/with/key/bQWuPbcfJ-nLzkRxxdxzqX',
      `https://maker.ifttt.com/trigger/recon_done/with/key/${MASK}`,
    ],
    [
      'https://maker.ifttt.com/trigger/recon_done/json/with/key/bQWuPbcfJ-nLzkRxxdxzqX?value1=x',
      `https://maker.ifttt.com/trigger/recon_done/json/with/key/${MASK}?value1=x`,
    ],
  ])('masks %s', (url, expected) => {
    expect(redactUrlText(url)).toBe(expected);
  });

  it.each([
    // svc's own paths: prefixed ids, UUIDs, slugs, words.
    'https://api.example.com/v1/webhooks/wh_0123456789abcdef01234567',
    'https://api.example.com/v1/tenants/6f1c2a3b-4d5e-4f60-8a7b-9c0d1e2f3a4b/roles',
    'https://hooks.example.com/reconciliation-events-2024-holdings-eu',
    'https://hooks.example.com/ReconciliationEvents',
    'https://hooks.slack.com/services/',
    'https://discord.com/api/webhooks/123456789012345678',
    'https://warehouse.acme.example/hooks/svc',
    'https://ci.example.com/hooks/github/',
    // review16e E4: versions, words and names after /hooks/ are no credential.
    'https://ci.example.com/hooks/v2',
    'https://ci.example.com/hooks/v3/',
    'https://erp.example.com/hooks/reconciliation-exceptions',
    'https://erp.example.com/git/hooks/post-receive-2',
    'https://erp.example.com/hooks/svc/exceptions/',
    'https://erp.example.com/hooks/release2024',
    'https://erp.example.com/hooks/2024/11/settlements-eu-1',
    'https://erp.example.com/hooks/reconciliationexceptions',
    'https://erp.example.com/hooks/settlementreconciliationeu',
    'https://erp.example.com/hooks/ledger_sync_2024_q4_holdings',
    'https://erp.example.com/webhooks/exceptions-2024',
    'https://hooks.zapier.com/hooks/catch/',
    // review17c C1: lower-case names under /hooks/ID/ shorter than a token stay readable.
    'https://erp.example.com/hooks/svc/reconciliation',
    'https://erp.example.com/hooks/ledger/settlementreconciliationeu',
    'https://maker.ifttt.com/trigger/recon_done/with/key/',
  ])('keeps %s', (url) => {
    expect(redactUrlText(url)).toBe(url);
  });

  it('masks a relative reference (a Location header) by the same rule', () => {
    expect(redactUrlReference('/hooks/Zx81kQm2Lp9VbN4cRt7Ws3Y?x=1')).toBe(`/hooks/${MASK}?x=1`);
  });

  it('masks a Telegram bot token and a Mattermost key in a --debug trace body (review16 R5)', () => {
    const body =
      '{"items":[{"url":"https://api.telegram.org/bot123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw/sendMessage"},' +
      '{"url":"https://mm.example.com/hooks/xjhwa5pq3ib8mrrp1c3z8ce8jh"}]}';
    expect(redactTracedBody(body, 'application/json')).toBe(
      `{"items":[{"url":"https://api.telegram.org/bot123456789:${MASK}/sendMessage"},` +
        `{"url":"https://mm.example.com/hooks/${MASK}"}]}`,
    );
  });

  it('masks it in a --debug trace body (a webhook created with such a URL)', () => {
    const body =
      '{"url":"https://discord.com/api/webhooks/123456789012345678/AbCdEf_ghIJ-klmnop","event_types":["x"]}';
    expect(redactTracedBody(body, 'application/json')).toBe(
      `{"url":"https://discord.com/api/webhooks/123456789012345678/${MASK}","event_types":["x"]}`,
    );
  });
});
