import { dirname, join } from 'node:path';
import type { Tour } from '../runner.js';

/** The tour's access file (test/ascode/schema.test.ts checks it against the published schema). */
export const ACCESS = `version: 1
manage: { roles: all }
blocks:
  - tenants: [acme-apac, acme-labs]
    roles:
      - name: fx-desk
        description: FX desk
        permissions: [exception.read, rule.write.fx]
    grants:
      - users: [usr_analyst, usr_lead]
        role: fx-desk
        expires_in: 30d
        justification: FX rota
`;

const TYPOS = ACCESS.replace('rule.write.fx', 'rule.writ.fx').replace('usr_lead', 'usr_laed');

/** Issue 14: access and integrations of several tenants as one reviewed file: export, plan, apply. */
export async function ascode(tour: Tour): Promise<void> {
  const root = dirname(tour.configDir);
  tour.chapter('Access as code: plan and apply');
  tour.say('An access file (YAML) declares roles, grants, webhooks and OAuth clients per tenant; svc export');
  tour.say('writes the live one. This file gives two tenants a custom role and grants it to two users.');
  tour.say('svc plan checks the whole file first — every problem at once, FILE:LINE, with a suggestion:');
  await tour.svc(['plan', '-f', '-'], { input: TYPOS, inputLabel: 'access.yaml', expect: 2 });
  tour.say('…then shows the difference per tenant, and exits 10 while changes are pending (for CI):');
  await tour.svc(['plan', '-f', '-'], { input: ACCESS, inputLabel: 'access.yaml', tty: true, expect: 10 });
  tour.say('svc apply makes it so (removals only with --prune); new secrets go to 0600 files, never stdout:');
  await tour.svc(['apply', '-f', '-', '--yes', '--secret-dir', join(root, 'secrets')], {
    input: ACCESS,
    inputLabel: 'access.yaml',
    tty: true,
  });
  await tour.svc(['plan', '-f', '-'], { input: ACCESS, inputLabel: 'access.yaml' });
}
