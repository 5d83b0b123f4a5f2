import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type CutCase, describeCutSweep } from '../helpers/cut-sweep.js';
import { createClient } from '../helpers/oauth.js';
import { useSandbox } from '../helpers/sandbox.js';
import { admin, TENANT } from '../helpers/webhooks.js';

// Ctrl-C at every request of the single verbs that make or end credentials (s15 sweep): a key's
// or a client's secret the platform made and answered reaches the user.
const sandbox = useSandbox();
let made = 0;
const keys = async () => (await admin(sandbox(), 'GET', `/v1/tenants/${TENANT}/api-keys`)).body;
const clients = async () => (await admin(sandbox(), 'GET', '/v1/oauth/clients')).body;
const client = async (argv: string[]) => (await admin(sandbox(), 'GET', `/v1/oauth/clients/${argv[2]}`)).body;

const file = (argv: string[]) => {
  const path = argv[argv.indexOf('--secret-file') + 1]!;
  return existsSync(path) ? readFileSync(path, 'utf8') : '';
};

const cases = (dir: string): CutCase[] => [
  {
    name: 'tenants api-keys create --secret-file',
    setup: async () => [
      'tenants',
      'api-keys',
      'create',
      '--kind',
      'service_role',
      '--name',
      `cut-${++made}`,
      '--justification',
      'the s15 Ctrl-C sweep',
      '--secret-file',
      join(dir, `key-${made}`),
    ],
    state: keys,
    secret: /svc_sk_/,
    written: file,
  },
  {
    name: 'oauth create --secret-file',
    setup: async () => [
      'oauth',
      'create',
      '--name',
      `cut-${++made}`,
      '--redirect-uri',
      'https://x.example/cb',
      '--scope',
      'read:exceptions',
      '--secret-file',
      join(dir, `client-${made}`),
    ],
    state: clients,
    secret: /svc_cs_/,
    written: file,
  },
  {
    name: 'tenants api-keys create --show-secret',
    setup: async () => [
      'tenants',
      'api-keys',
      'create',
      '--kind',
      'service_role',
      '--name',
      `cut-${++made}`,
      '--justification',
      'the s15 Ctrl-C sweep',
      '--show-secret',
    ],
    state: keys,
    secret: /svc_sk_/,
  },
  {
    name: 'tenants api-keys revoke',
    setup: async () => {
      const key = await admin(sandbox(), 'POST', `/v1/tenants/${TENANT}/api-keys`, {
        kind: 'service_role',
        name: `r-${++made}`,
        justification: 'the s15 Ctrl-C sweep',
      });
      return ['tenants', 'api-keys', 'revoke', TENANT, key.body.id, '--yes'];
    },
    state: keys,
  },
  {
    name: 'oauth create',
    setup: async () => [
      'oauth',
      'create',
      '--name',
      `cut-${++made}`,
      '--redirect-uri',
      'https://x.example/cb',
      '--scope',
      'read:exceptions',
      '--show-secret',
    ],
    state: clients,
    secret: /svc_cs_/,
  },
  {
    name: 'oauth update',
    setup: async () => [
      'oauth',
      'update',
      (await createClient(sandbox())).client_id,
      '--name',
      `renamed-${++made}`,
    ],
    state: client,
  },
  {
    name: 'oauth delete',
    setup: async () => ['oauth', 'delete', (await createClient(sandbox())).client_id, '--yes'],
    state: client,
  },
  {
    name: 'oauth rotate-secret',
    setup: async () => [
      'oauth',
      'rotate-secret',
      (await createClient(sandbox())).client_id,
      '--yes',
      '--show-secret',
    ],
    state: client,
    secret: /svc_cs_/,
  },
];

describeCutSweep('api keys and OAuth clients', sandbox, (sweep) => cases(sweep.svc.dir));
