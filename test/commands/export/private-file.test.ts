import { execFileSync } from 'node:child_process';
import { chownSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { APAC, as, LABS, writeFile } from '../../helpers/ascode.js';
import { ndjson } from '../../helpers/context.js';
import { fifoReader } from '../../helpers/fifo.js';
import { useSandboxContext } from '../../helpers/sandbox.js';
import { useTempDir } from '../../helpers/temp.js';

// A file svc knows holds a secret — an export or a saved plan with a webhook URL's `?token=` —
// is written 0600, and svc says so (review s13, ascode F7: it was written with the umask, 0644,
// while the warning said "keep the file private").
const svc = useSandboxContext({ users: 5 }, { tenant: false });
const dir = useTempDir('svc-private-file-');
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const URL_WITH_TOKEN = 'https://hooks.example.com/in?token=s3cr3tTokenValue123456&x=1';
const mode = (path: string) => statSync(path).mode & 0o777;

describe('a file holding a webhook URL secret', () => {
  it('svc export -o and svc plan --out write it 0600 and say so', async () => {
    const made = await as(svc.sandbox(), APAC, 'POST', '/v1/webhooks', {
      url: URL_WITH_TOKEN,
      event_types: ['exception.created'],
    });
    const out = join(dir, 'tok.yaml');
    const ex = await svc.run(['export', '--tenant', 'acme-apac', '--only', 'webhooks', '-o', out]);
    expect(ex.code, ex.stderr).toBe(0);
    expect(mode(out)).toBe(0o600);
    expect(ex.stderr).toContain(
      `warning: acme-apac: the URL of webhook ${made.id} (https://hooks.example.com/in?token=[redacted]&x=1) carries a secret in it, and the file holds it as the platform has it: it is written 0600 (only you can read it); keep it private\n`,
    );

    const file = writeFile(
      dir,
      'new.yaml',
      `version: 1\nblocks:\n  - tenants: acme-apac\n    webhooks:\n      - url: "https://other.example.com/in?token=s3cr3tTokenValue654321"\n        event_types: [exception.created]\n`,
    );
    const saved = join(dir, 'tok.plan.json');
    const plan = await svc.run(['plan', '-f', file, '--out', saved]);
    expect(plan.code, plan.stderr).toBe(10);
    expect(mode(saved)).toBe(0o600);
    expect(plan.stderr).toContain(
      `plan saved to ${saved} (0600: a webhook URL in it carries a secret; keep it private); `,
    );
  });
});

// Findings s14 secrets #3: the credential of a Slack or Discord webhook URL is in its path, and
// such an export was written 0644 without a warning.
describe('a file holding a webhook URL with its credential in the path', () => {
  it('svc export -o writes it 0600 and warns, the credential masked in the warning', async () => {
    const made = await as(svc.sandbox(), APAC, 'POST', '/v1/webhooks', {
      url: 'https://hooks.slack.com/services/T0AAAAAAA/B0BBBBBBB/abcdefghijklmnopqrstuvwx',
      event_types: ['exception.created'],
    });
    const out = join(dir, 'slack.yaml');
    const ex = await svc.run(['export', '--tenant', 'acme-apac', '--only', 'webhooks', '-o', out]);
    expect(ex.code, ex.stderr).toBe(0);
    expect(mode(out)).toBe(0o600);
    expect(ex.stderr).toContain(
      `warning: acme-apac: the URL of webhook ${made.id} (https://hooks.slack.com/services/T0AAAAAAA/B0BBBBBBB/[redacted]) carries a secret in it, and the file holds it as the platform has it: it is written 0600 (only you can read it); keep it private\n`,
    );
  });
});

// review16 R5: Telegram, Mattermost and Zapier URLs were exported 0644 without a warning, and
// shown whole by --debug.
describe('a file holding a Telegram, Mattermost or Zapier webhook URL', () => {
  it.each([
    [
      'https://api.telegram.org/bot123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw/sendMessage',
      'https://api.telegram.org/bot123456789:[redacted]/sendMessage',
    ],
    ['https://mm.example.com/hooks/xjhwa5pq3ib8mrrp1c3z8ce8jh', 'https://mm.example.com/hooks/[redacted]'],
    [
      'https://hooks.zapier.com/hooks/catch/1234567/abcdef1/',
      'https://hooks.zapier.com/hooks/catch/1234567/[redacted]/',
    ],
  ])('svc export -o writes %s 0600 and warns; --debug masks it', async (url, masked) => {
    const made = await as(svc.sandbox(), LABS, 'POST', '/v1/webhooks', {
      url,
      event_types: ['exception.created'],
    });
    try {
      const out = join(dir, `labs-${masked.length}.yaml`);
      const ex = await svc.run(['export', '--tenant', 'acme-labs', '--only', 'webhooks', '-o', out]);
      expect(ex.code, ex.stderr).toBe(0);
      expect(mode(out)).toBe(0o600);
      expect(ex.stderr).toContain(
        `warning: acme-labs: the URL of webhook ${made.id} (${masked}) carries a secret in it, and the file holds it as the platform has it: it is written 0600 (only you can read it); keep it private\n`,
      );
      const debug = await svc.run(['--debug', 'webhooks', 'ls', '--tenant', 'acme-labs']);
      expect(debug.stderr).toContain(masked);
      expect(debug.stderr).not.toContain(url);
    } finally {
      await as(svc.sandbox(), LABS, 'DELETE', `/v1/webhooks/${made.id}`);
    }
  });
});

// review16e E4: a version, a name or a word after /hooks/ was masked as a key: export warned of a
// secret that was not there, and two webhooks (v2, v3) were named alike.
describe('a file holding webhook URLs with ordinary words after /hooks/', () => {
  it('svc export says nothing of a secret and masks nothing', async () => {
    const urls = [
      'https://ci.example.com/hooks/v2',
      'https://ci.example.com/hooks/v3',
      'https://erp.example.com/hooks/reconciliation-exceptions',
      'https://erp.example.com/git/hooks/post-receive-2',
    ];
    const made = [];
    for (const url of urls)
      made.push(
        await as(svc.sandbox(), LABS, 'POST', '/v1/webhooks', { url, event_types: ['exception.created'] }),
      );
    try {
      const out = join(dir, 'words.yaml');
      const ex = await svc.run(['export', '--tenant', 'acme-labs', '--only', 'webhooks', '-o', out]);
      expect(ex.code, ex.stderr).toBe(0);
      expect(ex.stderr).not.toContain('carries a secret');
      expect(ex.stderr).not.toContain('[redacted]');
    } finally {
      for (const w of made) await as(svc.sandbox(), LABS, 'DELETE', `/v1/webhooks/${w.id}`);
    }
  });

  it('svc export names two webhooks whose masked URLs read alike by their ids', async () => {
    const urls = [
      'https://mm.example.com/hooks/xjhwa5pq3ib8mrrp1c3z8ce8jh',
      'https://mm.example.com/hooks/4k2q8r1x7c9b3m5n6p0w2z4y8t',
    ];
    const made = [];
    for (const url of urls)
      made.push(
        await as(svc.sandbox(), LABS, 'POST', '/v1/webhooks', { url, event_types: ['exception.created'] }),
      );
    try {
      const out = join(dir, 'two-mm.yaml');
      const ex = await svc.run(['export', '--tenant', 'acme-labs', '--only', 'webhooks', '-o', out]);
      expect(ex.code, ex.stderr).toBe(0);
      for (const w of made)
        expect(ex.stderr).toContain(
          `warning: acme-labs: the URL of webhook ${w.id} (https://mm.example.com/hooks/[redacted]) carries a secret in it`,
        );
    } finally {
      for (const w of made) await as(svc.sandbox(), LABS, 'DELETE', `/v1/webhooks/${w.id}`);
    }
  });
});

// Session 19 (words19 #3): an OAuth client's redirect URI with a token in its query was written
// into the export whole, the file 0644 and nothing said; a webhook URL's was warned of and 0600.
describe('a file holding an OAuth client redirect URI with a secret in it', () => {
  const REDIRECT = 'https://app.example.com/cb?token=s3cr3tRedirectValue42&x=1';
  const MASKED = 'https://app.example.com/cb?token=[redacted]&x=1';
  it('svc export -o writes it 0600 and warns, the secret masked; plan of the file sees no change and says none of it', async () => {
    const made = await as(svc.sandbox(), APAC, 'POST', '/v1/oauth/clients', {
      name: 'redirect-token',
      redirect_uris: [REDIRECT, 'https://app.example.com/plain'],
      grant_types: ['authorization_code'],
      scopes: ['read:tenants'],
    });
    try {
      const out = join(dir, 'redirect.yaml');
      const ex = await svc.run(['export', '--tenant', 'acme-apac', '--only', 'oauth_clients', '-o', out]);
      expect(ex.code, ex.stderr).toBe(0);
      expect(mode(out)).toBe(0o600);
      expect(ex.stderr).toBe(
        `warning: acme-apac: the redirect URI ${MASKED} of OAuth client ${made.client_id} carries a secret in it, and the file holds it as the platform has it: it is written 0600 (only you can read it); keep it private\n` +
          `✓ exported 1 OAuth client of 1 tenant to ${out}\n`,
      );
      // To stdout (--json): the same warning, with the file's privacy the caller's to keep.
      const json = await svc.run(['export', '--tenant', 'acme-apac', '--only', 'oauth_clients', '--json']);
      expect(json.code, json.stderr).toBe(0);
      expect(json.stderr).toContain(
        `warning: acme-apac: the redirect URI ${MASKED} of OAuth client ${made.client_id} carries a secret in it, and the file holds it as the platform has it: keep the file private\n`,
      );

      // The file read back: no change, and no line of plan or apply shows the secret.
      const saved = join(dir, 'redirect.plan.json');
      const plan = await svc.run(['plan', '-f', out, '--out', saved]);
      expect(plan.code, plan.stderr).toBe(0);
      expect(plan.stderr).not.toContain('s3cr3tRedirectValue42');
      expect(plan.stdout).not.toContain('s3cr3tRedirectValue42');
      const apply = await svc.run(['apply', '-f', out, '--yes']);
      expect(apply.code, apply.stderr).toBe(0);
      expect(apply.stderr + apply.stdout).not.toContain('s3cr3tRedirectValue42');
    } finally {
      await as(svc.sandbox(), APAC, 'DELETE', `/v1/oauth/clients/${made.client_id}`);
    }
  });
});

describe('a plan creating an OAuth client whose redirect URI carries a secret', () => {
  const FILE = `version: 1\nblocks:\n  - tenants: acme-apac\n    oauth_clients:\n      - name: redirect-plan\n        redirect_uris: ["https://app.example.com/cb?token=s3cr3tPlanValue77", "https://app.example.com/plain"]\n        scopes: [read:tenants]\n`;
  const MASKED = 'https://app.example.com/cb?token=[redacted]';
  const summary = 'plan: 1 to create, 0 to update, 0 to delete in 1 of 1 tenant\n';
  it.each([
    [
      'a terminal',
      [],
      { tty: true, columns: 200 },
      'Acme APAC (acme-apac)\n  + OAuth client redirect-plan  (line 5)\n' +
        `      redirect_uris: ${MASKED}, https://app.example.com/plain\n      scopes: read:tenants\n`,
    ],
    [
      'a pipe',
      [],
      {},
      `acme-apac\toauth_client\tcreate\tredirect-plan\t\t5\tredirect_uris: ${MASKED}, https://app.example.com/plain; scopes: read:tenants\n`,
    ],
  ])('%s: the URI masked, the others whole', async (_what, flags, options, stdout) => {
    const file = writeFile(dir, 'redirect-plan.yaml', FILE);
    const plan = await svc.run(['plan', '-f', file, ...flags], options);
    expect([plan.code, plan.stdout, plan.stderr]).toEqual([10, stdout, summary]);
  });

  it('--ndjson: the row masks it; --out saves the whole plan 0600 and says what is secret in it', async () => {
    const file = writeFile(dir, 'redirect-plan.yaml', FILE);
    const rows = await svc.run(['plan', '-f', file, '--ndjson']);
    expect(rows.code, rows.stderr).toBe(10);
    expect(JSON.parse(rows.stdout.split('\n')[0]!).fields).toEqual([
      { field: 'name', to: 'redirect-plan' },
      { field: 'redirect_uris', to: [MASKED, 'https://app.example.com/plain'] },
      { field: 'scopes', to: ['read:tenants'] },
    ]);
    const saved = join(dir, 'redirect-create.plan.json');
    const plan = await svc.run(['plan', '-f', file, '--out', saved]);
    expect(plan.code, plan.stderr).toBe(10);
    expect(mode(saved)).toBe(0o600);
    expect(plan.stderr).toContain(
      `plan saved to ${saved} (0600: a redirect URI in it carries a secret; keep it private); `,
    );
    // The saved plan keeps the URI whole: apply creates the client as the file says, and says
    // none of the secret.
    expect(JSON.stringify(JSON.parse(readFileSync(saved, 'utf8')))).toContain('s3cr3tPlanValue77');
    const apply = await svc.run([
      'apply',
      saved,
      '--yes',
      '--ndjson',
      '--secret-dir',
      mkdtempSync(join(dir, 'secrets-')),
    ]);
    expect(apply.code, apply.stderr).toBe(0);
    expect(apply.stdout + apply.stderr).not.toContain('s3cr3tPlanValue77');
    const made = ndjson(apply.stdout)[0];
    expect([made.kind, made.status]).toEqual(['oauth_client', 'ok']);
    const live = await as(svc.sandbox(), APAC, 'GET', `/v1/oauth/clients/${made.id}`);
    expect(live.redirect_uris).toContain('https://app.example.com/cb?token=s3cr3tPlanValue77');
    await as(svc.sandbox(), APAC, 'DELETE', `/v1/oauth/clients/${made.id}`);
  });
});

/** A named pipe in the test's directory and a reader on it (test/helpers/fifo.ts). */
function pipeWithReader(name: string, owner?: number) {
  const fifo = join(dir, name);
  execFileSync('mkfifo', ['-m', '666', fifo]);
  if (owner !== undefined) chownSync(fifo, owner, owner);
  const reader = fifoReader(fifo);
  return { fifo, read: () => reader.read() };
}

const root = typeof process.getuid === 'function' && process.getuid() === 0;
const PLAN_FILE = `version: 1\nblocks:\n  - tenants: acme-apac\n    webhooks:\n      - url: "https://relay7.example.com/in?token=tok_live_7777eeee8888"\n        event_types: [exception.created]\n`;

// attack17 A5: `svc plan --out` / `svc export -o` onto another user's named pipe sent them the
// plan (webhook URL tokens) while svc said "saved … (0600 … keep it private)". A pipe or device
// another user owns is refused before anything is written; the user's own is written into, and
// svc no longer claims a 0600 it did not set.
describe('svc plan --out and svc export -o onto a named pipe', () => {
  it.skipIf(!root)('another user’s: refused, exit 2, nothing reaches it', async () => {
    const file = writeFile(dir, 'a5.yaml', PLAN_FILE);
    const theirs = pipeWithReader('their-plan.json', 65534);
    const plan = await svc.run(['plan', '-f', file, '--out', theirs.fifo]);
    expect(plan.code).toBe(2);
    expect(plan.stderr).toBe(
      `error: --out ${theirs.fifo} is a named pipe that belongs to another user (uid 65534), so svc will not write into it; give a path of your own (a file that is not there yet, in a directory only you can write); nothing was written\n`,
    );
    expect(theirs.read()).toBe('');

    const exported = pipeWithReader('their-export.yaml', 65534);
    const ex = await svc.run(['export', '--tenant', 'acme-apac', '--only', 'webhooks', '-o', exported.fifo]);
    expect([ex.code, ex.stderr]).toEqual([
      2,
      `error: --output ${exported.fifo} is a named pipe that belongs to another user (uid 65534), so svc will not write into it; give a path of your own (a file that is not there yet, in a directory only you can write); nothing was written\n`,
    ]);
    expect(exported.read()).toBe('');
  });

  it('the user’s own: written into, and the saved line does not claim 0600', async () => {
    const file = writeFile(dir, 'a5-own.yaml', PLAN_FILE);
    const mine = pipeWithReader('my-plan.json');
    const plan = await svc.run(['plan', '-f', file, '--out', mine.fifo]);
    expect(plan.code, plan.stderr).toBe(10);
    expect(plan.stderr).toContain(
      `plan saved to ${mine.fifo} (a webhook URL in it carries a secret; keep it private); `,
    );
    expect(plan.stderr).not.toContain('0600');
    expect(JSON.parse(mine.read()).svc_plan).toBe(1);

    const made = await as(svc.sandbox(), APAC, 'POST', '/v1/webhooks', {
      url: 'https://relay8.example.com/in?token=tok_live_8888ffff9999',
      event_types: ['exception.created'],
    });
    const exported = pipeWithReader('my-export.yaml');
    const ex = await svc.run(['export', '--tenant', 'acme-apac', '--only', 'webhooks', '-o', exported.fifo]);
    expect(ex.code, ex.stderr).toBe(0);
    expect(ex.stderr).toContain(
      `warning: acme-apac: the URL of webhook ${made.id} (https://relay8.example.com/in?token=[redacted]) carries a secret in it, and the file holds it as the platform has it: keep the file private\n`,
    );
    expect(ex.stderr).not.toContain('0600');
    expect(exported.read()).toContain('tok_live_8888ffff9999');
  });
});
