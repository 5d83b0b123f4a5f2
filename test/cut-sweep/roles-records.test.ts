import { ACME, bulkUser, customRole } from '../helpers/bulk.js';
import { type CutCase, describeCutSweep } from '../helpers/cut-sweep.js';
import { call, useSandbox } from '../helpers/sandbox.js';
import { admin } from '../helpers/webhooks.js';

// Ctrl-C at every request of the single role and record verbs (s15 sweep), with and without
// --extend: a change made is said, a change not made is not.
const sandbox = useSandbox({ users: 40 });
let made = 0;
const role = async (argv: string[]) => (await admin(sandbox(), 'GET', `/v1/roles/${argv[2]}`)).body;
const held = async (argv: string[]) =>
  (await call(sandbox(), 'GET', `/v1/users/${argv[2]}/roles`, { token: sandbox().adminToken, tenant: ACME }))
    .body;
const grant = async (user: string, roleId: string, expires_at: string | null) => {
  const r = await admin(sandbox(), 'POST', `/v1/users/${user}/roles`, {
    role_id: roleId,
    ...(expires_at ? { expires_at } : {}),
    justification: 'setup',
  });
  if (r.status >= 300) throw new Error(`grant: ${r.status} ${r.text}`);
};
const later = (hours: number) =>
  new Date(Date.now() + hours * 3600_000).toISOString().replace(/\.\d+Z$/, 'Z');
/** `roles assign USER tenant_viewer --extend` on a grant held permanently (null) or for `hours`. */
const extend = (name: string, hours: number | null, expiresIn: string, extra: string[] = []): CutCase => ({
  name,
  setup: async () => {
    const user = bulkUser(++made);
    await grant(user, 'tenant_viewer', hours === null ? null : later(hours));
    return [
      'roles',
      'assign',
      user,
      'tenant_viewer',
      '--expires-in',
      expiresIn,
      '--justification',
      'cut',
      '--extend',
      ...extra,
    ];
  },
  state: held,
});
const record = async (argv: string[]) =>
  (
    await admin(
      sandbox(),
      'GET',
      `/v1/reconciliations${argv[3] && !argv[3].startsWith('-') ? `/${argv[3]}` : ''}`,
    )
  ).body;

const cases: CutCase[] = [
  {
    name: 'roles create',
    setup: async () => [
      'roles',
      'create',
      '--name',
      `cut-create-${++made}`,
      '--permission',
      'exception.read',
    ],
    state: async () => (await admin(sandbox(), 'GET', '/v1/roles')).body,
  },
  {
    name: 'roles update',
    setup: async () => [
      'roles',
      'update',
      await customRole(sandbox(), `cut-upd-${++made}`),
      '--description',
      'cut',
    ],
    state: role,
  },
  {
    name: 'roles delete',
    setup: async () => ['roles', 'delete', await customRole(sandbox(), `cut-del-${++made}`), '--yes'],
    state: role,
  },
  {
    name: 'roles assign',
    setup: async () => [
      'roles',
      'assign',
      bulkUser(++made),
      'tenant_viewer',
      '--expires-in',
      '8h',
      '--justification',
      'cut',
    ],
    state: held,
  },
  extend('roles assign --extend (permanent to 2h)', null, '2h'),
  extend('roles assign --extend --json (permanent to 2h)', null, '2h', ['--json']),
  extend('roles assign --extend (1h to 8h)', 1, '8h'),
  {
    name: 'roles revoke',
    setup: async () => {
      const user = bulkUser(++made);
      await grant(user, 'tenant_viewer', later(8));
      return ['roles', 'revoke', user, 'tenant_viewer', '--yes'];
    },
    state: held,
  },
  {
    name: 'records create',
    setup: async () => [
      'records',
      'create',
      'reconciliations',
      '--data',
      JSON.stringify({ name: `cut-${++made}` }),
    ],
    state: record,
  },
  {
    name: 'records update',
    setup: async () => {
      const r = await admin(sandbox(), 'POST', '/v1/reconciliations', { name: `cut-${++made}` });
      return ['records', 'update', 'reconciliations', r.body.id, '--data', '{"name":"changed"}'];
    },
    state: record,
  },
];

describeCutSweep('roles and records', sandbox, () => cases);
