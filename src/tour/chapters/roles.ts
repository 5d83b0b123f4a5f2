import { dirname, join } from 'node:path';
import type { Tour } from '../runner.js';

const GRANTS =
  'user,role,expires_in,justification\n' +
  'usr_viewer,tenant_analyst,7d,"Q3 close, extra hands"\n' +
  'usr_lead,fx-desk,never,FX desk lead\n' +
  'usr_compliance,tenant_auditor,30m,SOX walkthrough\n';

const BAD =
  'user,role,expires_in,justification\nusr_viewer,tenant_analist,7d,x\nusr_lead,fx-desk,2 weeks,y\n';

/** Issue 4: custom roles, a grant with expiry, a bulk file (checked, planned, run, re-run), a revoke. */
export async function roles(tour: Tour): Promise<void> {
  // Journals of bulk runs go next to the tour's settings, never to your state directory.
  const env = { SVC_STATE_DIR: join(dirname(tour.configDir), 'state') };
  tour.chapter('Roles and role grants');
  tour.say('Built-in roles cannot be changed; custom roles hold permissions from the platform catalog.');
  await tour.svc([
    'roles',
    'create',
    '--name',
    'fx-desk',
    '--permission',
    'exception.read',
    '--permission',
    'exception.resolve.fx_difference',
  ]);
  await tour.svc(['roles', 'ls', '--custom'], { tty: true });
  await tour.svc(['roles', 'delete', 'tenant_admin'], { expect: 4 });

  tour.say('Just-in-time access: a grant that expires by itself, with its audit trail id.');
  await tour.svc(
    [
      'roles',
      'assign',
      'usr_analyst',
      'tenant_admin',
      '--expires-in',
      '8h',
      '--justification',
      'INC-4711 on-call',
    ],
    { tty: true },
  );

  tour.say(
    'Bulk grants from a file: the whole file is checked first, and nothing is sent if a line is wrong.',
  );
  await tour.svc(['roles', 'assign', '--file', '-'], { input: BAD, inputLabel: 'typos.csv', expect: 2, env });
  tour.say(
    '--dry-run tells what would be granted, skipped (already held) or fail, and exits 7 if a row would fail:',
  );
  await tour.svc(['roles', 'assign', '--file', '-', '--dry-run'], {
    input: GRANTS,
    inputLabel: 'grants.csv',
    tty: true,
    env,
  });
  await tour.svc(['roles', 'assign', '--file', '-', '--ndjson'], {
    input: GRANTS,
    inputLabel: 'grants.csv',
    env,
  });
  tour.say(
    'Running the same file again grants nothing twice: the platform refuses a second active grant, so those rows are skipped (already_assigned). A run cut short (Ctrl-C, a crash) resumes from its journal with the same idempotency keys.',
  );
  await tour.svc(['roles', 'assign', '--file', '-', '--ndjson'], {
    input: GRANTS,
    inputLabel: 'grants.csv',
    env,
  });
  await tour.svc(['roles', 'assignments', 'usr_lead'], { tty: true });

  tour.say(
    'Revoking takes effect on the next call; revocations are audited too (--yes because nobody can be asked here).',
  );
  await tour.svc(['roles', 'revoke', 'usr_analyst', 'tenant_admin', '--yes']);
  await tour.svc(['roles', 'assignments', 'usr_analyst', '--all'], { tty: true });
}
