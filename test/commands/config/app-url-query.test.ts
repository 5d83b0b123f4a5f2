// review25c L3: a profile's app_url with a harmless query blocked every API command (`tenants ls`
// exit 2, "svc would drop it from every request"), though no API request uses app_url. It is
// refused where it is used, the browser login, with words true of it.
import { describe, expect, it } from 'vitest';
import { ConfigStore } from '../../../src/config/store.js';
import { useSandboxContext } from '../../helpers/sandbox.js';

const svc = useSandboxContext();
const APP = 'http://127.0.0.1:9/app?x=1';

describe("a profile's app_url with a query", () => {
  it('API commands work; the browser login and oauth authorize refuse it in its own words, exit 2', async () => {
    const dir = svc.env().SVC_CONFIG_DIR as string;
    await new ConfigStore(dir).setProfileValues('default', { base_url: svc.sandbox().url, app_url: APP });
    const ls = await svc.run(['tenants', 'ls', '--json']);
    expect([ls.code, ls.stderr]).toEqual([0, '']);
    const line = `error: app_url in profile "default" http://127.0.0.1:9/app?x=[redacted] has a query, and a browser app URL takes none: svc would drop it from the login page it opens there; drop the query: \`svc config set app_url http://127.0.0.1:9/app\``;
    for (const argv of [
      ['login', '--client-id', 'cli_x', '--no-browser'],
      ['oauth', 'authorize', '--client-id', 'cli_x', '--public', '--no-browser'],
    ]) {
      const r = await svc.run(argv, { env: { SVC_TOKEN: '', SVC_BASE_URL: '' } });
      expect([r.code, r.stdout, r.stderr.split(';').slice(0, 2).join(';')], argv.join(' ')).toEqual([
        2,
        '',
        line,
      ]);
    }
  });
});
