import { describe, expect, it } from 'vitest';
import { proxySettings, route } from '../../src/http/proxy.js';

const via = (url: string, env: Record<string, string>) => route(new URL(url), proxySettings(env)).proxy?.href;

describe('which requests go through a proxy', () => {
  const both = { HTTP_PROXY: 'http://plain.proxy:3128', HTTPS_PROXY: 'http://tls.proxy:3128' };

  it.each([
    'http://127.0.0.1:4010/v1',
    'http://127.9.9.9/v1',
    'http://localhost:4010/v1',
    'http://LOCALHOST/v1',
    'http://[::1]:4010/v1',
    'https://127.0.0.1:4443/v1',
  ])('never proxies the loopback target %s, with no NO_PROXY', (url) => {
    expect(via(url, both)).toBeUndefined();
  });

  it('sends http through HTTP_PROXY and https through HTTPS_PROXY, else through HTTP_PROXY', () => {
    expect(via('http://api.example.com/v1', both)).toBe('http://plain.proxy:3128/');
    expect(via('https://api.example.com/v1', both)).toBe('http://tls.proxy:3128/');
    expect(via('https://api.example.com/v1', { http_proxy: 'plain.proxy:3128' })).toBe(
      'http://plain.proxy:3128/',
    );
    expect(via('http://api.example.com/v1', { HTTPS_PROXY: 'http://tls.proxy:3128' })).toBeUndefined();
    expect(via('http://api.example.com/v1', { HTTP_PROXY: '' })).toBeUndefined();
  });

  it.each([
    ['example.com', 'https://api.example.com/', undefined],
    ['.example.com', 'https://api.example.com/', undefined],
    ['*.example.com', 'https://example.com/', undefined],
    ['api.example.com:8443', 'https://api.example.com:8443/', undefined],
    ['api.example.com:8443', 'https://api.example.com/', 'http://tls.proxy:3128/'],
    ['other.com, ample.com', 'https://api.example.com/', 'http://tls.proxy:3128/'],
    ['*', 'https://api.example.com/', undefined],
    // An address range, as curl and Go read it (attack24a F8): it matches a target given as an address.
    ['192.0.2.0/24', 'https://192.0.2.2:9999/', undefined],
    ['other.com,10.0.0.0/8', 'https://10.20.30.40/', undefined],
    ['192.0.2.0/24', 'https://192.0.3.2/', 'http://tls.proxy:3128/'],
    ['192.0.2.0/24', 'https://api.example.com/', 'http://tls.proxy:3128/'],
    ['fd00::/8', 'https://[fd12::1]:8443/', undefined],
    ['[fd00::]/8', 'https://[fd12::1]/', undefined],
    ['fd00::/8', 'https://[fe80::1]/', 'http://tls.proxy:3128/'],
    ['192.0.2.0/33', 'https://192.0.2.2/', 'http://tls.proxy:3128/'],
    // A bare IPv6 address, as curl asks for one (review24c L5): not `fd00:` port 1.
    ['fd00::1', 'https://[fd00::1]/', undefined],
    ['fd00:0:0::1', 'https://[fd00::1]/', undefined],
    ['other.com,fd00::1', 'https://[fd00::2]/', 'http://tls.proxy:3128/'],
    ['[fd00::1]:8443', 'https://[fd00::1]:8443/', undefined],
    ['[fd00::1]:8443', 'https://[fd00::1]/', 'http://tls.proxy:3128/'],
    ['10.1.2.3:8443', 'https://10.1.2.3/', 'http://tls.proxy:3128/'],
    // `*` means every host only alone, as curl reads it; in a list it names no host.
    [' * ', 'https://api.example.com/', undefined],
    ['*,10.0.0.0/8', 'https://api.example.com/', 'http://tls.proxy:3128/'],
    ['*,10.0.0.0/8', 'https://10.1.2.3/', undefined],
  ])('NO_PROXY=%s: %s goes through %s', (noProxy, url, expected) => {
    expect(via(url, { ...both, no_proxy: noProxy })).toBe(expected);
  });

  it('says, for --debug, why a request goes directly when a proxy is set', () => {
    const settings = proxySettings({ ...both, NO_PROXY: 'example.com' });
    expect(route(new URL('http://[::1]:1/'), settings).note).toBe(
      'direct, not through the proxy: [::1] is loopback',
    );
    expect(route(new URL('https://api.example.com/'), settings).note).toBe(
      'direct, not through the proxy: NO_PROXY names api.example.com',
    );
    expect(route(new URL('https://api.other.com/'), settings).note).toBe(
      'through the proxy http://tls.proxy:3128',
    );
    expect(route(new URL('https://api.other.com/'), proxySettings({})).note).toBeUndefined();
  });

  it.each(['ftp://proxy.example.com', 'http://', '::'])(
    'refuses HTTP_PROXY=%s naming the variable',
    (value) => {
      expect(() => proxySettings({ HTTP_PROXY: value })).toThrow('HTTP_PROXY is not a proxy URL');
    },
  );
});
