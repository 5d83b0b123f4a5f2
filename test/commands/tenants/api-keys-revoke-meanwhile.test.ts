import { describe, expect, it } from 'vitest';
import { refusal, useLossyProxy } from '../../helpers/lossy-proxy.js';
import { adminGrant, call, newApiKey, useSandboxContext } from '../../helpers/sandbox.js';

// Two admins revoke one key at once (attack28b F6): svc's DELETE is held by the sandbox while the
// other admin (usr_lead, a tenant_admin) revokes the key, then let go. The platform answers a
// revoke of a revoked key as a revocation; its revoked_by names the other admin, so svc says
// already_revoked, not revoked. The order is forced by the hold, not timing.
const svc = useSandboxContext({ users: 3 });
/** The sandbox's X-Request-Id, kept on a reshaped answer: the audit trail's entry names it. */
const requestIdOf = (headers: Record<string, string | string[] | undefined>) => ({
  'x-request-id': String(headers['x-request-id']),
});
/** Another server's form of revoked_by: the caller's id as `USER:ID` (review28a M1). */
const typed = useLossyProxy(svc.sandbox, {
  lose: () => false,
  reshape: (method, _path, status, text, headers) => {
    if (method !== 'DELETE' || !text.startsWith('{')) return undefined;
    const body = JSON.parse(text);
    return {
      status,
      body: JSON.stringify({ ...body, revoked_by: `USER:${String(body.revoked_by).toUpperCase()}` }),
      headers: requestIdOf(headers),
    };
  },
});
/** A server whose /v1/me cannot be read once the DELETE is sent (review28a L4). */
let sent = false;
const blind = useLossyProxy(svc.sandbox, {
  lose: () => false,
  before: (method) => {
    if (method === 'DELETE') sent = true;
  },
  refuse: (method, path) =>
    sent && method === 'GET' && path.startsWith('/v1/me') ? refusal(403, 'forbidden') : undefined,
});

/**
 * A server whose answer to the DELETE says the key was revoked an hour before, by usr_lead, and
 * whose /v1/me cannot be read once the DELETE is sent: the answer's own time tells (review28d L1).
 */
let early = false;
const earlier = useLossyProxy(svc.sandbox, {
  lose: () => false,
  before: (method) => {
    if (method === 'DELETE') early = true;
  },
  refuse: (method, path) =>
    early && method === 'GET' && path.startsWith('/v1/me') ? refusal(403, 'forbidden') : undefined,
  reshape: (method, _path, status, text) => {
    if (method !== 'DELETE' || !text.startsWith('{')) return undefined;
    const hourBefore = new Date(Date.now() - 3_600_000).toISOString().replace(/\.\d+Z$/, 'Z');
    return {
      status,
      body: JSON.stringify({ ...JSON.parse(text), revoked_by: 'usr_lead', revoked_at: hourBefore }),
    };
  },
});

/**
 * A server whose objects' times run two minutes behind its Date header (a gateway's clock): the
 * answer to svc's own revoke says revoked_at two minutes before the attempt started; /v1/me is
 * readable and names the caller, so it decides (review28e L2: the time decided first, already_revoked).
 */
const behind = useLossyProxy(svc.sandbox, {
  lose: () => false,
  reshape: (method, _path, status, text, headers) => {
    if (method !== 'DELETE' || !text.startsWith('{')) return undefined;
    const twoMinutes = new Date(Date.now() - 120_000).toISOString().replace(/\.\d+Z$/, 'Z');
    return {
      status,
      body: JSON.stringify({ ...JSON.parse(text), revoked_at: twoMinutes }),
      headers: requestIdOf(headers),
    };
  },
});

/** A server whose audit trail cannot be read (a key manager without audit_trail.read). */
const noTrail = useLossyProxy(svc.sandbox, {
  lose: () => false,
  refuse: (method, path) =>
    method === 'GET' && path.startsWith('/v1/audit_trail') ? refusal(403, 'forbidden') : undefined,
});

