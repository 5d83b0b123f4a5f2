import type { FastifyInstance } from 'fastify';

export type FormBody = Record<string, string | string[]>;

/**
 * application/x-www-form-urlencoded bodies (the OAuth token endpoint, the consent form). A
 * parameter sent twice becomes an array, so handlers can refuse it (RFC 6749 §3.1, §3.2: "MUST
 * NOT be included more than once") instead of silently keeping one value.
 */
export function parseForm(text: string): FormBody {
  const out: FormBody = Object.create(null);
  for (const [name, value] of new URLSearchParams(text)) {
    const seen = out[name];
    if (seen === undefined) out[name] = value;
    else out[name] = Array.isArray(seen) ? [...seen, value] : [seen, value];
  }
  return out;
}

/** A form body's size limit (a JSON body's is BODY_LIMIT). */
export const FORM_BODY_LIMIT = 64 * 1024;

export function registerFormBodies(app: FastifyInstance): void {
  app.addContentTypeParser(
    'application/x-www-form-urlencoded',
    { parseAs: 'string', bodyLimit: FORM_BODY_LIMIT },
    (_request, body, done) => done(null, parseForm(body as string)),
  );
}
