import { describe, expect, it } from 'vitest';
import { unsavedLine } from '../../src/ascode/creations.js';

// The commands an apply names for a secret it could not save must be ones svc accepts: a
// rotate-secret with neither --secret-file nor --show-secret is refused (the one secret rule).
describe('unsavedLine', () => {
  it('names rotate-secret commands that carry a destination for the new secret', () => {
    const line = unsavedLine(
      [
        { id: 'wh_1', kind: 'webhook', tenant: 'acme-labs' },
        { id: 'cli_1', kind: 'oauth_client', tenant: 'acme-apac' },
      ],
      23 * 3600_000,
      // The run's -p, and each creation's own tenant (an apply acts in several: attack25a).
      (tenant) => (words) => `svc -p ops --tenant ${tenant} ${words}`,
    );
    expect(line).toBe(
      '2 of the failed items were created (wh_1, cli_1) but their secret could not be saved: make room, then run the same command again within 23 hours to save it (the platform answers with it again); after that it is lost: ' +
        'svc -p ops --tenant acme-labs webhooks rotate-secret wh_1 --secret-file PATH; svc -p ops --tenant acme-apac oauth rotate-secret cli_1 --secret-file PATH --yes make new ones, one each',
    );
  });
});
