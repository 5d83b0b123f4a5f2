/**
 * The system tools tests use (Node does not bring them), where each is on PATH, and the phrase a
 * skipped test's note gives. No vitest runtime here: the reporter imports it in vitest's main
 * process. Tests use `needs()` from ./needs.ts.
 */
import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, join } from 'node:path';

/** The system tools tests use, by the name the skip line gives, and how to get each on Debian. */
export const SYSTEM_TOOLS = {
  bash: { command: 'bash', install: 'apt-get install bash' },
  fish: { command: 'fish', install: 'apt-get install fish' },
  zsh: { command: 'zsh', install: 'apt-get install zsh' },
  tmux: { command: 'tmux', install: 'apt-get install tmux' },
  chromium: { command: 'chromium', install: 'apt-get install chromium' },
  openssl: { command: 'openssl', install: 'apt-get install openssl' },
  'GNU time': { command: 'time', install: 'apt-get install time' },
  setfacl: { command: 'setfacl', install: 'apt-get install acl' },
} as const;

export type SystemTool = keyof typeof SYSTEM_TOOLS;

declare module 'vitest' {
  interface TaskMeta {
    /** The system tools missing for this block (test/reporters/missing-tools.ts counts them). */
    missingTools?: SystemTool[];
  }
}

const found = new Map<SystemTool, string | undefined>();

/** The tool's executable on PATH (what a spawned `tmux` or `fish` would run), or undefined. */
export function toolPath(tool: SystemTool): string | undefined {
  if (!found.has(tool)) {
    const { command } = SYSTEM_TOOLS[tool];
    let path: string | undefined;
    for (const dir of (process.env.PATH ?? '').split(delimiter)) {
      if (!dir) continue;
      const candidate = join(dir, command);
      try {
        if (!statSync(candidate).isFile()) continue;
        accessSync(candidate, constants.X_OK);
        path = candidate;
        break;
      } catch {
        // not here
      }
    }
    found.set(tool, path);
  }
  return found.get(tool);
}

/** The tool's path; throws where `needs()` should have kept the caller from running. */
export function requiredTool(tool: SystemTool): string {
  const path = toolPath(tool);
  if (!path) throw new Error(`${tool} not found on PATH (${SYSTEM_TOOLS[tool].install})`);
  return path;
}

/** A missing tool in one phrase: "fish not found (apt-get install fish)". */
export function missingPhrase(tools: readonly SystemTool[]): string {
  const names = tools.join(', ');
  const install = `apt-get install ${tools.map((t) => SYSTEM_TOOLS[t].install.split(' ').pop()).join(' ')}`;
  return `${names} not found (${install})`;
}
