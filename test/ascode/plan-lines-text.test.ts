/**
 * A plan's lines for a person (src/ascode/render.ts planLines) with server text in them
 * (findings-attack19 F4, F9): a tenant's display name with a line break stays on its line; a
 * redirect URI or webhook URL whose host is not ASCII shows the host a browser reaches.
 */
import { Chalk } from 'chalk';
import { describe, expect, it } from 'vitest';
import type { PlanChange, PlanDocument } from '../../src/ascode/plan.js';
import { planLines } from '../../src/ascode/render.js';

const change = (over: Partial<PlanChange>): PlanChange =>
  ({
    kind: 'oauth_client',
    action: 'update',
    verb: 'update',
    name: 'Vendor',
    id: 'cli_1',
    line: 7,
    prune: false,
    fields: [],
    before: null,
    needs: [],
    ...over,
  }) as PlanChange;

const doc = (display_name: string, changes: PlanChange[]) =>
  ({ tenants: [{ id: 't1', slug: 'acme-treasury', display_name, changes }] }) as unknown as PlanDocument;

const plain = new Chalk({ level: 0 });

describe('planLines', () => {
  it('a display name with a line break is one line, the break written \\n (F4)', () => {
    expect(planLines(doc('Acme\nFAKE LINE', []), plain)).toEqual([
      'Acme\\nFAKE LINE (acme-treasury): no changes',
    ]);
  });

  it('a redirect URI and a webhook URL with a host that is not ASCII show its punycode form (F9)', () => {
    const lines = planLines(
      doc('Acme', [
        change({
          fields: [
            { field: 'redirect_uris', from: ['https://a.example/cb'], to: ['https://p\u0430y.example/cb'] },
          ],
        }),
        change({
          kind: 'webhook',
          action: 'create',
          verb: 'create',
          name: 'https://h\u043eoks.example/x',
          id: null,
          fields: [],
        }),
      ]),
      plain,
    );
    expect(lines).toEqual([
      'Acme (acme-treasury)',
      '  ~ OAuth client Vendor (cli_1)  (line 7)',
      '      redirect_uris: + https://p\u0430y.example/cb (host xn--py-7kc.example), \u2212 https://a.example/cb',
      '  + webhook https://h\u043eoks.example/x (host xn--hoks-55d.example)  (line 7)',
    ]);
  });

  it('a list item with a comma reads as one item: the comma written %2C, as a list cell writes it', () => {
    const uris = ['https://a.example/cb?x=1,https://evil.example/cb', 'https://b.example/cb'];
    const lines = planLines(
      doc('Acme', [
        change({
          action: 'create',
          verb: 'create',
          id: null,
          fields: [
            { field: 'redirect_uris', to: uris },
            { field: 'scopes', to: ['read,write', 'audit'] },
          ],
        }),
        change({ fields: [{ field: 'redirect_uris', from: ['https://b.example/cb'], to: uris }] }),
      ]),
      plain,
    );
    expect(lines).toEqual([
      'Acme (acme-treasury)',
      '  + OAuth client Vendor  (line 7)',
      '      redirect_uris: https://a.example/cb?x=1%2Chttps://evil.example/cb, https://b.example/cb',
      '      scopes: read%2Cwrite, audit',
      '  ~ OAuth client Vendor (cli_1)  (line 7)',
      '      redirect_uris: + https://a.example/cb?x=1%2Chttps://evil.example/cb',
    ]);
  });
});
