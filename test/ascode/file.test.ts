// Over 300 lines: tables of exact access files and the errors they get, one block per part of the format.
import { describe, expect, it } from 'vitest';
import { pastExpiry } from '../../src/api/expiry.js';
import { desiredTenants } from '../../src/ascode/desired.js';
import { readEntries } from '../../src/ascode/entries.js';
import { checkShape } from '../../src/ascode/shape.js';
import { parseSource } from '../../src/ascode/source.js';

// The access file read alone (issue 14): every problem at once, each at its line, with a
// suggestion — before anything is read from the platform.
const NOW = Date.parse('2026-01-15T12:00:00Z');

function problemsOf(label: string, text: string): string[] {
  const parsed = parseSource(label, Buffer.from(text));
  if (!parsed.ok) return parsed.problems.map((p) => `${p.line}: ${p.message}`);
  const shape = checkShape(parsed.source.value);
  const { problems } = readEntries(parsed.source, shape);
  return [...shape.map((p) => ({ line: parsed.source.line(p.path), message: p.message })), ...problems]
    .sort((a, b) => (a.line ?? 0) - (b.line ?? 0))
    .map((p) => `${p.line}: ${p.message}`);
}

const YAML = `version: 1
manage:
  grants: some
blocks:
  - tenants: [acme-treasury]
    roles:
      - name: Fx Desk
        permissions: [exception.read]
        client_secret: abc
    grants:
      - user: usr_a
        users: [usr_b]
        role: fx-desk
        expires_in: 2 weeks
      - user: usr_c
        role: fx-desk
        expires_at: 2025-01-01T00:00:00Z
        expire_in: 7d
    webhooks:
      - url: ftp://hooks.example.com
        event_types: [exception.created, exception.resolvd]
        description: whsec_0123456789abcdef
    oauth_clients:
      - name: portal
        redirect_uris: [http://portal.example.com/cb]
        scopes: [read:reconciliations]
        grant_types: [refresh_token]
`;

