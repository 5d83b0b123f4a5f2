import { createHmac } from 'node:crypto';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { callerOf, otherCallersRun } from '../../src/bulk/caller.js';
import { testContext, useFreshDirs } from '../helpers/context.js';
import { tempDir } from '../helpers/temp.js';

// Who a bulk run belongs to (src/bulk/caller.ts): the id its journal's identity hashes, the words
// another caller's note shows, and the scan for another caller's unfinished run of the command.
const dirs = useFreshDirs('svc-caller-');
const jwt = (claims: Record<string, unknown>) =>
  ['{"alg":"none"}', JSON.stringify(claims)]
    .map((part) => Buffer.from(part).toString('base64url'))
    .join('.') + '.sig';
/** The published salt: a journal written by this svc is resumed by the next one only while it stays. */
const keyHash = (secret: string) =>
  createHmac('sha256', 'svc bulk-run caller 1').update(secret).digest('hex');

describe('callerOf', () => {
  it('no credential: the profile alone, said as such', () => {
    const { ctx } = testContext({ env: dirs() });
    expect(callerOf(ctx)).toEqual({ id: '["default","none"]', shown: 'no credential, profile "default"' });
  });

  it('a JWT in SVC_TOKEN is its issuer and subject, and says SVC_TOKEN', () => {
    const token = jwt({ iss: 'https://idp.example', sub: 'usr_ann' });
    const { ctx } = testContext({ env: { ...dirs(), SVC_TOKEN: ` ${token}\n` } });
    expect(callerOf(ctx)).toEqual({
      id: '["default","sub","https://idp.example","usr_ann"]',
      shown: 'usr_ann, profile "default", SVC_TOKEN',
    });
  });

  it('a JWT without an issuer has an empty one; an empty subject makes it a key', () => {
    const env = dirs();
    expect(callerOf(testContext({ env: { ...env, SVC_TOKEN: jwt({ sub: 'usr_bo' }) } }).ctx).id).toBe(
      '["default","sub","","usr_bo"]',
    );
    const blank = jwt({ iss: 'x', sub: '' });
    expect(callerOf(testContext({ env: { ...env, SVC_TOKEN: blank } }).ctx).id).toBe(
      JSON.stringify(['default', 'key', keyHash(blank)]),
    );
  });

  it('an opaque key is a salted hash of it, never the key; its first 12 hex digits are shown', () => {
    const { ctx } = testContext({ env: { ...dirs(), SVC_TOKEN: 'svc_pk_secret_one' } });
    const hash = keyHash('svc_pk_secret_one');
    expect(callerOf(ctx)).toEqual({
      id: JSON.stringify(['default', 'key', hash]),
      shown: `credential ${hash.slice(0, 12)}, profile "default", SVC_TOKEN`,
    });
    expect(JSON.stringify(callerOf(ctx))).not.toContain('svc_pk_secret_one');
  });

  it('a stored OAuth login with opaque tokens is its session: a refresh keeps the caller, another login does not', async () => {
    const env = dirs();
    const { ctx } = testContext({ env });
    const login = (access: string, session: string) =>
      ctx.store().setCredential('default', {
        type: 'oauth',
        access_token: access,
        session,
        obtained_at: '2026-01-15T12:00:00.000Z',
      });
    await login('opaque-1', 'ses_a');
    const first = callerOf(testContext({ env }).ctx);
    expect(first).toEqual({
      id: JSON.stringify(['default', 'key', keyHash('session:ses_a')]),
      shown: `credential ${keyHash('session:ses_a').slice(0, 12)}, profile "default"`,
    });
    await login('opaque-2', 'ses_a');
    expect(callerOf(testContext({ env }).ctx)).toEqual(first);
    await login('opaque-2', 'ses_b');
    expect(callerOf(testContext({ env }).ctx).id).not.toBe(first.id);
  });

  it('a stored API key is a hash of the key itself', async () => {
    const env = dirs();
    await testContext({ env }).ctx.store().setCredential('default', {
      type: 'token',
      access_token: 'svc_pk_two',
      obtained_at: '2026-01-15T12:00:00.000Z',
    });
    expect(callerOf(testContext({ env }).ctx).id).toBe(
      JSON.stringify(['default', 'key', keyHash('svc_pk_two')]),
    );
  });
});

