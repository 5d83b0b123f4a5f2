import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { OPERATIONS } from '../../src/api/operations.js';
import { SELF_CHANGES } from '../../src/api/self-assignment.js';
import { ROOT } from '../helpers/paths.js';

// What generated clients and mocks need from docs/openapi.json (issue 10), checked on the file.
const doc = JSON.parse(readFileSync(join(ROOT, 'docs', 'openapi.json'), 'utf8'));
const operations = Object.entries(doc.paths as Record<string, Record<string, any>>).flatMap(
  ([path, methods]) =>
    Object.entries(methods).map(([method, op]) => ({ path, method: method.toUpperCase(), op })),
);
const v1 = operations.filter((o) => o.path.startsWith('/v1/'));
const header = (op: any, name: string) =>
  (op.parameters ?? []).find((p: any) => p.in === 'header' && p.name.toLowerCase() === name.toLowerCase());

describe('the published contract', () => {
  it('names every operation, uniquely, in noun_verb snake case', () => {
    const ids = operations.map((o) => o.op.operationId);
    expect(ids.every((id) => typeof id === 'string' && /^[a-z][a-z0-9]*(_[a-z0-9]+)+$/.test(id))).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('has every /v1 operation of the authorization table, with its authorization', () => {
    for (const [id, rule] of Object.entries(OPERATIONS)) {
      const found = v1.find((o) => o.op.operationId === id);
      expect(found, id).toBeDefined();
      expect([found!.method, found!.path]).toEqual([rule.method, rule.path]);
      if (rule.access === 'authenticated')
        expect(found!.op['x-svc-authorization'].permission, id).toBe(rule.permission);
    }
    expect(v1.length).toBe(Object.keys(OPERATIONS).length);
  });

  it('declares X-Tenant-Id where the operation takes one, required where it needs one', () => {
    for (const { op } of v1) {
      const rule = OPERATIONS[op.operationId]!;
      const param = header(op, 'X-Tenant-Id');
      if (rule.tenant === 'none') expect(param, op.operationId).toBeUndefined();
      else expect(param?.required ?? false, op.operationId).toBe(rule.tenant === 'header');
    }
    expect(header(doc.paths['/v1/tenants'].get, 'X-SVC-Org-Id')).toBeDefined();
  });

  it('declares the response headers, and 429/503 with Retry-After on every /v1 operation', () => {
    for (const { method, op } of v1) {
      for (const [status, response] of Object.entries(op.responses as Record<string, any>)) {
        expect(response.headers?.['X-Request-Id'], `${op.operationId} ${status}`).toBeDefined();
        // Replays are announced wherever a POST takes an idempotency key (OAuth's own endpoints do
        // not), and on every DELETE, PATCH and PUT, which take an optional Idempotency-Key header.
        const takesKey = JSON.stringify(op.requestBody ?? {}).includes('idempotency_key');
        const takesHeader = (op.parameters ?? []).some(
          (p: { in: string; name: string }) => p.in === 'header' && p.name === 'Idempotency-Key',
        );
        expect(takesHeader, `${op.operationId} Idempotency-Key`).toBe(
          ['DELETE', 'PATCH', 'PUT'].includes(method),
        );
        const replayable = status.startsWith('2') && (method === 'POST' ? takesKey : takesHeader);
        expect(Boolean(response.headers?.['Idempotent-Replayed']), `${op.operationId} ${status}`).toBe(
          replayable,
        );
      }
      for (const status of ['429', '503'])
        expect(op.responses[status]?.headers?.['Retry-After']).toBeDefined();
    }
  });

  it('lists on every operation the statuses the shared hooks answer: 400, 500, a default, and 413/415 where it takes a body', () => {
    const missing: string[] = [];
    for (const { path, method, op } of operations) {
      const want = ['400', '500', 'default', ...(op.requestBody ? ['413', '415'] : [])];
      for (const status of want) if (!op.responses?.[status]) missing.push(`${method} ${path} ${status}`);
    }
    expect(missing).toEqual([]);
  });

  // conform16 #6: POST /oauth/device had none, so a validating proxy refused the consent form.
  it('declares a request body on every POST, PUT and PATCH', () => {
    const bodiless = operations.filter(
      (o) => ['POST', 'PUT', 'PATCH'].includes(o.method) && !o.op.requestBody,
    );
    expect(bodiless.map((o) => `${o.method} ${o.path}`)).toEqual([]);
  });

  // conform16 #3: the catalogue named grants and expiry changes only, not widening a role one holds.
  it('says in x-error-codes every change self_assignment refuses', () => {
    const meaning: string = doc['x-error-codes'].self_assignment.meaning;
    for (const [, theirs] of Object.values(SELF_CHANGES)) expect(meaning).toContain(theirs);
  });

  it('ends the example of every list with next_cursor null, so a mock does not page forever', () => {
    const schemas = doc.components.schemas as Record<string, any>;
    const cursors: any[] = [];
    const walk = (node: unknown): void => {
      if (Array.isArray(node)) node.forEach(walk);
      else if (node && typeof node === 'object') {
        const cursor = (node as any).properties?.next_cursor;
        if (cursor) cursors.push(cursor);
        Object.values(node).forEach(walk);
      }
    };
    walk(doc);
    expect(cursors.length).toBeGreaterThan(10);
    for (const cursor of cursors) expect(cursor.examples, JSON.stringify(cursor)).toEqual([null]);
    expect(schemas.WebhookDelivery.properties.attempt_count.minimum).toBe(0);
    expect(schemas.WebhookDelivery.properties.max_attempts.minimum).toBe(1);
  });

  it('publishes the scope → operation table and the roles’ permissions', () => {
    expect(doc['x-oauth-scopes']['read:reconciliations'].operations).toEqual([
      'me_get',
      'reconciliations_list',
      'reconciliations_get',
    ]);
    // tenant_admin holds every tenant permission; tenant.read is the organisation's (escalate13 F2).
    expect(doc['x-role-permissions'].tenant_admin).toEqual(
      Object.keys(doc['x-permission-catalog'])
        .filter((p) => p !== 'tenant.read')
        .sort(),
    );
    expect(doc['x-role-permissions'].org_admin).toEqual(['tenant.read']);
  });
});
