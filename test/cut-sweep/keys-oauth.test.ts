import { type CutCase, describeCutSweep, secretCases } from '../helpers/cut-sweep.js';
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

const cases = (dir: string): CutCase[] => [
  ...secretCases(
    'tenants api-keys create',
    dir,
    (n) => [
      'tenants',
      'api-keys',
      'create',
      '--kind',
      'service_role',
      '--name',
      `cut-${++made}-${n}`,
      '--justification',
      'the s15 Ctrl-C sweep',
    ],
    { state: keys, secret: /svc_sk_/ },
  ),
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
  ...secretCases(
    'oauth create',
    dir,
    (n) => [
      'oauth',
      'create',
      '--name',
      `cut-${++made}-${n}`,
      '--redirect-uri',
      'https://x.example/cb',
      '--scope',
      'read:exceptions',
    ],
    { state: clients, secret: /svc_cs_/ },
  ),
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
  ...secretCases(
    'oauth rotate-secret',
    dir,
    async () => ['oauth', 'rotate-secret', (await createClient(sandbox())).client_id, '--yes'],
    { state: client, secret: /svc_cs_/ },
  ),
];

describeCutSweep('api keys and OAuth clients', sandbox, (sweep) => cases(sweep.svc.dir));