describe('an access file with problems', () => {
  it.each(['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf'])(
    'refuses %s like any other unknown field (JSON and YAML)',
    (key) => {
      const fields = 'fields: user, users, role, expires_at, expires_in, justification';
      const json = `{"version": 1, "blocks": [{"tenants": "acme-treasury", "grants": [{"user": "u", "role": "r", "${key}": 1}]}]}`;
      expect(problemsOf('a.json', json)).toEqual([`1: "${key}" is not a field of a grant (${fields})`]);
      const yaml = `version: 1\nblocks:\n  - tenants: acme-treasury\n    grants:\n      - user: u\n        role: r\n        ${key}: 1\n`;
      expect(problemsOf('a.yaml', yaml)).toEqual([`7: "${key}" is not a field of a grant (${fields})`]);
    },
  );

  it('takes an ordinary description that mentions Basic or Bearer, and refuses a real credential after them', () => {
    const file = (description: string) =>
      `version: 1\nblocks:\n  - tenants: acme-treasury\n    roles:\n      - name: feed\n        permissions: [exception.read]\n        description: ${description}\n`;
    expect(problemsOf('a.yaml', file('Basic reconciliation feed for the warehouse'))).toEqual([]);
    expect(problemsOf('a.yaml', file('Bearer instructions are in the runbook'))).toEqual([]);
    expect(problemsOf('a.yaml', file('use Basic dXNlcjpwYXNz'))).toEqual([
      '7: "description" looks like a secret; secrets never go in the file: svc apply writes those of new webhooks and OAuth clients to --secret-dir',
    ]);
  });

  // A value an error repeats is bounded, its start, its end and its length (words17, as quoted()
  // bounds every echoed value): a 5000-character value made a 5 KB "one-line" error.
  it('repeats a long value it refuses bounded: an enum, a pattern', () => {
    const long = `${'a'.repeat(60)}${'b'.repeat(4900)}${'c'.repeat(40)}`;
    const bounded = `"${'a'.repeat(60)}…${'c'.repeat(40)}" (5000 characters)`;
    expect(problemsOf('a.yaml', `version: 1\nmanage:\n  grants: ${long}\nblocks: []\n`)).toEqual([
      `3: "grants" must be one of all, listed-roles, none, not ${bounded}`,
    ]);
    const role = `version: 1\nblocks:\n  - tenants: acme-treasury\n    roles:\n      - name: ${long.toUpperCase()}\n        permissions: [exception.read]\n`;
    expect(problemsOf('a.yaml', role)).toEqual([
      `5: "name" "${'A'.repeat(60)}…${'C'.repeat(40)}" (5000 characters) is not valid: Lowercase letters, digits, _ and -; tenant_, org_, tenant- and org- are kept for built-in roles, id prefixes (role_, usr_, key_, …) for ids`,
    ]);
  });

  it('masks a secret of a webhook or redirect URL it refuses', () => {
    const url = 'ftp://x.example/in?token=SECRET1234567890';
    const file = `version: 1\nblocks:\n  - tenants: acme-treasury\n    webhooks:\n      - url: "${url}"\n        event_types: [webhook.test]\n    oauth_clients:\n      - name: portal\n        scopes: [read:exceptions]\n        redirect_uris: ["${url}"]\n`;
    expect(problemsOf('a.yaml', file)).toEqual([
      '5: "url" "ftp://x.example/in?token=[redacted]" must use http or https',
      '10: redirect URI "ftp://x.example/in?token=[redacted]" must use https (or http on loopback)',
    ]);
  });

  it('refuses a wildcard redirect URI and one URI in two spellings, as the platform would', () => {
    const file = `version: 1\nblocks:\n  - tenants: acme-treasury\n    oauth_clients:\n      - name: portal\n        scopes: [read:exceptions]\n        redirect_uris:\n          - https://v.example/cb\n          - HTTPS://V.EXAMPLE:443/cb\n          - https://*.example.com/cb\n`;
    expect(problemsOf('a.yaml', file)).toEqual([
      '9: redirect URI "HTTPS://V.EXAMPLE:443/cb" is redirect_uris.0 "https://v.example/cb" spelled another way (both are https://v.example/cb); register each redirect URI once',
      '10: redirect URI "https://*.example.com/cb" has a wildcard in its host: wildcards are not supported; register each redirect URI',
    ]);
  });

  it('reports every problem of a YAML file at its line, with suggestions', () => {
    expect(problemsOf('access.yaml', YAML)).toEqual([
      '3: "grants" must be one of all, listed-roles, none, not "some"',
      '7: "name" "Fx Desk" is not valid: Lowercase letters, digits, _ and -; tenant_, org_, tenant- and org- are kept for built-in roles, id prefixes (role_, usr_, key_, …) for ids',
      '9: "client_secret": secrets never go in the file: svc apply writes those of new webhooks and OAuth clients to --secret-dir',
      '11: a grant needs "user" or "users", not both',
      '14: "expires_in" "2 weeks" is not a duration: use a whole number and m, h or d (30m, 8h, 7d), or never',
      '18: "expire_in" is not a field of a grant (did you mean expires_in?) (fields: user, users, role, expires_at, expires_in, justification)',
      '21: item 2 of "event_types" must be one of exception.sla.breached, exception.created, exception.assigned, exception.resolved, reconciliation.completed, reconciliation.failed, webhook.test, not "exception.resolvd" (did you mean exception.resolved?)',
      '22: "description" looks like a secret; secrets never go in the file: svc apply writes those of new webhooks and OAuth clients to --secret-dir',
      '25: redirect URI "http://portal.example.com/cb" may use http only on a loopback host (127.0.0.1, [::1], localhost)',
      '27: "grant_types": refresh_token needs authorization_code',
    ]);
  });

  it('checks what a schema cannot say on entries whose shape is right', () => {
    const text = `version: 1
blocks:
  - tenants: [a, b]
    grants:
      - user: usr_c
        role: tenant_viewer
        expires_at: 2025-01-01T00:00:00Z
      - user: usr_d
        role: tenant_viewer
        expires_in: 400d
    webhooks:
      - id: wh_1
        url: ftp://hooks.example.com
        event_types: [exception.created]
    roles:
      - name: tenant_ops
        permissions: [rule.read]
      - name: tenant-ops
        permissions: [rule.read]
      - name: usr_ops
        permissions: [rule.read]
`;
    expect(problemsOf('a.yaml', text)).toEqual([
      '10: "expires_in" "400d" is longer than 365 days; give an end time (expires at) instead',
      `12: "id" names one tenant's webhook; it only fits in a block of one tenant`,
      '13: "url" "ftp://hooks.example.com" must use http or https',
      '16: "tenant_ops": names starting with tenant_ belong to built-in roles, which cannot be declared (grant them instead)',
      '18: "tenant-ops": names starting with tenant- are kept: they read as built-in roles (tenant_…); choose another name',
      '20: "usr_ops": names starting with usr_ are kept for user ids; choose another name',
    ]);
  });

  it('leaves whether an expires_at is past to the platform clock: its time and line are returned', () => {
    const text =
      'version: 1\nblocks:\n  - tenants: [a]\n    grants:\n      - user: usr_c\n        role: tenant_viewer\n        expires_at: 2025-01-01T00:00:00Z\n';
    const parsed = parseSource('a.yaml', Buffer.from(text));
    if (!parsed.ok) throw new Error('parse');
    const { problems, times } = readEntries(parsed.source);
    expect(problems).toEqual([]);
    const at = Date.parse('2025-01-01T00:00:00Z');
    expect(times).toEqual([{ line: 7, expiry: { kind: 'at', ms: at } }]);
    expect(pastExpiry(times[0]!.expiry, NOW)).toBe('2025-01-01T00:00:00Z is in the past');
    expect(pastExpiry(times[0]!.expiry, at - 1000)).toBeUndefined();
  });

  it('finds the lines of a JSON file as well, without a YAML parser', () => {
    const text = JSON.stringify(
      {
        version: 1,
        blocks: [
          {
            tenants: 'acme-treasury',
            roles: [{ name: 'ops', permissions: ['rule.read'], colour: 'blue' }],
            grants: [{ user: 'usr_a', role: 'ops', expires_in: 'soon' }],
          },
        ],
      },
      null,
      2,
    );
    expect(problemsOf('access.json', text)).toEqual([
      '12: "colour" is not a field of a role (fields: name, description, permissions)',
      '19: "expires_in" "soon" is not a duration: use a whole number and m, h or d (30m, 8h, 7d), or never',
    ]);
  });

  it.each([
    ['YAML', 'a.yaml', 'version: 1\nblocks:\n  - tenants: a\n    roles: [\n', /^5: not valid YAML: /],
    [
      'YAML, a key twice',
      'a.yaml',
      'version: 1\nversion: 1\nblocks: []\n',
      /^2: "version" is given twice in the file; keep one$/,
    ],
    ['JSON', 'a.json', '{\n  "version": 1,\n  "blocks": [\n}\n', /^4: not valid JSON: /],
  ])('reports a syntax error of %s at its line', (_name, label, text, pattern) => {
    const problems = problemsOf(label, text);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(pattern);
  });

  it('refuses what is not a file of this format, naming what is expected', () => {
    expect(problemsOf('a.yaml', 'just text\n')).toEqual(['1: the file must be a map of fields, not text']);
    expect(problemsOf('a.yaml', 'version: 1\nblocks:\n  - roles: []\n')).toEqual([
      '3: a block needs "tenants"',
    ]);
    expect(problemsOf('a.yaml', 'version: 1\nblocks:\n  - tenants: 7\n')).toEqual([
      '3: "tenants" must be: One tenant, a list of them, or all: every tenant where you are tenant_admin',
    ]);
  });
});

