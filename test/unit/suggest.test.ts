/** "Did you mean …": what the word is the beginning of ranks before what is merely close to it. */
import { describe, expect, it } from 'vitest';
import { beginningOf, closest, didYouMean, editDistance } from '../../src/api/suggest.js';

describe('closest', () => {
  it.each<[string, string[], string | undefined]>([
    // the one candidate the word begins: before one a few edits away
    ['event', ['tenant', 'event-type', 'url'], 'event-type'],
    ['--event', ['--tenant', '--event-type'], '--event-type'],
    ['role.assign', ['role.assigned', 'role.revoked'], 'role.assigned'],
    // a typo still finds its word
    ['tenat', ['tenant', 'org'], 'tenant'],
    ['asign', ['assign', 'revoke'], 'assign'],
    // the word itself, even when longer candidates begin with it
    ['ls', ['lsx', 'ls'], 'ls'],
    // several candidates begin with it: no guess from the prefix, edit distance decides
    ['role', ['role.assigned', 'role.revoked'], undefined],
    // one letter begins too much to be a guess, but not after the dashes of a long option
    ['e', ['event-type'], undefined],
    ['--r', ['--role', '--tier'], '--role'],
    ['-r', ['--role'], undefined],
    ['--', ['--role'], undefined],
    ['zzzz', ['tenant'], undefined],
  ])('%s among %j: %s', (word, candidates, expected) => {
    expect(closest(word, candidates)).toBe(expected);
  });

  it('a command and its aliases are one candidate, suggested by its name', () => {
    const webhooks = { name: 'webhooks', aliases: ['webhook'] };
    expect(closest('web', [webhooks, 'tenants'])).toBe('webhooks');
    expect(closest('webhok', [webhooks, 'tenants'])).toBe('webhooks');
    expect(closest('webhook', [webhooks])).toBe('webhook');
    expect(closest('t', [webhooks, { name: 'tenants', aliases: ['tenant'] }])).toBe(undefined);
    expect(closest('te', [{ name: 'tenants', aliases: [] }, 'tenant-keys'])).toBe(undefined);
  });

  it('beginningOf: the nearest tier with any beginning decides, and several there is no guess', () => {
    expect(beginningOf('--all', ['--all-tenants', '--output'], ['--allow-insecure-http'])).toBe(
      '--all-tenants',
    );
    expect(beginningOf('--al', ['--output'], ['--allow-insecure-http'])).toBe('--allow-insecure-http');
    expect(beginningOf('--d', ['--description', '--disabled'], ['--debug'])).toBe(undefined);
  });

  it('didYouMean says nothing for the word itself', () => {
    expect(didYouMean('tenant', ['tenant'])).toBe('');
    expect(didYouMean('event', ['event-type'])).toBe(' (did you mean event-type?)');
  });
});

describe('editDistance', () => {
  it.each<[string, string, number]>([
    ['get', 'get', 0],
    // a swap of two neighbouring letters is one typo
    ['gte', 'get', 1],
    ['psot', 'post', 1],
    ['tenat', 'tenant', 1],
    ['ab', 'ba', 1],
    // not two swaps' worth, nor a letter moved further
    ['abc', 'cba', 2],
    ['kitten', 'sitting', 3],
  ])('%s → %s: %i', (a, b, distance) => {
    expect(editDistance(a, b)).toBe(distance);
  });
});
