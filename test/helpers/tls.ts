import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/**
 * A self-signed certificate for 127.0.0.1 made by openssl (an EC P-256 key: made in milliseconds,
 * where an RSA key took up to a second of CPU). Written in `dir` when given (the caller keeps
 * `certPath`); otherwise made in a temporary directory that is removed once read. Call it inside
 * a `needs('openssl')` block (test/helpers/needs.ts).
 */
export async function selfSignedCertificate(
  commonName: string,
  dir?: string,
): Promise<{ key: Buffer; cert: Buffer; certPath: string }> {
  const into = dir ?? mkdtempSync(join(tmpdir(), 'svc-tls-'));
  const keyPath = join(into, 'key.pem');
  const certPath = join(into, 'cert.pem');
  try {
    await run('openssl', [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-days',
      '2',
      '-subj',
      `/CN=${commonName}`,
      '-addext',
      'subjectAltName=IP:127.0.0.1',
      '-keyout',
      keyPath,
      '-out',
      certPath,
    ]);
    return { key: readFileSync(keyPath), cert: readFileSync(certPath), certPath };
  } finally {
    if (dir === undefined) rmSync(into, { recursive: true, force: true });
  }
}
