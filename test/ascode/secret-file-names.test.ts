import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { redactUrlText } from '../../src/api/secret-names.js';
import { SecretDir, safe, urlWithoutSecrets } from '../../src/ascode/secrets.js';
import { tempDir } from '../helpers/temp.js';

// s18 mask18 #3: svc apply --secret-dir names a new webhook's secret file after its URL, as the
// platform answers it, beside the row that shows the URL of the file masked. The file name must
// never carry a key the row masks, nor the row one the name drops: both read the path as the
// server does (escapes decoded, a trailing `.`/`..` and `;parameters` aside), and two webhooks
// whose names read alike get two files.
const KEY = 'Zx81kQm2Lp9VbN4cRt7Ws3Y';
const MM = 'xjhwa5pq3ib8mrrp1c3z8ce8jh';

describe('a webhook URL as a row shows it and as its secret file is named', () => {
  it.each([
    // [the access file's URL, the platform's answer, the key in it]
    [`https://hooks.example.com/in/${KEY}`, `https://hooks.example.com/in/${KEY}`, KEY],
    // A key the platform answers with an escape in it (decoded in the file's name to be read).
    [`https://hooks.example.com/in/${KEY}`, `https://hooks.example.com/in/Zx81kQm2Lp9%56bN4cRt7Ws3Y`, KEY],
    [`https://mm.example.com/hooks/${MM.slice(0, -1)}%68`, `https://mm.example.com/hooks/${MM}`, MM],
    [
      'https://h.example/x/whsec%5Fabcdefghijklmnopqrstuvwxyz',
      'https://h.example/x/whsec%5Fabcdefghijklmnopqrstuvwxyz',
      'abcdefghijklmnopqrstuvwxyz',
    ],
    [
      'https://h.example/x/eyJhbGciOiJIUzI1NiJ9%2EeyJzdWIiOiJ4In0%2Ec2lnbmF0dXJl',
      'https://h.example/x/eyJhbGciOiJIUzI1NiJ9%2EeyJzdWIiOiJ4In0%2Ec2lnbmF0dXJl',
      'c2lnbmF0dXJl',
    ],
    // A key before a trailing dot segment or with path parameters: the parser drops it, the text keeps it.
    [`https://hooks.example.com/in/${KEY}/..`, 'https://hooks.example.com/in/', KEY],
    [`https://hooks.example.com/in/${KEY};v=1`, `https://hooks.example.com/in/${KEY};v=1`, KEY],
    // A Slack host spelled with an escape: the host rule applies to the host the parser reads.
    [
      'https://hooks.slack%2Ecom/services/T0AAAAAAA/B0BBBBBBB/abcdefghijklmnopqrstuvwx',
      'https://hooks.slack.com/services/T0AAAAAAA/B0BBBBBBB/abcdefghijklmnopqrstuvwx',
      'abcdefghijklmnopqrstuvwx',
    ],
  ])('%s (answered %s)', (url, answered, key) => {
    // Its first 12 characters: `…8j%68` shows the key as surely as `…8jh`.
    const shown = key.slice(0, 12);
    expect(redactUrlText(url)).not.toContain(shown);
    expect(redactUrlText(answered)).not.toContain(shown);
    expect(safe(urlWithoutSecrets(answered))).not.toContain(shown);
  });
});

describe('SecretDir: two webhooks that read alike', () => {
  it('get two files when their masked URLs are equal (the id tells them apart)', async () => {
    const dir = SecretDir.prepare(join(tempDir('svc-secret-alike-'), 's'));
    const a = await dir.write(
      't',
      'webhook',
      'https://r.example/in?token=AAAA1111',
      'wh_a',
      'whsec_a_abcdefghijklmnop',
    );
    const b = await dir.write(
      't',
      'webhook',
      'https://r.example/in?token=BBBB2222',
      'wh_b',
      'whsec_b_abcdefghijklmnop',
    );
    expect([a, b]).toEqual([
      join(dir.path, 't.webhook.r.example_in.wh_a.secret'),
      join(dir.path, 't.webhook.r.example_in.wh_b.secret'),
    ]);
    expect([readFileSync(a, 'utf8'), readFileSync(b, 'utf8')]).toEqual([
      'whsec_a_abcdefghijklmnop',
      'whsec_b_abcdefghijklmnop',
    ]);
  });

  it("get two files when a platform's ids read alike once made safe (`wh/1`, `wh:1`, a long id cut)", async () => {
    const dir = SecretDir.prepare(join(tempDir('svc-secret-alike-'), 's'));
    const long = `wh_${'0'.repeat(70)}`;
    const paths = [
      await dir.write('t', 'webhook', 'https://r.example/in', 'wh/1', 'whsec_1_abcdefghijklmnop'),
      await dir.write('t', 'webhook', 'https://r.example/in', 'wh:1', 'whsec_2_abcdefghijklmnop'),
      await dir.write('t', 'webhook', 'https://r.example/in', `${long}a`, 'whsec_3_abcdefghijklmnop'),
      await dir.write('t', 'webhook', 'https://r.example/in', `${long}b`, 'whsec_4_abcdefghijklmnop'),
    ];
    expect(new Set(paths).size).toBe(4);
    expect(paths.map((p) => readFileSync(p, 'utf8'))).toEqual([
      'whsec_1_abcdefghijklmnop',
      'whsec_2_abcdefghijklmnop',
      'whsec_3_abcdefghijklmnop',
      'whsec_4_abcdefghijklmnop',
    ]);
  });
});