describe('otherCallersRun', () => {
  const made: string[] = [];
  afterEach(() => {
    for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
  });
  const journals = (files: Record<string, string>) => {
    const dir = tempDir('svc-journals-');
    made.push(dir);
    for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
    return dir;
  };
  const header = (fields: Record<string, unknown>) =>
    `${JSON.stringify({ journal: 3, ...fields })}\n{"line":2}\n`;
  const owner = { operation: 'op-mine', command: 'cmd-assign', by: 'usr_me' };
  const theirs = header({
    operation: 'op-theirs',
    command: 'cmd-assign',
    by: 'usr_ann',
    started_at: '2026-01-15T11:00:00.000Z',
  });

  it('no journals directory yet: nothing to say', () => {
    expect(otherCallersRun(join(tmpdir(), 'svc-no-such-dir-caller'), 'assign', owner)).toBeUndefined();
  });

  it("names another caller's journal of the command, with when and by whom", () => {
    const dir = journals({ 'assign-1.ndjson': theirs });
    const path = join(dir, 'assign-1.ndjson');
    expect(otherCallersRun(dir, 'assign', owner)).toBe(
      `note: another caller's unfinished run of this command started at 2026-01-15T11:00:00.000Z by usr_ann is in ${path}; this is a new run of your own, which leaves that one to its caller (see it with \`cat ${path}\`)`,
    );
  });

  it("reads the header as a resume does: the first line with text (review23e: not a blank first line's nothing)", () => {
    const dir = journals({ 'assign-1.ndjson': `\n  \n${theirs}` });
    const path = join(dir, 'assign-1.ndjson');
    expect(otherCallersRun(dir, 'assign', owner)).toBe(
      `note: another caller's unfinished run of this command started at 2026-01-15T11:00:00.000Z by usr_ann is in ${path}; this is a new run of your own, which leaves that one to its caller (see it with \`cat ${path}\`)`,
    );
  });

  it('says how many more there are, and leaves out a when or a who the header does not hold', () => {
    const dir = journals({
      'assign-a.ndjson': header({ operation: 'op-x', command: 'cmd-assign', by: 7, started_at: null }),
      'assign-b.ndjson': theirs,
      'assign-c.ndjson': theirs,
    });
    expect(otherCallersRun(dir, 'assign', owner)).toMatch(
      new RegExp(
        `^note: another caller's unfinished run of this command is in ${join(dir, 'assign-a.ndjson')} \\(and 2 more\\);`,
      ),
    );
  });

  it("skips the caller's own journal, other commands' and other kinds', files that are not journals, and unreadable ones", () => {
    const dir = journals({
      'assign-own.ndjson': header({ operation: 'op-mine', command: 'cmd-assign' }),
      'assign-other-command.ndjson': header({ operation: 'op-y', command: 'cmd-other' }),
      'revoke-1.ndjson': theirs,
      'assign-1.ndjson.tmp': theirs,
      'notes-assign-1.ndjson': theirs,
      'assign-garbled.ndjson': 'not json\n',
    });
    mkdirSync(join(dir, 'assign-dir.ndjson'));
    expect(otherCallersRun(dir, 'assign', owner)).toBeUndefined();
  });

  it('a journal an earlier svc wrote without its caller is refused, not passed over', () => {
    const dir = journals({ 'assign-old.ndjson': header({ operation: 'cmd-assign' }) });
    expect(() => otherCallersRun(dir, 'assign', owner)).toThrow(
      expect.objectContaining({ code: 'journal_caller_unknown' }),
    );
  });
});
