import { describe, expect, it } from 'vitest';
import { isLoopbackHost, parseHttpUrl } from '../../src/api/loopback.js';
import { usableEndpoint } from '../../src/auth/metadata.js';
import { checkCredentialTransport } from '../../src/http/origin.js';

// One meaning of "loopback" for the credential transport rule, OAuth metadata endpoints and the
// sandbox's redirect URIs.
describe('loopback hosts', () => {
  it.each([
    ['localhost', true],
    ['LocalHost', true],
    ['127.0.0.1', true],
    ['127.8.9.10', true],
    ['[::1]', true],
    // RFC 6761 says these resolve to loopback, but Node asks the system resolver, which may not.
    ['app.localhost', false],
    ['localhost.example.com', false],
    ['128.0.0.1', false],
    ['[::2]', false],
  ])('%s → %s', (host, loopback) => {
    expect(isLoopbackHost(host)).toBe(loopback);
    const url = new URL(`http://${host}/x`);
    if (loopback) expect(() => checkCredentialTransport(url, false)).not.toThrow();
    else
      expect(() => checkCredentialTransport(url, false)).toThrow(
        /refusing to send a credential over plain HTTP/,
      );
    expect(usableEndpoint(url.toString())).toBe(loopback ? url.toString() : undefined);
  });

  it.each([
    ['https://a.example/x', 'https://a.example/x'],
    ['http://127.0.0.1:4010', 'http://127.0.0.1:4010/'],
    ['ftp://a.example/', undefined],
    ['/relative', undefined],
    ['not a url', undefined],
  ])('parseHttpUrl(%j) → %j', (value, href) => {
    expect(parseHttpUrl(value)?.href).toBe(href);
  });
});
