// Issue 14: `svc plan` over 50 tenants, 1,000 custom roles and 100,000 grants (wall time, peak
// RSS), and `svc apply` of 100,000 grants against `svc roles assign --file` in the same run.
// One sandbox in its own process. The planned state is seeded without 100,000 API calls (roles
// through the API, grants through the sandbox's POST /_sandbox/assignments); the plan itself
// reads everything through the API. The file is what `svc export` writes of that state.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { peakRss, SVC, startSandboxProcess } from './lib.mjs';

const TENANTS = 50;
const ROLES = 20; // per tenant: 1,000 in all
const USERS = 2_000; // grants per tenant: 100,000 in all
const CSV_ROWS = 10_000;
const EXPIRES = '2031-01-01T00:00:00Z';

const pad = (n) => String(n).padStart(6, '0');
const user = (i) => `usr_bulk_${pad(i)}`;
const n = (count) => count.toLocaleString('en');

async function api(sandbox, token, method, path, { tenant, body, org } = {}) {
  const response = await fetch(`${sandbox.url}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(tenant ? { 'x-tenant-id': tenant } : {}),
      ...(org ? { 'x-svc-org-id': org } : {}),
      ...(body ? { 'content-type': 'application/json' } : {}),
    },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${text}`);
  return JSON.parse(text);
}

/** Runs `work` over items, `limit` at a time. */
async function each(items, limit, work) {
  let next = 0;
  await Promise.all(
    Array.from({ length: limit }, async () => {
      while (next < items.length) await work(items[next++]);
    }),
  );
}

/** Bulk tenants bulk-000001 … by slug → id, listed as org_admin. */
async function bulkTenants(sandbox, count) {
  const ids = new Map();
  let cursor = null;
  do {
    const page = await api(
      sandbox,
      sandbox.admin_token,
      'GET',
      `/v1/tenants?limit=200${cursor ? `&cursor=${cursor}` : ''}`,
      { org: 'org_demo' },
    );
    for (const t of page.items) if (t.slug.startsWith('bulk-')) ids.set(t.slug, t.id);
    cursor = page.next_cursor;
  } while (cursor);
  return Array.from({ length: count }, (_, i) => ({
    slug: `bulk-${pad(i + 1)}`,
    id: ids.get(`bulk-${pad(i + 1)}`),
  }));
}

/** usr_admin becomes tenant_admin of each tenant; a token minted afterwards names them all. */
async function administer(sandbox, tenants) {
  for (const t of tenants) {
    await api(sandbox, sandbox.admin_token, 'POST', '/_sandbox/assignments', {
      body: { tenant_id: t.id, items: [{ user_id: 'usr_admin', role_id: 'tenant_admin' }] },
    });
  }
  const minted = await fetch(`${sandbox.url}/_sandbox/tokens`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ user_id: 'usr_admin', expires_in_seconds: 86_400 }),
  });
  return (await minted.json()).access_token;
}

const roleName = (r) => `desk-${String(r).padStart(2, '0')}`;
const permissions = (r) => [
  ['exception.read', 'rule.read', 'rule.write.fx', 'evidence_pack.read'][r % 4],
  'account.read',
];

/** The access file for `tenants`: 20 roles each, and 2,000 grants each (100 users per role alike). */
function accessFile(tenants) {
  const lines = ['version: 1', 'blocks:'];
  for (const t of tenants) {
    lines.push(`  - tenants: ${t.slug}`, '    roles:');
    for (let r = 0; r < ROLES; r++) {
      lines.push(`      - name: ${roleName(r)}`, `        permissions: [${permissions(r).join(', ')}]`);
    }
    lines.push('    grants:');
    for (let r = 0; r < ROLES; r++) {
      const users = [];
      for (let u = r + 1; u <= USERS; u += ROLES) users.push(user(u));
      lines.push(
        `      - role: ${roleName(r)}`,
        `        expires_at: "${EXPIRES}"`,
        '        justification: bench',
      );
      lines.push(`        users: [${users.join(', ')}]`);
    }
  }
  return `${lines.join('\n')}\n`;
}

