import { describe, expect, it } from 'vitest';
import { MASK, redactUrlText } from '../../src/api/secret-names.js';

// s18 mask18 #1: a webhook URL that does not parse as a URL (a port out of range, a space in its
// host, a backslash before a bad port) kept its query and path secrets where it was printed as a
// label: only a `scheme://user:password@` part was masked. Such text is masked fail-safe: every
// query value, the user name and password, a fragment with parameters, and what the host rules
// know after a path key, by text.
describe('a URL that does not parse, masked as a label', () => {
  it.each([
    ['https://h:99999/x?token=SECRET', `https://h:99999/x?token=${MASK}`],
    // Every query value, not only the secret-named ones: what the parser would read is unknown.
    ['https://h:99999/x?a=1&code&q=SECRETQ', `https://h:99999/x?a=${MASK}&${MASK}&q=${MASK}`],
    ['https://hooks example.com/in?token=SECRET&v=2', `https://hooks example.com/in?token=${MASK}&v=${MASK}`],
    ['https://h:99999\\in\\x?token=SECRET', `https://h:99999\\in\\x?token=${MASK}`],
    [
      'https://user:pass@h:99999/x?sig=SECRET#access_token=SECRETF',
      `https://${MASK}:${MASK}@h:99999/x?sig=${MASK}#${MASK}`,
    ],
    // The host rules and the any-host rules, by text.
    [
      'https://hooks.slack.com:99999/services/T0AAAAAAA/B0BBBBBBB/abcdefghijklmnopqrstuvwx',
      `https://hooks.slack.com:99999/services/T0AAAAAAA/B0BBBBBBB/${MASK}`,
    ],
    [
      'https://discord.com:70000/api/webhooks/123456789012345678/tok_en-shortsecret',
      `https://discord.com:70000/api/webhooks/123456789012345678/${MASK}`,
    ],
    [
      'https://mm.example.com:99999/hooks/xjhwa5pq3ib8mrrp1c3z8ce8jh',
      `https://mm.example.com:99999/hooks/${MASK}`,
    ],
    ['https://h:99999\\hooks\\xjhwa5pq3ib8mrrp1c3z8ce8jh?x=1', `https://h:99999\\hooks\\${MASK}?x=${MASK}`],
    // No scheme: the text before the first slash is read as the host.
    [
      'hooks.slack.com/services/T0AAAAAAA/B0BBBBBBB/abcdefghijklmnopqrstuvwx?a=1',
      `hooks.slack.com/services/T0AAAAAAA/B0BBBBBBB/${MASK}?a=${MASK}`,
    ],
    ['//user:pw@h:99999/x', `//${MASK}:${MASK}@h:99999/x`],
    [
      'https:/hooks.slack.com:99999/services/T0AAAAAAA/B0BBBBBBB/abcdefghijklmnopqrstuvwx',
      `https:/hooks.slack.com:99999/services/T0AAAAAAA/B0BBBBBBB/${MASK}`,
    ],
  ])('%s', (url, expected) => {
    expect(URL.canParse(url)).toBe(false);
    expect(redactUrlText(url)).toBe(expected);
  });
});

// A URL the parser reads otherwise than its text: a tab or newline it drops, a host it decodes.
describe('a URL the parser reads otherwise than its text', () => {
  it.each([
    ['https://h.example/x?to\nken=SECRET&a=1', `https://h.example/x?to\nken=${MASK}&a=${MASK}`],
    [
      'https://hooks.slack%2Ecom/services/T0AAAAAAA/B0BBBBBBB/abcdefghijklmnopqrstuvwx',
      `https://hooks.slack%2Ecom/services/T0AAAAAAA/B0BBBBBBB/${MASK}`,
    ],
    [
      'https://HOOKS.SLACK.COM./services/T0AAAAAAA/B0BBBBBBB/abcdefghijklmnopqrstuvwx',
      `https://HOOKS.SLACK.COM./services/T0AAAAAAA/B0BBBBBBB/${MASK}`,
    ],
  ])('%j', (url, expected) => {
    expect(URL.canParse(url)).toBe(true);
    expect(redactUrlText(url)).toBe(expected);
  });
});
