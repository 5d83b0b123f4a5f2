/**
 * Colours of status values on a terminal: done and well green, failed red, still moving yellow,
 * set aside dim. Values not listed stay plain. `recovered` (a delivery, or a dead-letter entry, whose
 * event reached its target by a later delivery of it) is delivered after all: green.
 */
export const STATUS_COLOURS: Readonly<Record<string, 'green' | 'red' | 'yellow' | 'dim'>> = {
  delivered: 'green',
  recovered: 'green',
  ok: 'green',
  active: 'green',
  enabled: 'green',
  replayed: 'green',
  valid: 'green',
  granted: 'green',
  grant: 'green',
  replay: 'green',
  discard: 'green',
  failed: 'red',
  fail: 'red',
  invalid: 'red',
  pending: 'yellow',
  retrying: 'yellow',
  in_flight: 'yellow',
  queued: 'yellow',
  discarded: 'dim',
  disabled: 'dim',
  expired: 'dim',
  revoked: 'dim',
  deleted: 'dim',
  role_deleted: 'dim',
  skipped: 'dim',
  skip: 'dim',
};