export default async function ascode() {
  const sandbox = await startSandboxProcess(['--tenants', String(TENANTS * 2), '--users', String(USERS)]);
  const dir = mkdtempSync(join(tmpdir(), 'svc-bench-ascode-'));
  try {
    const all = await bulkTenants(sandbox, TENANTS * 2);
    const planned = all.slice(0, TENANTS);
    const applied = all.slice(TENANTS);
    const token = await administer(sandbox, all);
    const env = {
      ...process.env,
      SVC_BASE_URL: sandbox.url,
      SVC_TOKEN: token,
      SVC_TENANT: sandbox.tenant,
      SVC_CONFIG_DIR: join(dir, 'config'),
      SVC_STATE_DIR: join(dir, 'state'),
    };

    // The state to plan: 1,000 roles through the API, 100,000 grants through the seeding control.
    const roles = planned.flatMap((t) => Array.from({ length: ROLES }, (_, r) => ({ t, r })));
    const ids = new Map();
    await each(roles, 8, async ({ t, r }) => {
      const role = await api(sandbox, token, 'POST', '/v1/roles', {
        tenant: t.id,
        body: { name: roleName(r), permissions: permissions(r), idempotency_key: `bench-${t.slug}-${r}` },
      });
      ids.set(`${t.slug}/${r}`, role.id);
    });
    for (const t of planned) {
      const items = Array.from({ length: USERS }, (_, i) => ({
        user_id: user(i + 1),
        role_id: ids.get(`${t.slug}/${i % ROLES}`),
        expires_at: EXPIRES,
      }));
      await api(sandbox, token, 'POST', '/_sandbox/assignments', { body: { tenant_id: t.id, items } });
    }

    // The file: what svc export writes of that state (YAML; and the same as JSON).
    const tenantFlags = planned.flatMap((t) => ['--tenant', t.slug]);
    const yaml = join(dir, 'access.yaml');
    const json = join(dir, 'access.json');
    const exported = peakRss([...SVC, 'export', ...tenantFlags, '-o', yaml], env);
    peakRss([...SVC, 'export', ...tenantFlags, '-o', json], env);
    const grantsInFile = (readFileSync(yaml, 'utf8').match(/usr_bulk_/g) ?? []).length;

    const plan = peakRss([...SVC, 'plan', '-f', yaml], env);
    const planJson = peakRss([...SVC, 'plan', '-f', json], env);

    // Apply: the same shape into 50 empty tenants (1,000 roles, then 100,000 grants).
    const applyFile = join(dir, 'apply.yaml');
    writeFileSync(applyFile, accessFile(applied));
    const apply = peakRss([...SVC, 'apply', '-f', applyFile, '--yes', '--ndjson', '--concurrency', '8'], env);
    const after = spawnSync(SVC[0], [SVC[1], 'plan', '-f', applyFile], { env, encoding: 'utf8' });

    // The bulk grants of `svc roles assign --file` in the same run, for the rate.
    const csv = join(dir, 'grants.csv');
    const rows = Array.from(
      { length: CSV_ROWS },
      (_, i) =>
        `${user((i % USERS) + 1)},tenant_${['viewer', 'analyst', 'auditor', 'compliance', 'rule_author'][Math.floor(i / USERS)]},7d,bench`,
    );
    writeFileSync(csv, `user,role,expires_in,justification\n${rows.join('\n')}\n`);
    const assign = peakRss([...SVC, 'roles', 'assign', '--file', csv, '--ndjson'], env);

    const grants = TENANTS * USERS;
    const applyRate = grants / apply.seconds;
    const assignRate = CSV_ROWS / assign.seconds;
    const mb = (bytes) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;
    return {
      title: 'Access as code: svc plan and svc apply (issue 14)',
      what:
        `A sandbox in its own process with ${TENANTS} tenants of ${n(ROLES)} custom roles and ${n(USERS)} grants each (${n(TENANTS * ROLES)} roles, ${n(grants)} grants; roles made through the API, grants seeded with POST /_sandbox/assignments). ` +
        `\`svc export\` of the 50 tenants writes the file (${mb(statSync(yaml).size)} of YAML, grants alike written as one entry; ${mb(statSync(json).size)} as JSON); \`svc plan -f\` reads the whole state through the API (tenant-wide listings, 4 tenants at a time) and finds no changes. ` +
        `Then \`svc apply -f\` of the same shape into ${TENANTS} empty tenants (${n(TENANTS * ROLES)} roles, then ${n(grants)} grants; concurrency 8), against \`svc roles assign --file\` of ${n(CSV_ROWS)} rows in the same run. Wall time and peak RSS from GNU time.`,
      rows: [
        {
          metric: `svc plan, YAML file (${n(grantsInFile)} grants)`,
          value: `${plan.seconds.toFixed(2)} s, ${plan.mb.toFixed(1)} MB`,
          target: '≤ 15 s, ≤ 250 MB',
          pass: plan.seconds <= 15 && plan.mb <= 250 && grantsInFile === grants,
        },
        {
          metric: 'svc plan, the same as a JSON file',
          value: `${planJson.seconds.toFixed(2)} s, ${planJson.mb.toFixed(1)} MB`,
          target: 'informational',
        },
        {
          metric: 'svc export of the 50 tenants (YAML)',
          value: `${exported.seconds.toFixed(2)} s, ${exported.mb.toFixed(1)} MB`,
          target: 'informational',
        },
        {
          metric: `svc apply, ${n(TENANTS * ROLES)} roles + ${n(grants)} grants`,
          value: `${apply.seconds.toFixed(1)} s (${n(Math.round(applyRate))} grants/s), ${apply.mb.toFixed(1)} MB`,
          target: 'informational',
        },
        {
          metric: `svc roles assign --file, ${n(CSV_ROWS)} grants`,
          value: `${assign.seconds.toFixed(1)} s (${n(Math.round(assignRate))} grants/s)`,
          target: 'informational',
        },
        {
          metric: 'apply rate against roles assign --file',
          value: `${(applyRate / assignRate).toFixed(2)}×`,
          target: 'informational',
        },
        {
          metric: 'svc plan after the apply',
          value: after.status === 0 ? 'no changes (exit 0)' : `exit ${after.status}: ${after.stderr.trim()}`,
          target: 'no changes',
          pass: after.status === 0,
        },
      ],
    };
  } finally {
    await sandbox.stop();
  }
}
