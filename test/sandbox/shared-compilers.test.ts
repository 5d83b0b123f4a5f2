/**
 * src/sandbox/compilers.ts: a sandbox started in a process that already started one reuses its
 * compiled validators and serializers, and works out the key of its shared schemas (a 36 KB JSON
 * text) once per compiler and options, not once per route: session 22's remembered scope was
 * replaced at every route (the query-string and body validators ask with two options objects),
 * 280 such texts per sandbox, a third of a sandbox's start-up CPU and of test/commands' (session 23).
 * What each sandbox validates is unchanged: test/sandbox/strict-bodies.test.ts and the rest.
 */
import { afterEach, expect, it, vi } from 'vitest';
import { startSandbox } from '../../src/sandbox/server.js';

afterEach(() => {
  vi.restoreAllMocks();
});

it('a second sandbox writes the shared schemas as JSON a few times, not once per route', async () => {
  await (await startSandbox({ port: 0 })).close();
  const stringify = JSON.stringify;
  let large = 0;
  vi.spyOn(JSON, 'stringify').mockImplementation(((...args: Parameters<typeof stringify>) => {
    const text = stringify(...args);
    if (typeof text === 'string' && text.length > 20_000) large++;
    return text;
  }) as typeof JSON.stringify);
  const second = await startSandbox({ port: 0 });
  vi.restoreAllMocks();
  try {
    // One per compiler and options: bodies' validator, the other parts' validator, the serializer.
    expect(large).toBeLessThanOrEqual(3);
  } finally {
    await second.close();
  }
});
