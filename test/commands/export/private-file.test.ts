import { execFileSync, spawn } from 'node:child_process';
import { chownSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { APAC, as, LABS, writeFile } from '../../helpers/ascode.js';
import { useSandboxContext } from '../../helpers/sandbox.js';

// A file svc knows holds a secret — an export or a saved plan with a webhook URL's `?token=` —
// is written 0600, and svc says so (review s13, ascode F7: it was written with the umask, 0644,
// while the warning said "keep the file private").
const svc = useSandboxContext({ users: 5 }, { tenant: false });
const dir = mkdtempSync(join(tmpdir(), 'svc-private-file-'));
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

/** A named pipe in the test's directory and a reader on it (`cat`): what came through, once it ends. */
function pipeWithReader(name: string, owner?: number) {
  const fifo = join(dir, name);
  execFileSync('mkfifo', ['-m', '666', fifo]);
  if (owner !== undefined) chownSync(fifo, owner, owner);
  const reader = spawn('cat', [fifo]);
  let read = '';
  reader.stdout.on('data', (d) => {
    read += d;
  });
  const ended = new Promise<void>((resolve) => reader.on('close', () => resolve()));
  return {
    fifo,
    /** What the reader got; a reader still waiting (nothing was written) is stopped. */
    async read(): Promise<string> {
      const timer = setTimeout(() => reader.kill(), 1_000);
      await ended;
      clearTimeout(timer);
      return read;
    },
  };
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
    expect(await theirs.read()).toBe('');

    const exported = pipeWithReader('their-export.yaml', 65534);
    const ex = await svc.run(['export', '--tenant', 'acme-apac', '--only', 'webhooks', '-o', exported.fifo]);
    expect([ex.code, ex.stderr]).toEqual([
      2,
      `error: --output ${exported.fifo} is a named pipe that belongs to another user (uid 65534), so svc will not write into it; give a path of your own (a file that is not there yet, in a directory only you can write); nothing was written\n`,
    ]);
    expect(await exported.read()).toBe('');
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
    expect(JSON.parse(await mine.read()).svc_plan).toBe(1);

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
    expect(await exported.read()).toContain('tok_live_8888ffff9999');
  });
});
