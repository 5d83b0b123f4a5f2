// Every end-to-end test spawns the built binary, so build dist/ once before any test runs.
import { buildDist } from '../scripts/build.mjs';

export default async function setup(): Promise<void> {
  await buildDist({ quiet: true });
}
