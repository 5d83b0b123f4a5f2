import { type CutCase, describeCutSweep } from '../helpers/cut-sweep.js';
import { useSandbox } from '../helpers/sandbox.js';
import { admin, deadLetteredQueue, everyDlqEntry } from '../helpers/webhooks.js';

// Ctrl-C at every request of a replay of one delivery and a discard of one dead-letter entry
// (s15 sweep): a replay or discard made is said, one not made is not.
const sandbox = useSandbox();
const queued = async () => {
  const { webhook, entries } = await deadLetteredQueue(sandbox(), { status: 204 }, 1, { max_attempts: 1 });
  return { webhook, entry: entries[0]! };
};
const state = async (argv: string[]) => {
  const webhook = argv.find((a) => a.startsWith('wh_'))!;
  return {
    dlq: await everyDlqEntry(sandbox(), webhook),
    deliveries: (await admin(sandbox(), 'GET', `/v1/webhooks/${webhook}/deliveries`)).body.items.length,
  };
};

const cases: CutCase[] = [
  {
    name: 'webhooks replay (one delivery, --no-wait)',
    setup: async () => {
      const { webhook, entry } = await queued();
      return ['webhooks', 'replay', webhook, entry.delivery_id, '--no-wait'];
    },
    state,
    finishesInFlight: true,
  },
  {
    name: 'webhooks replay (one delivery, --wait)',
    setup: async () => {
      const { webhook, entry } = await queued();
      return ['webhooks', 'replay', webhook, entry.delivery_id, '--wait'];
    },
    state: async (argv) => ({ ...(await state(argv)), deliveries: undefined }),
    finishesInFlight: true,
  },
  {
    name: 'webhooks dlq discard (one entry)',
    setup: async () => {
      const { webhook, entry } = await queued();
      return ['webhooks', 'dlq', 'discard', webhook, entry.id, '--yes'];
    },
    state,
    finishesInFlight: true,
  },
];

describeCutSweep('replay and discard', sandbox, () => cases);
