import { configSchemaText } from '../ascode/schema.js';
import { fullProgram, rootHelpProgram } from '../cli.js';
import { bashScript } from './bash.js';
import { cliReference } from './docs.js';
import { fishScript } from './fish.js';
import { commandModel } from './model.js';
import { zshScript } from './zsh.js';

/**
 * Files generated from the code and checked in — from the command tree, and the access file's
 * JSON Schema (src/ascode/schema.ts) — `npm run generate` writes them;
 * test/docs/generated.test.ts fails when they are stale.
 */
export async function generatedFiles(): Promise<Record<string, string>> {
  const model = commandModel(await fullProgram());
  return {
    'completions/svc.bash': bashScript(model),
    'completions/_svc': zshScript(model),
    'completions/svc.fish': fishScript(model),
    'docs/cli.md': cliReference(await fullProgram(), await rootHelpProgram()),
    'docs/svc-config.schema.json': configSchemaText(),
  };
}
