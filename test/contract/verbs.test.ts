import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { RECORD_SURFACES } from '../../src/api/operations.js';
import { fullProgram } from '../../src/cli.js';
import { ROOT } from '../helpers/svc.js';

// Every operation of the published document has a verb (issue 13): this table says which, and
// the test fails when an operation has none, when a verb named here does not exist, or when the
// table names an operation the document no longer has.
const doc = JSON.parse(readFileSync(join(ROOT, 'docs', 'openapi.json'), 'utf8'));

const recordVerbs = Object.fromEntries(
  Object.entries(RECORD_SURFACES).flatMap(([surface, rules]) =>
    (rules.write === null
      ? (['list', 'get'] as const)
      : (['list', 'get', 'create', 'update', 'delete'] as const)
    ).map((op) => [`${surface}_${op}`, ['records', op === 'list' ? 'ls' : op]]),
  ),
);

/** operationId → the verb that calls it (the words after `svc`). */
const VERBS: Record<string, string[]> = {
  me_get: ['me'],
  users_list: ['users', 'ls'],
  tenants_list: ['tenants', 'ls'],
  api_keys_create: ['tenants', 'api-keys', 'create'],
  api_keys_list: ['tenants', 'api-keys', 'ls'],
  api_keys_revoke: ['tenants', 'api-keys', 'revoke'],
  oauth_clients_create: ['oauth', 'create'],
  oauth_clients_list: ['oauth', 'ls'],
  oauth_clients_get: ['oauth', 'get'],
  oauth_clients_update: ['oauth', 'update'],
  oauth_clients_delete: ['oauth', 'delete'],
  oauth_clients_rotate_secret: ['oauth', 'rotate-secret'],
  oauth_tokens_issue: ['oauth', 'token'],
  oauth_tokens_revoke: ['logout'],
  // The browser drives these two; `svc login` and `svc oauth authorize` open it and take the redirect.
  oauth_authorization_start: ['login'],
  oauth_authorization_decide: ['oauth', 'authorize'],
  oauth_metadata_get: ['logout'],
  // Device authorization (RFC 8628): `svc login --device` asks for a code; the person enters it
  // in a browser (the verification page), anywhere.
  oauth_device_authorization: ['login'],
  oauth_device_verification_start: ['login'],
  oauth_device_verification_decide: ['login'],
  roles_list: ['roles', 'ls'],
  roles_create: ['roles', 'create'],
  roles_get: ['roles', 'get'],
  roles_update: ['roles', 'update'],
  roles_delete: ['roles', 'delete'],
  permissions_list: ['roles', 'permissions'],
  role_assignments_list: ['roles', 'holders'],
  user_roles_list: ['roles', 'assignments'],
  user_roles_assign: ['roles', 'assign'],
  user_roles_update: ['roles', 'assign'], // --extend
  user_roles_revoke: ['roles', 'revoke'],
  webhooks_list: ['webhooks', 'ls'],
  webhooks_create: ['webhooks', 'create'],
  webhooks_get: ['webhooks', 'get'],
  webhooks_update: ['webhooks', 'update'],
  webhooks_delete: ['webhooks', 'delete'],
  webhooks_rotate_secret: ['webhooks', 'rotate-secret'],
  // `listen --webhook` rotates to learn a secret for its session and undoes the rotation on exit.
  webhooks_restore_secret: ['webhooks', 'listen'],
  webhooks_test: ['webhooks', 'test'],
  webhook_deliveries_list: ['webhooks', 'deliveries', 'ls'],
  webhook_deliveries_get: ['webhooks', 'deliveries', 'get'],
  webhook_deliveries_get_payload: ['webhooks', 'deliveries', 'get'], // --payload
  webhook_deliveries_replay: ['webhooks', 'replay'],
  webhook_dlq_list: ['webhooks', 'dlq', 'ls'],
  webhook_dlq_get: ['webhooks', 'dlq', 'get'],
  webhook_dlq_discard: ['webhooks', 'dlq', 'discard'],
  ...recordVerbs,
  audit_trail_list: ['audit', 'ls'],
  audit_trail_get: ['audit', 'get'],
  // Sandbox controls people use: `svc sandbox …`.
  sandbox_openapi_get: ['sandbox', 'openapi'],
  sandbox_webhook_events_create: ['sandbox', 'trigger'],
  sandbox_target_faults_get: ['sandbox', 'target'],
  sandbox_target_faults_update: ['sandbox', 'target'],
};