describe('what the reader refuses in one line', () => {
  const grantTwice = `{
  "version": 1,
  "blocks": [
    {
      "tenants": "acme-labs",
      "grants": [
        {
          "user": "usr_bulk_000011",
          "role": "tenant_viewer",
          "justification": "read-only access for audit",
          "role": "tenant_admin"
        }
      ]
    }
  ]
}
`;
  it.each([
    [
      'a JSON key twice (the last would win)',
      'a.json',
      grantTwice,
      ['11: "role" is given twice in this grant; keep one'],
    ],
    [
      'a JSON key twice at the top',
      'a.json',
      '{"version":1,"version":1,"blocks":[]}',
      ['1: "version" is given twice in the file; keep one'],
    ],
    [
      'a YAML key twice in a grant',
      'a.yaml',
      'version: 1\nblocks:\n  - tenants: a\n    grants:\n      - user: u\n        role: r\n        role: s\n',
      ['7: "role" is given twice in this grant; keep one'],
    ],
    [
      'a YAML merge key',
      'a.yaml',
      'version: 1\nblocks:\n  - tenants: acme-labs\n    grants:\n      - &g\n        user: usr_a\n        role: tenant_viewer\n      - <<: *g\n        user: usr_b\n',
      [
        '8: merge keys (<<) are not supported; repeat the fields (several users alike: one grant with users: [...])',
      ],
    ],
    [
      'an empty file',
      'a.yaml',
      '',
      ['undefined: the file is empty; it needs "version: 1" and "blocks:" (svc export writes one)'],
    ],
    [
      'a file of comments',
      'a.yaml',
      '# nothing yet\n',
      ['undefined: the file is empty; it needs "version: 1" and "blocks:" (svc export writes one)'],
    ],
    [
      'an empty JSON file',
      'a.json',
      ' \n',
      ['undefined: the file is empty; it needs "version: 1" and "blocks:" (svc export writes one)'],
    ],
    [
      'two YAML documents',
      'a.yaml',
      'version: 1\nblocks: []\n---\nversion: 1\n',
      ['3: the file holds more than one YAML document (a "---" line here); put everything in one'],
    ],
    [
      'a bad item of a tenants list',
      'a.yaml',
      'version: 1\nblocks:\n  - tenants: [acme-labs, 42]\n',
      ['3: item 2 of "tenants" must be text, not a whole number'],
    ],
    [
      'YAML named .json',
      'bad.json',
      'version: 1\nblocks: [\n',
      ['1: not valid JSON: a JSON access file starts with "{"; if this is YAML, name the file .yaml'],
    ],
    [
      'an uppercase M in a duration',
      'a.yaml',
      'version: 1\nblocks:\n  - tenants: a\n    grants:\n      - user: u\n        role: r\n        expires_in: 6M\n',
      [
        '7: "expires_in" "6M": M is not a unit; write 6m for minutes (months are not a unit: use days, e.g. 30d, or an end time)',
      ],
    ],
  ])('%s', (_name, label, text, expected) => {
    expect(problemsOf(label, text)).toEqual(expected);
  });
});

