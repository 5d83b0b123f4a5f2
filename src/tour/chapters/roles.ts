import type { Tour } from '../runner.js';

const GRANTS =
  'user,role,expires_in,justification\n' +
  'usr_viewer,tenant_analyst,7d,"Q3 close, extra hands"\n' +
  'usr_lead,fx-desk,never,FX desk lead\n' +
  'usr_compliance,tenant_auditor,30m,SOX walkthrough\n';

const TYPOS =
  'user,role,expires_in,justification\nusr_viewer,tenant_analist,7d,x\nusr_lead,fx-desk,2 weeks,y\n';

/** Custom roles, a grant that expires, a bulk file (checked, planned, run). */
export async function roles(tour: Tour): Promise<void> {
  tour.chapter('Roles and grants');
  tour.say("A custom role holds permissions from the platform's catalog:");
  await tour.svc(
    [
      'roles',
      'create',
      '--name',
      'fx-desk',
      '--permission',
      'exception.read',
      '--permission',
      'exception.resolve.fx_difference',
    ],
    { tty: true },
  );
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
  tour.say('Bulk grants: the whole file is checked first; a bad line means nothing is sent.');
  await tour.svc(['roles', 'assign', '--file', '-'], {
    input: TYPOS,
    inputLabel: 'typos.csv',
    expect: 2,
  });
  tour.say(
    '--dry-run says what the real run would do, in its words; the run then prints one result per row.',
  );
  await tour.svc(['roles', 'assign', '--file', '-', '--dry-run'], {
    input: GRANTS,
    inputLabel: 'grants.csv',
    tty: true,
  });
  await tour.svc(['roles', 'assign', '--file', '-', '--ndjson'], {
    input: GRANTS,
    inputLabel: 'grants.csv',
  });
}