/**
 * Sandbox controls that exist for tests, benchmarks and `svc sandbox start` itself, not for a
 * verb: each stays reachable with `svc api METHOD /_sandbox/…`. Only /_sandbox operations may be
 * listed here.
 */
const CONTROLS_WITHOUT_VERB: Record<string, string> = {
  sandbox_health_get: 'svc sandbox start waits on it',
  sandbox_assignments_seed: 'benchmarks and tests seed 100,000 grants at once',
  sandbox_users_list: 'the consent page lists the users',
  sandbox_tokens_create: 'svc sandbox start mints the admin token of its profile',
  sandbox_api_keys_create: 'tests mint keys without a user',
  sandbox_faults_get: 'svc sandbox start --fail-rate/--latency/… set them',
  sandbox_faults_update: 'svc sandbox start --fail-rate/--latency/… set them',
  sandbox_clock_get: 'tests read the sandbox clock',
  sandbox_clock_advance: 'tests move the sandbox clock',
  sandbox_security_events_list: 'tests read the security events log',
  sandbox_stats_get: 'benchmarks read request counters',
  sandbox_oauth_stats_get: 'tests count token requests',
  sandbox_dead_letters_create: 'benchmarks fill a dead-letter queue without sending',
  sandbox_engine_get: 'svc sandbox start --webhook-* set the engine',
  sandbox_engine_update: 'svc sandbox start --webhook-* set the engine',
  sandbox_deliveries_settle: 'tests wait for deliveries to settle',
  sandbox_webhook_secrets_get: 'tests read the seeded webhooks’ secrets',
  sandbox_audit_trail_list: 'every tenant’s trail at once; `svc audit ls` reads one tenant’s',
  sandbox_assignments_count: 'bulk tests count assignments',
};

const operations = Object.entries(doc.paths as Record<string, Record<string, any>>).flatMap(
  ([path, methods]) =>
    Object.entries(methods).map(([method, op]) => ({
      path,
      method: method.toUpperCase(),
      id: op.operationId as string,
    })),
);

function findCommand(program: Command, words: string[]): Command | undefined {
  let command: Command | undefined = program;
  for (const word of words) {
    command = command?.commands.find((c) => c.name() === word || c.aliases().includes(word));
  }
  return command;
}

describe('every operation of the document has a verb', () => {
  it('maps each operationId to an existing verb, or (sandbox controls only) says why it has none', async () => {
    const program = await fullProgram();
    const missing = operations.filter((o) => !VERBS[o.id] && !CONTROLS_WITHOUT_VERB[o.id]);
    expect(missing.map((o) => `${o.id} (${o.method} ${o.path})`)).toEqual([]);
    const noSuchVerb = Object.entries(VERBS).filter(([, words]) => !findCommand(program, words));
    expect(noSuchVerb).toEqual([]);
    const known = new Set(operations.map((o) => o.id));
    expect(
      [...Object.keys(VERBS), ...Object.keys(CONTROLS_WITHOUT_VERB)].filter((id) => !known.has(id)),
    ).toEqual([]);
    for (const id of Object.keys(CONTROLS_WITHOUT_VERB)) {
      expect(operations.find((o) => o.id === id)?.path, id).toMatch(/^\/_sandbox\//);
    }
    expect(operations.filter((o) => o.path.startsWith('/v1/')).every((o) => VERBS[o.id])).toBe(true);
  });
});
