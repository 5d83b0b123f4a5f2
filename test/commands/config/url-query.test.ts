// attack25b M2: a base or app URL with a query (`?token=…`) was saved and printed whole by
// `config get` and set's messages, while every request dropped the query without a word.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigStore } from '../../../src/config/store.js';
import { runInProcess } from '../../helpers/context.js';
import { useTwoProfiles } from '../../helpers/profiles.js';

const env = useTwoProfiles();
const configDir = () => env().SVC_CONFIG_DIR as string;
const SECRET = 'Zq8HxkVw3mPq9RtYb7LcNe2WfUa5JdKs';
const config = () => readFileSync(join(configDir(), 'config.json'), 'utf8');
const HINT = 'credentials go in the credential store: `svc login`, or SVC_TOKEN';

describe('a base or app URL with a query or a fragment is refused, its values not shown', () => {
  it.each<[string, string[], Record<string, string>, string]>([
    [
      'config set base_url',
      ['config', 'set', 'base_url', `https://api.example.com/?token=${SECRET}`],
      {},
      `error: base_url in profile "default" https://api.example.com/?token=[redacted] has a query, and a base URL takes none: svc would drop it from every request; drop the query: \`svc config set base_url https://api.example.com\`; ${HINT}\n`,
    ],
    [
      'config set app_url, a value under a name no rule knows',
      ['config', 'set', 'app_url', `http://127.0.0.1:4010/app?accesskey=${SECRET}&x`],
      {},
      `error: app_url in profile "default" http://127.0.0.1:4010/app?accesskey=[redacted]&[redacted] has a query, and a browser app URL takes none: svc would drop it from the login page it opens there; drop the query: \`svc config set app_url http://127.0.0.1:4010/app\`; ${HINT}\n`,
    ],
    [
      '--base-url',
      ['--base-url', `https://api.example.com/v2/?k=${SECRET}`, 'me'],
      {},
      `error: --base-url https://api.example.com/v2/?k=[redacted] has a query, and a base URL takes none: svc would drop it from every request; drop the query: use https://api.example.com/v2; ${HINT}\n`,
    ],
    [
      'SVC_BASE_URL with a fragment',
      ['me'],
      { SVC_BASE_URL: `https://api.example.com#${SECRET}` },
      `error: SVC_BASE_URL https://api.example.com#[redacted] has a fragment, and a base URL takes none: svc would drop it from every request; drop the fragment: use https://api.example.com; ${HINT}\n`,
    ],
    [
      'config set base_url with an empty query',
      ['config', 'set', 'base_url', 'https://api.example.com/?'],
      {},
      `error: base_url in profile "default" https://api.example.com/? has a query, and a base URL takes none: svc would drop it from every request; drop the query: \`svc config set base_url https://api.example.com\`; ${HINT}\n`,
    ],
  ])('%s: exit 2, nothing saved', async (_what, argv, extra, stderr) => {
    const before = config();
    expect(await runInProcess(argv, { ...env(), ...extra })).toEqual({ code: 2, stdout: '', stderr });
    expect(config()).toBe(before);
  });

  describe('a profile an older svc saved with one', () => {
    const saved = async (url: string) =>
      new ConfigStore(configDir()).setProfileValues('default', { base_url: url });

    it('is refused where it would be used (a request, config get), with the command that mends it', async () => {
      await saved(`https://api.example.com/?token=${SECRET}`);
      const line = `error: base_url in profile "default" https://api.example.com/?token=[redacted] has a query, and a base URL takes none: svc would drop it from every request; drop the query: \`svc config set base_url https://api.example.com\`; ${HINT}\n`;
      // app_url unset: it is the base URL, mended by setting base_url.
      for (const argv of [['me'], ['config', 'get', 'base_url'], ['config', 'get', 'app_url']]) {
        expect(await runInProcess(argv, env()), argv.join(' ')).toEqual({
          code: 2,
          stdout: '',
          stderr: line,
        });
      }
      const json = await runInProcess(['config', 'get', 'base_url', '--json'], env());
      expect([json.code, json.stdout, json.stderr.includes(SECRET)]).toEqual([2, '', false]);
      expect(await runInProcess(['config', 'set', 'base_url', 'https://api.example.com'], env())).toEqual({
        code: 0,
        stdout: '',
        stderr: '✓ set base_url for profile "default"\n',
      });
      expect(config()).not.toContain(SECRET);
    });

    // review25c H2: auth status printed the saved URL whole (text and --json) beside the refusal.
    it('auth status shows it with every query value masked, text and --json', async () => {
      await saved(`https://api.example.com/?token=${SECRET}&w=plain1`);
      for (const argv of [
        ['auth', 'status'],
        ['auth', 'status', '--json'],
      ]) {
        const r = await runInProcess(argv, env());
        expect([
          r.code,
          r.stdout.includes(SECRET),
          r.stderr.includes(SECRET),
          r.stdout.includes('plain1'),
        ]).toEqual([2, false, false, false]);
        expect(r.stdout).toMatch(
          argv.length === 2
            ? /^base url\thttps:\/\/api\.example\.com\/\?token=\[redacted\]&w=\[redacted\]$/m
            : /"base_url": "https:\/\/api\.example\.com\/\?token=\[redacted\]&w=\[redacted\]"/,
        );
      }
    });

    it('the app_url a new base_url takes away is named masked (it was printed whole)', async () => {
      await new ConfigStore(configDir()).setProfileValues('staging', {
        base_url: `http://127.0.0.1:4010/?token=${SECRET}`,
        app_url: `http://127.0.0.1:4010/?token=${SECRET}`,
      });
      const r = await runInProcess(
        ['-p', 'staging', 'config', 'set', 'base_url', 'https://staging.example'],
        env(),
      );
      expect(r).toEqual({
        code: 0,
        stdout: '',
        stderr:
          '✓ set base_url for profile "staging"\n' +
          'removed app_url (http://127.0.0.1:4010/?token=[redacted], the old base URL): the browser app is now found at the base URL, https://staging.example\n',
      });
    });
  });
});
