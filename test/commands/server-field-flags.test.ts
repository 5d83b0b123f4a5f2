/**
 * A server's 400 names the request field (`event_types.0`, `redirect_uris.0`, `scopes.0`); the user
 * typed a flag (attack26a F8). Where 400s are rendered, the field is said as the verb's flag
 * (declared beside the verb: src/output/field-flags.ts) with the value sent; the rest stays in the
 * server's words, in the text line and in --json's message alike.
 */

import { describe, expect, it } from 'vitest';
import { EVENT_TYPES, OAUTH_SCOPES } from '../../src/api/constants.js';
import { useSandboxContext } from '../helpers/sandbox.js';
import { admin } from '../helpers/webhooks.js';

const svc = useSandboxContext();
const KINDS = EVENT_TYPES.join(', ');
const tail = (stderr: string) => stderr.replace(/ \(HTTP 400, invalid_request, request [^)]+\)\n$/, '');

describe('a 400 naming a request field names the flag', () => {
  it('webhooks create and update: --event-type and the kind sent', async () => {
    const created = await svc.run([
      ...['webhooks', 'create', '--url', 'https://h.example/', '--event-type', 'exception.created'],
      ...['--event-type', 'nope.event', '--show-secret'],
    ]);
    expect([created.code, created.stdout, tail(created.stderr)]).toEqual([
      2,
      '',
      `error: --event-type "nope.event" must be equal to one of the allowed values: ${KINDS}`,
    ]);
    const made = await admin(svc.sandbox(), 'POST', '/v1/webhooks', {
      url: 'https://h.example/a',
      event_types: ['exception.created'],
    });
    const updated = await svc.run(['webhooks', 'update', made.body.id, '--event-type', 'nope.event']);
    expect([updated.code, tail(updated.stderr)]).toEqual([
      2,
      `error: --event-type "nope.event" must be equal to one of the allowed values: ${KINDS}`,
    ]);
    const json = await svc.run(['webhooks', 'update', made.body.id, '--event-type', 'nope.event', '--json']);
    expect(JSON.parse(json.stderr).error.message).toBe(
      `--event-type "nope.event" must be equal to one of the allowed values: ${KINDS}`,
    );
  });

  it('oauth create: --redirect-uri (the server quotes the value itself) and --scope', async () => {
    const uri = await svc.run([
      ...['oauth', 'create', '--name', 'x', '--redirect-uri', 'http://evil.example/cb'],
      ...['--scope', 'read:exceptions', '--show-secret'],
    ]);
    expect([uri.code, tail(uri.stderr)]).toEqual([
      2,
      expect.stringMatching(
        /^error: --redirect-uri "http:\/\/evil\.example\/cb" may use http only on a loopback host/,
      ),
    ]);
    const scope = await svc.run([
      ...['oauth', 'create', '--name', 'x', '--redirect-uri', 'https://x.example/cb'],
      ...['--scope', 'read:exceptions,read:reconciliations', '--show-secret'],
    ]);
    expect([scope.code, tail(scope.stderr)]).toEqual([
      2,
      `error: --scope "read:exceptions,read:reconciliations" must be equal to one of the allowed values: ${Object.keys(OAUTH_SCOPES).join(', ')}`,
    ]);
  });
});