describe('an access file that is right', () => {
  it('reads into entries: grants of several users alike, URLs as the platform keeps them, defaults of manage', () => {
    const text = `version: 1
blocks:
  - tenants: all
    grants:
      - users: [usr_a, usr_b]
        role: fx-desk
        expires_in: 30d
        justification: rota
    webhooks:
      - url: https://Hooks.Example.com
        event_types: [exception.created]
`;
    const parsed = parseSource('a.yaml', Buffer.from(text));
    if (!parsed.ok) throw new Error('parse');
    expect(checkShape(parsed.source.value)).toEqual([]);
    const { file, problems } = readEntries(parsed.source);
    expect(problems).toEqual([]);
    expect(file.manage).toEqual({ roles: 'none', grants: 'none', webhooks: 'none', oauth_clients: 'none' });
    expect(file.blocks[0]!.tenants).toBe('all');
    expect(file.blocks[0]!.grants).toEqual([
      {
        line: 5,
        user: 'usr_a',
        role: 'fx-desk',
        expiry: { kind: 'in', ms: 30 * 86_400_000, text: '30d' },
        justification: 'rota',
      },
      {
        line: 5,
        user: 'usr_b',
        role: 'fx-desk',
        expiry: { kind: 'in', ms: 30 * 86_400_000, text: '30d' },
        justification: 'rota',
      },
    ]);
    expect(file.blocks[0]!.webhooks).toEqual([
      { line: 10, url: 'https://hooks.example.com/', event_types: ['exception.created'] },
    ]);
  });
});

describe('blocks that add up', () => {
  it('takes a role declared again with its permissions in another order for the same role', () => {
    const text = `version: 1
blocks:
  - tenants: all
    roles:
      - name: fx-desk
        permissions: [exception.read, rule.write.fx]
  - tenants: acme-labs
    roles:
      - name: fx-desk
        permissions: [rule.write.fx, exception.read]
      - name: other
        permissions: [rule.read]
  - tenants: acme-labs
    roles:
      - name: other
        permissions: [rule.read, exception.read]
`;
    const parsed = parseSource('allt.yaml', Buffer.from(text));
    if (!parsed.ok) throw new Error('parses');
    const { file } = readEntries(parsed.source, []);
    const labs = { id: 't1', slug: 'acme-labs', display_name: 'Labs', role: 'tenant_admin' };
    expect(desiredTenants(file, [labs]).problems).toEqual([
      {
        line: 15,
        message: 'role "other" is declared again for acme-labs with other values (first at line 11)',
      },
    ]);
  });

  // attack17 A3: the error printed the URL's token; a URL in an error is a label (README, "Secrets
  // are never in the file"), told apart from another by its line.
  it('names a webhook declared again by its URL with its secrets masked', () => {
    const url = 'https://dup.example.com/in?token=DUPTOKEN123456789';
    const text = `version: 1
blocks:
  - tenants: acme-treasury
    webhooks:
      - url: "${url}"
        event_types: [webhook.test]
      - url: "${url}"
        event_types: [exception.created]
        description: second
`;
    const parsed = parseSource('bad3.yaml', Buffer.from(text));
    if (!parsed.ok) throw new Error('parses');
    const { file } = readEntries(parsed.source, []);
    const treasury = { id: 't1', slug: 'acme-treasury', display_name: 'Treasury', role: 'tenant_admin' };
    expect(desiredTenants(file, [treasury]).problems).toEqual([
      {
        line: 7,
        message:
          'webhook https://dup.example.com/in?token=[redacted] is declared again for acme-treasury with other values (first at line 5); webhooks that share a URL are told apart by their "id"',
      },
    ]);
  });
});
