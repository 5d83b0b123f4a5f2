/**
 * An empty list says so in a sentence on a terminal, and that sentence is English for every
 * surface (attack26a F12: `No reconciliations records.`); a pipe and --json stay data alone.
 */
import { describe, expect, it } from 'vitest';
import { useSandboxContext } from '../../helpers/sandbox.js';

const svc = useSandboxContext();

describe('svc records ls of an empty surface', () => {
  it.each(['reconciliations', 'evidence_packs'])(
    '%s: one sentence on a terminal, nothing in a pipe',
    async (surface) => {
      const tty = await svc.run(['records', 'ls', surface], { tty: { stdout: true, stderr: true } });
      expect([tty.code, tty.stdout, tty.stderr]).toEqual([0, '', `no records in ${surface}\n`]);
      const piped = await svc.run(['records', 'ls', surface]);
      expect([piped.code, piped.stdout, piped.stderr]).toEqual([0, '', '']);
      const json = await svc.run(['records', 'ls', surface, '--json']);
      expect([json.code, json.stdout, json.stderr]).toEqual([0, '[]\n', '']);
    },
  );
});
