/**
 * A look-alike redirect URI in a table cut to the terminal (attack22b F1): the mark "(host xn--…)"
 * came after the URL and was the first thing a narrow URI column cut, so `https://pаy.example/…`
 * (Cyrillic а) read the same as the real `https://pay.example/…`. A table cell now has the punycode
 * host in place of the written one (asciiHostUrls, src/output/hosts.ts): any cut keeps the host the
 * browser reaches, or none of it. Records keep the URL as written with the host beside it.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { asciiHostUrls, withAsciiHostInPlace } from '../../../src/output/hosts.js';
import { createClient } from '../../helpers/oauth.js';
import { useSandboxContext } from '../../helpers/sandbox.js';
import { createWebhook } from '../../helpers/webhooks.js';

const svc = useSandboxContext();
// All Cyrillic ("рау"): a host mixing scripts (`pаy`) is refused at registration since session 28.
const FAKE = 'https://\u0440\u0430\u0443.example/oauth/callback/settlement-eu';
const REAL = 'https://pay.example/oauth/callback/settlement-eu';

describe('withAsciiHostInPlace', () => {
  it('puts the punycode host in place of the written one and keeps the rest as written', () => {
    expect(withAsciiHostInPlace(FAKE)).toBe('https://xn--80a5ak.example/oauth/callback/settlement-eu');
    expect(withAsciiHostInPlace('https://u@\u0440\u0430\u0443.example:8443/cb?q=\u0430')).toBe(
      'https://u@xn--80a5ak.example:8443/cb?q=\u0430',
    );
    expect(withAsciiHostInPlace(REAL)).toBe(REAL);
    expect(withAsciiHostInPlace('not a url \u0430')).toBe('not a url \u0430');
    expect(withAsciiHostInPlace('https://\u0440\u0430\u0443 exa%mple/cb')).toBe(
      '(host not a valid name) https://\u0440\u0430\u0443 exa%mple/cb',
    );
    expect(asciiHostUrls([REAL, FAKE])).toEqual([
      REAL,
      'https://xn--80a5ak.example/oauth/callback/settlement-eu',
    ]);
  });
});

describe('oauth ls: a look-alike redirect URI cut to the terminal', () => {
  const ids: Record<'fake' | 'real', string> = { fake: '', real: '' };
  beforeAll(async () => {
    const scopes = ['read:exceptions'];
    ids.fake = (
      await createClient(svc.sandbox(), { name: 'Payments fake', redirect_uris: [FAKE], scopes })
    ).client_id;
    ids.real = (
      await createClient(svc.sandbox(), { name: 'Payments real', redirect_uris: [REAL], scopes })
    ).client_id;
  });

  // Before: the look-alike's cell was `https://pаy.example/oauth/callback/settlem…`, the real one's to the letter.
  it('at 120 columns the cut cell shows the host the browser reaches', async () => {
    const ls = await svc.run(['oauth', 'ls'], { tty: true, columns: 120 });
    expect(ls.code, ls.stderr).toBe(0);
    expect(ls.stdout).toBe(
      [
        'CLIENT ID                     NAME           SCOPES           REDIRECT URIS                                PKCE  CREATED',
        `${ids.fake}  Payments fake  read:exceptions  https://xn--80a5ak.example/oauth/callback/…  yes   now`,
        `${ids.real}  Payments real  read:exceptions  https://pay.example/oauth/callback/settlem…  yes   now`,
        '',
      ].join('\n'),
    );
  });

  it('at 80 columns the URI column is dropped, never cut to a look-alike', async () => {
    const ls = await svc.run(['oauth', 'ls'], { tty: true, columns: 80 });
    expect(ls.code, ls.stderr).toBe(0);
    expect(ls.stdout).toBe(
      [
        'CLIENT ID                     NAME           SCOPES           PKCE  CREATED',
        `${ids.fake}  Payments fake  read:exceptions  yes   now`,
        `${ids.real}  Payments real  read:exceptions  yes   now`,
        '',
      ].join('\n'),
    );
  });

  it('a second URI in the cell has its punycode host too; oauth get has the URI as written, the host beside', async () => {
    const client = await createClient(svc.sandbox(), { name: 'Two', redirect_uris: [REAL, FAKE] });
    const ls = await svc.run(['oauth', 'ls', '--wide'], { tty: true, columns: 120 });
    const row = ls.stdout.split('\n').find((line) => line.startsWith(client.client_id)) ?? '';
    expect(row).toContain(`${REAL}, https://xn--80a5ak.example/oauth/callback/settlement-eu`);
    const get = await svc.run(['oauth', 'get', client.client_id], { tty: true });
    expect(get.stdout).toContain(`${REAL}, ${FAKE} (host xn--80a5ak.example)`);
  });
});

describe('webhooks ls: a look-alike URL the platform keeps as given', () => {
  it('at 80 columns the cut URL cell shows the punycode host', async () => {
    const { id } = await createWebhook(svc.sandbox(), 'https://example.com/hook');
    svc.sandbox().state.webhooks.byId(id)!.url =
      'https://ex\u0430mple.com/hooks/payments/settlement/callback';
    const ls = await svc.run(['webhooks', 'ls'], { tty: true, columns: 80 });
    expect(ls.code, ls.stderr).toBe(0);
    const row =
      ls.stdout.split('\n').find((line) => line.startsWith(id.slice(0, 6)) && line.includes('xn--')) ?? '';
    expect(row).toMatch(/^wh_[0-9a-f]+… {2}https:\/\/xn--exmple-4nf\.com\/\S*… {2}/);
    expect(ls.stdout).not.toContain('ex\u0430mple');
  });
});

describe('a URL cell is never cut inside its host (review22e H1)', () => {
  it('webhooks ls at 70 and 80 columns: a host that extends the real one is shown whole', async () => {
    const real = (await createWebhook(svc.sandbox(), 'https://hooks.acme-treasury.com/settlement/events')).id;
    const relay = (
      await createWebhook(svc.sandbox(), 'https://hooks.acme-treasury.com.cb-relay.io/settlement/events')
    ).id;
    for (const columns of [70, 80]) {
      const ls = await svc.run(['webhooks', 'ls'], { tty: true, columns });
      expect(ls.code, ls.stderr).toBe(0);
      const rowOf = (id: string) =>
        ls.stdout.split('\n').find((line) => line.startsWith(id.slice(0, 6))) ?? '';
      // Each host whole: never `https://hooks.acme-treasury…` for both.
      expect(rowOf(real)).toMatch(/https:\/\/hooks\.acme-treasury\.com\//);
      expect(rowOf(relay)).toContain('https://hooks.acme-treasury.com.cb-relay.io');
    }
  });
});