describe('svc tenants api-keys revoke of a key another admin revokes meanwhile', () => {
  it('says already_revoked, naming who', async () => {
    const tenant = svc.env().SVC_TENANT!;
    await adminGrant(svc.sandbox(), tenant, 'usr_lead', 'tenant_admin');
    const lead = svc.sandbox().issueToken('usr_lead', { expiresInSeconds: 86_400 }).token;
    const key = await newApiKey(svc.sandbox(), 'meanwhile');
    const held = svc
      .sandbox()
      .faults.hold((method, url) => method === 'DELETE' && url.endsWith(`/api-keys/${key.id}`));
    try {
      const revoking = svc.run(['tenants', 'api-keys', 'revoke', tenant, key.id, '--yes', '--json']);
      await held.arrived;
      const other = await call(svc.sandbox(), 'DELETE', `/v1/tenants/${tenant}/api-keys/${key.id}`, {
        token: lead,
        tenant,
      });
      expect(other.status, other.text).toBe(200);
      held.release();
      const r = await revoking;
      expect(r.code, r.stderr).toBe(0);
      expect(JSON.parse(r.stdout)).toMatchObject({
        outcome: 'already_revoked',
        api_key: { id: key.id, revoked_by: 'usr_lead' },
      });
    } finally {
      held.release();
    }
  });

  // One user revoking one key from two sessions (session 28's leftover): the other session is the
  // same user, so revoked_by names the caller, and the key was revoked after this attempt started.
  // The audit trail's entry names the request that revoked it: not this DELETE's X-Request-Id, so
  // already_revoked, never the other session's revoke claimed as this command's.
  it('the same user revoking it from another session meanwhile: already_revoked, not revoked', async () => {
    const tenant = svc.env().SVC_TENANT!;
    const key = await newApiKey(svc.sandbox(), 'twice');
    const held = svc
      .sandbox()
      .faults.hold((method, url) => method === 'DELETE' && url.endsWith(`/api-keys/${key.id}`));
    try {
      const revoking = svc.run(['tenants', 'api-keys', 'revoke', tenant, key.id, '--yes', '--json']);
      await held.arrived;
      const other = await call(svc.sandbox(), 'DELETE', `/v1/tenants/${tenant}/api-keys/${key.id}`, {
        token: svc.sandbox().adminToken,
        tenant,
      });
      expect(other.status, other.text).toBe(200);
      held.release();
      const r = await revoking;
      expect(r.code, r.stderr).toBe(0);
      expect(JSON.parse(r.stdout)).toMatchObject({ outcome: 'already_revoked', api_key: { id: key.id } });
    } finally {
      held.release();
    }
  });

  it('the same user revoking it from another session meanwhile, said in text: not ✓ revoked', async () => {
    const tenant = svc.env().SVC_TENANT!;
    const key = await newApiKey(svc.sandbox(), 'twice-text');
    const held = svc
      .sandbox()
      .faults.hold((method, url) => method === 'DELETE' && url.endsWith(`/api-keys/${key.id}`));
    try {
      const revoking = svc.run(['tenants', 'api-keys', 'revoke', tenant, key.id, '--yes']);
      await held.arrived;
      const other = await call(svc.sandbox(), 'DELETE', `/v1/tenants/${tenant}/api-keys/${key.id}`, {
        token: svc.sandbox().adminToken,
        tenant,
      });
      expect(other.status, other.text).toBe(200);
      held.release();
      const r = await revoking;
      expect([r.code, r.stdout], r.stderr).toEqual([0, '']);
      expect(r.stderr).toMatch(
        new RegExp(
          `^nothing changed: API key ${key.id} \\(twice-text\\) of .+ was revoked already, at \\S+ by usr_admin: you, in request \\S+, not this command's\n$`,
        ),
      );
    } finally {
      held.release();
    }
  });

  it('its own revocation, the audit trail unreadable: revoked_by_either, words that claim neither', async () => {
    const tenant = svc.env().SVC_TENANT!;
    const key = await newApiKey(svc.sandbox(), 'no-trail');
    const r = await svc.run(['tenants', 'api-keys', 'revoke', tenant, key.id, '--yes'], {
      env: { SVC_BASE_URL: noTrail().url },
    });
    expect([r.code, r.stdout], r.stderr).toEqual([0, '']);
    expect(r.stderr).toMatch(
      new RegExp(
        `^API key ${key.id} \\(no-trail\\) of .+ is revoked \\(by usr_admin, you: by this command or by another request of yours meanwhile: svc could not tell\\)\n$`,
      ),
    );
    const other = await newApiKey(svc.sandbox(), 'no-trail-json');
    const j = await svc.run(['tenants', 'api-keys', 'revoke', tenant, other.id, '--yes', '--json'], {
      env: { SVC_BASE_URL: noTrail().url },
    });
    expect(j.code, j.stderr).toBe(0);
    expect(JSON.parse(j.stdout)).toMatchObject({ outcome: 'revoked_by_either', api_key: { id: other.id } });
  });

  it('its own revocation is revoked', async () => {
    const tenant = svc.env().SVC_TENANT!;
    const key = await newApiKey(svc.sandbox(), 'alone');
    const r = await svc.run(['tenants', 'api-keys', 'revoke', tenant, key.id, '--yes', '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ outcome: 'revoked', api_key: { id: key.id } });
  });

  it('its own revocation, the answer naming the caller in another form (USER:ID), is revoked', async () => {
    const tenant = svc.env().SVC_TENANT!;
    const key = await newApiKey(svc.sandbox(), 'typed');
    const r = await svc.run(['tenants', 'api-keys', 'revoke', tenant, key.id, '--yes', '--json'], {
      env: { SVC_BASE_URL: typed().url },
    });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ outcome: 'revoked', api_key: { id: key.id } });
  });

  // review28d L1: the key is revoked, which is what was asked: exit 0, words that claim neither.
  it('who the caller is unread: revoked, by the one named or by this command, exit 0', async () => {
    const tenant = svc.env().SVC_TENANT!;
    const key = await newApiKey(svc.sandbox(), 'blind');
    sent = false;
    const r = await svc.run(['tenants', 'api-keys', 'revoke', tenant, key.id, '--yes'], {
      env: { SVC_BASE_URL: blind().url },
    });
    expect([r.code, r.stdout], r.stderr).toEqual([0, '']);
    expect(r.stderr).toMatch(
      new RegExp(
        `^API key ${key.id} \\(blind\\) of .+ is revoked \\(by \\S+, or by this command: svc could not tell\\)\n$`,
      ),
    );
    sent = false;
    const other = await newApiKey(svc.sandbox(), 'blind-json');
    const j = await svc.run(['tenants', 'api-keys', 'revoke', tenant, other.id, '--yes', '--json'], {
      env: { SVC_BASE_URL: blind().url },
    });
    expect(j.code, j.stderr).toBe(0);
    expect(JSON.parse(j.stdout)).toMatchObject({ outcome: 'revoked_by_either', api_key: { id: other.id } });
  });

  it('its own revocation on a server whose object times run behind its Date: revoked, /v1/me decides', async () => {
    const tenant = svc.env().SVC_TENANT!;
    const key = await newApiKey(svc.sandbox(), 'behind');
    const r = await svc.run(['tenants', 'api-keys', 'revoke', tenant, key.id, '--yes', '--json'], {
      env: { SVC_BASE_URL: behind().url },
    });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ outcome: 'revoked', api_key: { id: key.id } });
  });

  it('/v1/me unread, an answer revoked clearly before the attempt started: already_revoked', async () => {
    const tenant = svc.env().SVC_TENANT!;
    const key = await newApiKey(svc.sandbox(), 'earlier');
    early = false;
    const r = await svc.run(['tenants', 'api-keys', 'revoke', tenant, key.id, '--yes', '--json'], {
      env: { SVC_BASE_URL: earlier().url },
    });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({
      outcome: 'already_revoked',
      api_key: { id: key.id, revoked_by: 'usr_lead' },
    });
  });
});
