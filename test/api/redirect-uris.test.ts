/**
 * The redirect URI rules of src/api/redirect-uris.ts, one table per rule (attack28a L2, L3): what
 * may be registered (no host mixing scripts), and how a request's redirect_uri matches a
 * registered one (as the browser goes: canonical scheme and host, IDN as punycode; any port only
 * for a loopback IP literal, RFC 8252 §7.3; `localhost` exactly, port included, §8.3).
 */
import { describe, expect, it } from 'vitest';
import { redirectUriMatches, redirectUriProblem } from '../../src/api/redirect-uris.js';

describe('redirectUriMatches', () => {
  it.each([
    ['https://app.example.com/cb', 'https://app.example.com/cb'],
    // Canonical scheme and host: the browser goes to the same place for both spellings.
    ['HTTPS://App.Example.COM/cb', 'https://app.example.com/cb'],
    ['https://app.example.com:443/cb', 'https://app.example.com/cb'],
    ['https://app.example.com/cb', 'HTTPS://APP.EXAMPLE.COM:443/cb'],
    // IDN: the browser goes to the punycode host.
    ['https://bücher.example/cb', 'https://xn--bcher-kva.example/cb'],
    ['https://xn--bcher-kva.example/cb', 'https://bücher.example/cb'],
    // Loopback IP literals: any port, registered with one or not (RFC 8252 §7.3).
    ['http://127.0.0.1/callback', 'http://127.0.0.1:49152/callback'],
    ['http://127.0.0.1:8080/callback', 'http://127.0.0.1:1/callback'],
    ['http://[::1]/callback', 'http://[::1]:65535/callback'],
    // localhost: exactly, port included.
    ['http://localhost:8080/cb', 'http://localhost:8080/cb'],
    ['http://localhost/cb', 'http://localhost:80/cb'],
  ])('%s matches %s', (registered, given) => {
    expect(redirectUriMatches(registered, given)).toBe(true);
  });

  it.each([
    ['https://app.example.com/cb', 'https://app.example.com/CB'],
    ['https://app.example.com/cb', 'https://app.example.com/cb/'],
    ['https://app.example.com/cb', 'https://app.example.com/cb?x=1'],
    ['https://app.example.com/cb', 'https://app.example.com:8443/cb'],
    ['https://app.example.com/cb', 'https://app.example.com/cb#x'],
    ['https://app.example.com/cb', 'https://u@app.example.com/cb'],
    ['https://app.example.com/cb', 'http://app.example.com/cb'],
    ['https://xn--exmple-4nf.com/cb', 'https://example.com/cb'],
    // localhost is not a loopback IP literal: its port is compared (RFC 8252 §8.3).
    ['http://localhost:8080/cb', 'http://localhost:1/cb'],
    ['http://localhost/cb', 'http://localhost:9999/cb'],
    ['http://127.0.0.1/callback', 'http://localhost:9999/callback'],
    ['http://127.0.0.1/callback', 'http://[::1]:9999/callback'],
    ['http://127.0.0.1/callback', 'http://127.0.0.1:9999/callback?x=1'],
  ])('%s does not match %s', (registered, given) => {
    expect(redirectUriMatches(registered, given)).toBe(false);
  });
});

describe('redirectUriProblem', () => {
  const mixed =
    'has a host that mixes scripts (Latin and Cyrillic in "exаmple", xn--exmple-4nf): it can pass for another host; register a host whose every label is in one script';
  it.each([
    ['https://exаmple.com/cb', mixed],
    ['https://xn--exmple-4nf.com/cb', mixed],
    ['https://bücher.example/cb', undefined],
    ['https://例え.jp/cb', undefined],
    ['https://app.example.com/cb', undefined],
    ['http://localhost:8080/cb', undefined],
    ['http://127.0.0.1/callback', undefined],
  ])('%s: %s', (uri, problem) => {
    expect(redirectUriProblem(uri)).toBe(problem);
  });

  // review28c F7: every letter has its own script (was: all outside a list of 15 were one).
  it.each([
    ['https://கక.example/cb', 'Tamil and Telugu'],
    ['https://കத.example/cb', 'Malayalam and Tamil'],
    ['https://ကກ.example/cb', 'Myanmar and Lao'],
    ['https://aக.example/cb', 'Latin and Tamil'],
  ])('%s mixes %s', (uri, scripts) => {
    expect(redirectUriProblem(uri)).toMatch(new RegExp(`^has a host that mixes scripts \\(${scripts} in `));
  });

  it.each([
    'https://தமிழ்.example/cb',
    'https://ಕನ್ನಡ.example/cb',
    'https://日本語とカタカナ.example/cb',
    'https://한국어abc.example/cb',
    'https://ελληνικά.example/cb',
  ])('%s is in one script (or a usual CJK mix): registrable', (uri) => {
    expect(redirectUriProblem(uri)).toBeUndefined();
  });
});
