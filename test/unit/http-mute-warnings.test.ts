/**
 * cdd68ba8, review24f L4: Node's two warnings svc swallows (undici's SOCKS5 ExperimentalWarning and
 * NODE_TLS_REJECT_UNAUTHORIZED=0's) are both swallowed in one process, whichever svc mutes first
 * and whichever Node emits first, and Node's emitWarning is put back once both came. Two wrappers,
 * each putting back the emitWarning it found, lost the other's: the later-muted warning printed.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';

const TLS =
  "Setting the NODE_TLS_REJECT_UNAUTHORIZED environment variable to '0' makes TLS connections and HTTPS requests insecure by disabling certificate verification.";
const SOCKS = 'SOCKS5 proxy support is experimental and may change in future versions';
const node = process.emitWarning;
const tlsSetting = process.env.NODE_TLS_REJECT_UNAUTHORIZED;

afterEach(() => {
  // The module this case used, its warnings spent, must not be the one a later file in this worker
  // imports (vitest.config.ts: isolate false): proxy-socks's SOCKS5 warning then printed.
  vi.resetModules();
  process.emitWarning = node;
  if (tlsSetting === undefined) delete process.env.NODE_TLS_REJECT_UNAUTHORIZED;
  else process.env.NODE_TLS_REJECT_UNAUTHORIZED = tlsSetting;
});

describe("Node's warnings svc swallows, both in one process", () => {
  const orders = [
    ['tls', 'socks'],
    ['socks', 'tls'],
  ] as const;
  for (const muted of orders) {
    for (const emitted of orders) {
      it(`muted ${muted.join(' then ')}, emitted ${emitted.join(' then ')}: both swallowed, emitWarning put back`, async () => {
        // A fresh module: each mute is once per process.
        vi.resetModules();
        const undici = await import('../../src/http/undici.js');
        const printed: string[] = [];
        const emit = ((warning: string | Error) => {
          printed.push(String(warning));
        }) as typeof process.emitWarning;
        process.emitWarning = emit;
        process.env.NODE_TLS_REJECT_UNAUTHORIZED = '0';
        for (const which of muted)
          (which === 'tls' ? undici.muteUnverifiedWarning : undici.muteSocksWarning)();
        for (const which of emitted) process.emitWarning(which === 'tls' ? TLS : SOCKS, 'Warning');
        process.emitWarning('another warning');
        expect(printed).toEqual(['another warning']);
        expect(process.emitWarning).toBe(emit);
        // Once each: the same warning again is Node's to print.
        process.emitWarning(SOCKS, 'ExperimentalWarning');
        expect(printed).toEqual(['another warning', SOCKS]);
      });
    }
  }
});
