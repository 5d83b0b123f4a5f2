import type { CommandFactory } from './kit.js';

/**
 * The top-level commands. Only the one being run is loaded (each is a separate chunk of the
 * bundle); the others appear in help from this list alone.
 */
export interface CommandEntry {
  name: string;
  summary: string;
  group: string;
  aliases?: string[];
  /** Left out of help (internal commands). */
  hidden?: boolean;
  /** A server that runs until stopped: keeps V8's default tiering (see src/runtime/index.ts). */
  longRunning?: boolean;
  load: () => Promise<{ default: CommandFactory }>;
}

const START = 'Getting started:';
const PLATFORM = 'Platform:';
const TOOLS = 'Tools:';

export const COMMANDS: CommandEntry[] = [
  {
    name: 'login',
    summary: 'Log in and store a credential in the profile',
    group: START,
    load: () => import('./auth/login.js'),
  },
  {
    name: 'logout',
    summary: "End the session and remove the profile's stored credential",
    group: START,
    load: () => import('./auth/logout.js'),
  },
  {
    name: 'auth',
    summary: 'Show login status, print an access token',
    group: START,
    load: () => import('./auth/index.js'),
  },
  {
    name: 'me',
    summary: 'Show who you are calling the API as',
    group: START,
    load: () => import('./me/index.js'),
  },
  {
    name: 'profiles',
    summary: 'List, switch, show and remove profiles',
    group: START,
    aliases: ['profile'],
    load: () => import('./profiles/index.js'),
  },
  {
    name: 'config',
    summary: 'Read and change settings of a profile',
    group: START,
    load: () => import('./config/index.js'),
  },
  {
    name: 'tenants',
    summary: 'List tenants visible to you',
    group: PLATFORM,
    aliases: ['tenant'],
    load: () => import('./tenants/index.js'),
  },
  {
    name: 'oauth',
    summary: 'Register OAuth clients, try the authorization flow',
    group: PLATFORM,
    load: () => import('./oauth/index.js'),
  },
  {
    name: 'records',
    summary: 'List, get, create, update and delete records of any surface',
    group: PLATFORM,
    aliases: ['record'],
    load: () => import('./records/index.js'),
  },
  {
    name: 'webhooks',
    summary: 'Deliveries, dead-letter queue, replay; verify, sign and receive events',
    group: PLATFORM,
    aliases: ['webhook'],
    load: () => import('./webhooks/index.js'),
  },
  {
    name: 'roles',
    summary: 'Manage roles and grant them to users, in bulk from files',
    group: PLATFORM,
    aliases: ['role'],
    load: () => import('./roles/index.js'),
  },
  {
    name: 'users',
    summary: 'List the users who may hold roles in the tenant',
    group: PLATFORM,
    load: () => import('./users/index.js'),
  },
  {
    name: 'audit',
    summary: 'Read the audit trail: who changed what, when',
    group: PLATFORM,
    load: () => import('./audit/index.js'),
  },
  {
    name: 'export',
    summary: 'Write the live access and integrations of tenants as a file',
    group: PLATFORM,
    load: () => import('./export/index.js'),
  },
  {
    name: 'plan',
    summary: 'Show how the live state differs from an access file',
    group: PLATFORM,
    load: () => import('./plan/index.js'),
  },
  {
    name: 'apply',
    summary: 'Make the live state match an access file or a saved plan',
    group: PLATFORM,
    load: () => import('./apply/index.js'),
  },
  {
    name: 'api',
    summary: 'Make an authenticated API request',
    group: TOOLS,
    load: () => import('./api/index.js'),
  },
  {
    name: 'completion',
    summary: 'Print a shell completion script (bash, zsh, fish)',
    group: TOOLS,
    load: () => import('./completion/index.js'),
  },
  {
    name: '__complete',
    summary: 'Values for shell completion',
    group: TOOLS,
    hidden: true,
    load: () => import('./completion/dynamic.js'),
  },
  {
    name: 'sandbox',
    summary: 'Run the local platform sandbox',
    group: TOOLS,
    longRunning: true,
    load: () => import('./sandbox/index.js'),
  },
];
