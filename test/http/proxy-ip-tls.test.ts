/**
 * An https:// proxy named by its IP address: undici gives the proxy's TLS connection the address
 * as its server name, which Node answers with a DEP0123 DeprecationWarning on stderr (docs12 7).
 * A server name is a DNS name (RFC 6066): svc gives none for an address, and stderr is svc's own.
 * Spawned: Node prints a deprecation once per process, so only a process of its own shows it.
 */
import { describe, expect, it } from 'vitest';
import { svc, tempConfigDir } from '../helpers/svc.js';

const config = tempConfigDir();

describe('an https:// proxy at an IP address', () => {
  it.each(['https://127.0.0.1:1', 'https://[::1]:1'])(
    '%s: only svc’s line on stderr, no Node warning',
    async (proxy) => {
      const r = await svc(['--base-url', 'https://api.example.com', 'me'], {
        // One attempt: the warning comes with the first TLS dial, and the retries' real backoff
        // (a process has no clock to inject) only made the test wait.
        env: {
          SVC_CONFIG_DIR: config,
          SVC_TOKEN: 'dummy_token_value_123456',
          HTTPS_PROXY: proxy,
          SVC_MAX_RETRIES: '0',
        },
      });
      expect(r.stderr).not.toContain('DeprecationWarning');
      expect(r.stderr).toMatch(
        new RegExp(
          `^error: cannot reach the proxy ${proxy.replace(/[[\]]/g, '\\$&')} \\(HTTPS_PROXY\\) for https://api\\.example\\.com: connect ECONNREFUSED [^\\n]*\\n$`,
        ),
      );
      expect(r.code).toBe(1);
    },
  );
});
