import { type CutCase, describeCutSweep, secretCases } from '../helpers/cut-sweep.js';
import { useSandbox } from '../helpers/sandbox.js';
import { admin, createWebhook } from '../helpers/webhooks.js';

// Ctrl-C at every request of each single webhook verb (s15 sweep): a change made is said, a
// change not made is not, and a secret the platform made and answered reaches the user.
const sandbox = useSandbox();
let made = 0;
const fresh = () => createWebhook(sandbox(), `https://cut.example/${++made}`);
const hook = async (argv: string[]) => (await admin(sandbox(), 'GET', `/v1/webhooks/${argv[2]}`)).body;
const deliveries = async (argv: string[]) =>
  (await admin(sandbox(), 'GET', `/v1/webhooks/${argv[2]}/deliveries`)).body.items?.length;

const cases = (dir: string): CutCase[] => [
  ...secretCases(
    'webhooks create',
    dir,
    (n) => [
      'webhooks',
      'create',
      '--url',
      `https://cut.example/new-${++made}-${n}`,
      '--event-type',
      'webhook.test',
    ],
    {
      state: async (argv) =>
        (await admin(sandbox(), 'GET', '/v1/webhooks?limit=200')).body.items.filter(
          (w: { url: string }) => w.url === argv[3],
        ).length,
      secret: /whsec_/,
    },
  ),
  ...secretCases(
    'webhooks rotate-secret',
    dir,
    async () => ['webhooks', 'rotate-secret', (await fresh()).id],
    {
      state: hook,
      secret: /whsec_/,
    },
  ),
  {
    name: 'webhooks update',
    setup: async () => ['webhooks', 'update', (await fresh()).id, '--description', 'cut'],
    state: hook,
  },
  {
    name: 'webhooks disable',
    setup: async () => ['webhooks', 'update', (await fresh()).id, '--disable'],
    state: hook,
  },
  {
    name: 'webhooks enable',
    setup: async () => {
      const { id } = await fresh();
      await admin(sandbox(), 'PATCH', `/v1/webhooks/${id}`, { status: 'disabled' });
      return ['webhooks', 'update', id, '--enable'];
    },
    state: hook,
  },
  {
    name: 'webhooks delete',
    setup: async () => ['webhooks', 'delete', (await fresh()).id, '--yes'],
    state: hook,
  },
  {
    name: 'webhooks test',
    setup: async () => ['webhooks', 'test', (await fresh()).id, '--no-wait'],
    state: deliveries,
  },
];

describeCutSweep('webhooks', sandbox, (sweep) => cases(sweep.svc.dir));
