// Past 300 lines: one table of cases per masking rule (names, shapes, values, traced bodies, URLs),
// kept beside each other so that a change to one rule is read against the others.
import { describe, expect, it } from 'vitest';
import { redactUrlText } from '../../src/api/secret-names.js';
import {
  holdsCredential,
  isSecretField,
  MASK,
  redactDeep,
  redactHeader,
  redactText,
  redactTracedBody,
  redactUrl,
  redactValue,
  SecretRegistry,
  scrubSecrets,
  secretSpellings,
} from '../../src/http/redact.js';

describe('redaction of traces', () => {
  it.each([
    ['authorization', 'Bearer abc.def.ghi', `Bearer ${MASK}`],
    ['Authorization', 'Basic dXNlcjpwYXNz', `Basic ${MASK}`],
    ['cookie', 'session=1', MASK],
    ['x-svc-signature', 't=1,v1=ab', MASK],
    ['x-tenant-id', 'abc', 'abc'],
    ['authorization', 'Token   abc', `Token   ${MASK}`],
    ['authorization', 'Digest Bearer abc', MASK],
    // Named like a credential (svc api -H): masked too.
    ['X-Auth-Token', 'hunter2hunter2', MASK],
    ['private-token', 'Token pvt12345', `Token ${MASK}`],
    ['x-client-secret', 'abc', MASK],
    ['idempotency-key', 'svc_0123', 'svc_0123'],
    ['content-type', 'application/json', 'application/json'],
    ['x-request-id', 'req_1', 'req_1'],
  ])('header %s: %s', (name, value, expected) => {
    expect(redactHeader(name, value)).toBe(expected);
  });

  it('masks secret-looking JSON fields at any depth but keeps error codes and idempotency keys', () => {
    const body = JSON.stringify({
      client_secret: 's3cr3t',
      nested: { access_token: 'a', refresh_token: 'r', list: [{ password: 'p' }] },
      idempotency_key: 'k',
      error: { code: 'invalid_grant' },
      token_type: 'Bearer',
    });
    expect(JSON.parse(redactTracedBody(body, 'application/json'))).toEqual({
      client_secret: MASK,
      nested: { access_token: MASK, refresh_token: MASK, list: [{ password: MASK }] },
      idempotency_key: 'k',
      error: { code: 'invalid_grant' },
      token_type: 'Bearer',
    });
  });

  it('masks JSON nested past the stack in its text', () => {
    const body = `${'{"a":'.repeat(20000)}{"password":"Hunter2Hunter2"}${'}'.repeat(20000)}`;
    expect(redactTracedBody(Buffer.from(body), 'application/json')).toBe(
      body.replace('"Hunter2Hunter2"', `"${MASK}"`),
    );
  });

  it.each([
    ['broken JSON', '{"password":"Hunter2Hunter2",}'],
    ['text', 'password=Hunter2Hunter2'],
  ])('a body it cannot walk (%s) is traced by its size only', (_name, body) => {
    const traced = redactTracedBody(Buffer.from(body), 'application/json');
    expect(traced).toMatch(new RegExp(`^\\[${body.length} bytes not shown: `));
    expect(traced).not.toContain('Hunter2');
  });

  it('masks form parameters, including the authorization code and verifier', () => {
    const form = 'grant_type=authorization_code&code=abc&code_verifier=v&client_secret=s&client_id=c';
    expect(redactTracedBody(form, 'application/x-www-form-urlencoded')).toBe(
      `grant_type=authorization_code&code=${encodeURIComponent(MASK)}&code_verifier=${encodeURIComponent(MASK)}&client_secret=${encodeURIComponent(MASK)}&client_id=c`,
    );
  });

  const masked = MASK;
  it.each([
    [
      'https://u:p@example.com/cb?code=abc&state=xyz&page=2',
      `https://${masked}:${masked}@example.com/cb?code=${masked}&state=${masked}&page=2`,
    ],
    ['https://example.com/cb?code=abc&page=2', `https://example.com/cb?code=${masked}&page=2`],
    ['https://u@example.com/cb', `https://${masked}@example.com/cb`],
    ['https://:p@example.com/cb', `https://:${masked}@example.com/cb`],
    ['https://example.com/cb?', 'https://example.com/cb?'],
  ])('masks query parameters and URL credentials: %s', (url, expected) => {
    expect(redactUrl(new URL(url))).toBe(expected);
  });

  it.each([
    // Secret parameters under common short names (Azure SAS `sig`, `auth`, `pwd`, `hmac`).
    [
      'https://hooks.example.com/c?sig=abcdefabcdef12345&api_key=zzzzzzzzzzzz&sv=2022-11-02',
      `https://hooks.example.com/c?sig=${MASK}&api_key=${MASK}&sv=2022-11-02`,
    ],
    [
      'https://hooks.example.com/s?auth=abc&pwd=hunter2&hmac=0123&signature=x&sas=y&X-Amz-Signature=z&accessToken=t',
      `https://hooks.example.com/s?auth=${MASK}&pwd=${MASK}&hmac=${MASK}&signature=${MASK}&sas=${MASK}&X-Amz-Signature=${MASK}&accessToken=${MASK}`,
    ],
    // A credential under a harmless name, by its shape (leaks11 5).
    [
      'https://hooks.example.com/j?jwt=eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.c2lnbmF0dXJl&w=whsec_abcdefghijklmnopqrstuv',
      `https://hooks.example.com/j?jwt=${MASK}&w=whsec_${MASK}`,
    ],
    // A fragment that carries parameters is masked whole; an anchor is kept.
    ['https://hooks.example.com/e#access_token=abcdefghijkl', `https://hooks.example.com/e#${MASK}`],
    ['https://hooks.example.com/e?a=1#section-2', 'https://hooks.example.com/e?a=1#section-2'],
    // A secret word anywhere in a name is enough (leaks11 1: whole words let api_key_v2 through);
    // a harmless tokenizer is masked too, the price of that. keyboard holds no secret word.
    [
      'https://hooks.example.com/b?tokenizer=bert&keyboard=us&api_key_v2=k2&password1=p1',
      `https://hooks.example.com/b?tokenizer=${MASK}&keyboard=us&api_key_v2=${MASK}&password1=${MASK}`,
    ],
    // Every other byte as stored: no re-encoding of spaces, commas, colons.
    [
      'https://hooks.example.com/r?token=abcdefgh123&q=a%20b&list=a,b&t=x:y&flag',
      `https://hooks.example.com/r?token=${MASK}&q=a%20b&list=a,b&t=x:y&flag`,
    ],
    ['https://u:p@hooks.example.com/x?q=a+b', `https://${MASK}:${MASK}@hooks.example.com/x?q=a+b`],
  ])('masks a webhook URL in place: %s', (url, expected) => {
    expect(redactUrlText(url)).toBe(expected);
  });

  // leaks11: a secret-named member holding an object or a list was walked into, not masked.
  it('masks a secret-named object or list whole in a traced body', () => {
    expect(
      redactTracedBody(
        '{"credentials":{"value":"abc123"},"password":["p1","p2"],"a":{"token":"t"},"b":1}',
        'application/json',
      ),
    ).toBe(
      `{"credentials":${JSON.stringify(MASK)},"password":${JSON.stringify(MASK)},"a":{"token":${JSON.stringify(MASK)}},"b":1}`,
    );
  });

  // Review s11 f: error reports masked only scalars (a list of passwords showed), recursed into
  // a 5,000-deep error answer (a stack trace), and /v1/me's credential object was hidden whole.
  it('redactValue masks a secret-named object or list whole, walks a credential, and stops deep down', () => {
    expect(
      redactValue({
        passwords: ['HUNTER2-LIST-SECRET'],
        credentials: { pw: 'x' },
        credential: { type: 'jwt', expires_at: 'e', access_token: 'a' },
        passphrase: 'p',
        otp: '123456',
        a: 1,
      }),
    ).toEqual({
      passwords: MASK,
      credentials: MASK,
      credential: { type: 'jwt', expires_at: 'e', access_token: MASK },
      passphrase: MASK,
      otp: MASK,
      a: 1,
    });
    let deep: unknown = { token: 'deep-secret' };
    for (let i = 0; i < 5000; i++) deep = [deep];
    expect(JSON.stringify(redactValue({ details: deep }))).not.toContain('deep-secret');
    expect(redactTracedBody('{"credential":{"type":"jwt","access_token":"a"}}', 'application/json')).toBe(
      `{"credential":{"type":"jwt","access_token":${JSON.stringify(MASK)}}}`,
    );
  });

  // leaks11 2: JSON labelled as a form was traced as one parameter named by the whole text.
  it.each([
    ['{"client_secret":"svc_cs_aaaaaaaa","a":1}', `{"client_secret":${JSON.stringify(MASK)},"a":1}`],
    [
      'client_secret: hunter2-very-secret',
      '[34 bytes not shown: not JSON, so a secret in it could not be masked]',
    ],
    [
      'grant_type=refresh_token&refresh_token=rt-123&a%5Bb%5D=1',
      `grant_type=refresh_token&refresh_token=${encodeURIComponent(MASK)}&a%5Bb%5D=1`,
    ],
  ])('traces a body labelled as a form by what it is: %s', (body, expected) => {
    expect(redactTracedBody(body, 'application/x-www-form-urlencoded')).toBe(expected);
  });

  it.each([
    ['client_secret', true],
    ['clientSecret', true],
    ['accesstoken', true],
    ['private_key', true],
    ['apiKey', true],
    ['x_auth_token', true],
    ['device_code', true],
    ['api_key_v2', true],
    ['apiKeyV2', true],
    ['X-Api-Key-V2', true],
    ['secretkey', true],
    ['password1', true],
    ['sessionToken2', true],
    ['sig', true],
    ['signed', false],
    ['keyboard', false],
    ['idempotencyKey', false],
    ['token_type', false],
    ['expires_at', false],
    ['signed_at', false],
  ])('reads a name: %s is secret: %s', (name, expected) => {
    expect(isSecretField(name)).toBe(expected);
  });

  it('scrubs registered secret values wherever they appear', () => {
    expect(scrubSecrets('token is sk_live_canary123 ok', ['sk_live_canary123'])).toBe(`token is ${MASK} ok`);
  });
});

describe('SecretRegistry.learnRequest', () => {
  it('learns what a request sends under a secret name: body fields, form fields, credential headers', () => {
    const secrets = new SecretRegistry();
    secrets.learnRequest({
      password: 'pa55word99',
      name: 'visible-name',
      nested: { api_key: 'key-0123456' },
    });
    secrets.learnRequest(
      { grant_type: 'authorization_code', code: 'code-0123456789' },
      { 'X-Auth-Token': 'Token hunter2hunter2', accept: 'application/json-seq' },
    );
    expect(secrets.values().sort()).toEqual(
      ['Token hunter2hunter2', 'code-0123456789', 'hunter2hunter2', 'key-0123456', 'pa55word99'].sort(),
    );
  });

  it('learns nothing from a body that is not an object', () => {
    const secrets = new SecretRegistry();
    secrets.learnRequest('password=pa55word99');
    secrets.learnRequest(undefined);
    expect(secrets.values()).toEqual([]);
  });
});

describe('redaction by name, shape and value', () => {
  it.each([
    [{ key: 'svc_sk_x' }, { key: MASK }],
    [
      { api_key: 'a', private_key: 'b', idempotency_key: 'k' },
      { api_key: MASK, private_key: MASK, idempotency_key: 'k' },
    ],
    [
      { code: 'auth-code-value', state: 's' },
      { code: MASK, state: 's' },
    ],
    [
      { device_code: 'd', user_code: 'u' },
      { device_code: MASK, user_code: MASK },
    ],
    [{ error: { code: 'invalid_grant', message: 'm' } }, { error: { code: 'invalid_grant', message: 'm' } }],
    [
      { code: 'not_found', message: 'gone' },
      { code: 'not_found', message: 'gone' },
    ],
    [
      { error: 'invalid_grant', code: 'x' },
      { error: 'invalid_grant', code: 'x' },
    ],
    [
      { secret: 'whsec_1', previous_secret_expires_at: '2026-01-01T00:00:00Z', secret_rotated_at: null },
      { secret: MASK, previous_secret_expires_at: '2026-01-01T00:00:00Z', secret_rotated_at: null },
    ],
    [
      {
        last_error_code: '5xx_server_error',
        status_code: 500,
        token_lifetime_seconds: 60,
        token_type: 'Bearer',
      },
      {
        last_error_code: '5xx_server_error',
        status_code: 500,
        token_lifetime_seconds: 60,
        token_type: 'Bearer',
      },
    ],
    // An authorization code is an error code only under an error, or beside an error's words.
    [{ data: { code: 'auth-code-value' } }, { data: { code: MASK } }],
    [{ mydetails: { code: 'auth-code-value' } }, { mydetails: { code: MASK } }],
    [{ error_context: { code: 'auth-code-value' } }, { error_context: { code: MASK } }],
    [
      { errors: [{ code: 'bad_value', field: 'limit' }] },
      { errors: [{ code: 'bad_value', field: 'limit' }] },
    ],
    [{ details: { code: 'too_long' } }, { details: { code: 'too_long' } }],
    // An absent secret stays absent.
    [
      { credentials: { id: 'cred_1', secret: 's3cr3t' }, client_secret: null, refresh_token: undefined },
      // A secret-named object is masked whole (review s11 f), as the --debug trace masks it.
      { credentials: MASK, client_secret: null, refresh_token: undefined },
    ],
  ])('%j → %j', (input, expected) => {
    expect(redactValue(input)).toEqual(expected);
  });

  it.each([
    ['got Bearer abcdefghijklmnop123 back', `got Bearer ${MASK} back`],
    ['authorization: bearer abcdefghijklmnop123', `authorization: bearer ${MASK}`],
    ['a bearer credential is refused', 'a bearer credential is refused'],
    ['key svc_sk_0123456789abcdefghij1234 here', `key svc_sk_${MASK} here`],
    ['prefix svc_sk_abc is fine', 'prefix svc_sk_abc is fine'],
    ['whsec_0123456789abcdefABCDEF=', `whsec_${MASK}`],
    ['jwt eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.sig-nature_1 end', `jwt ${MASK} end`],
    [
      'idempotency svc_8d0c6a7e-1b2c-4d5e-8f90-123456789abc',
      'idempotency svc_8d0c6a7e-1b2c-4d5e-8f90-123456789abc',
    ],
  ])('redactText(%j)', (text, expected) => {
    expect(redactText(text)).toBe(expected);
  });

  it('scrubs registered secrets given in any order, each place once, neighbours as one', () => {
    expect(scrubSecrets('x aaaaaaaa y bbbbbbbb z', ['bbbbbbbb', 'aaaaaaaa'])).toBe(`x ${MASK} y ${MASK} z`);
    expect(scrubSecrets('aaaaaaaabbbbbbbb!', ['aaaaaaaa', 'bbbbbbbb'])).toBe(`${MASK}!`);
  });

  // A server that quotes what it received spells a secret as it was sent or stored.
  const SPELLED = 'Sec+ret/Val=ue&1234%41"q\\zé!';
  it.each([
    ['as is', SPELLED],
    ['form-encoded', 'Sec%2Bret%2FVal%3Due%261234%2541%22q%5Cz%C3%A9%21'],
    ['form-encoded, lower-case hex', 'Sec%2bret%2fVal%3due%261234%2541%22q%5cz%c3%a9%21'],
    ['percent-encoded', 'Sec%2Bret%2FVal%3Due%261234%2541%22q%5Cz%C3%A9!'],
    ['in a JSON string', 'Sec+ret/Val=ue&1234%41\\"q\\\\zé!'],
    ['in a JSON string, slash escaped', 'Sec+ret\\/Val=ue&1234%41\\"q\\\\zé!'],
    ['in a JSON string, ASCII only', 'Sec+ret/Val=ue&1234%41\\"q\\\\z\\u00e9!'],
    ['in a JSON string, ASCII only, upper-case hex', 'Sec+ret/Val=ue&1234%41\\"q\\\\z\\u00E9!'],
  ])('scrubs a registered secret spelled %s', (_how, spelled) => {
    expect(scrubSecrets(`raw=client_secret=${spelled}&x=1`, [SPELLED])).toBe(`raw=client_secret=${MASK}&x=1`);
    expect(new SecretRegistry().redact(spelled)).toBe(spelled);
  });

  it('a secret of letters and digits has one spelling; spaces in a form are +', () => {
    expect([...secretSpellings('abcDEF123456')]).toEqual(['abcDEF123456']);
    expect(secretSpellings('a secret value')).toContain('a+secret+value');
  });

  it('redactDeep masks by name, by value and by shape in every string, at any depth, and keeps the rest', () => {
    expect(
      redactDeep(
        {
          message: 'token s3cr3t-value-1 seen',
          list: ['Bearer abcdefghijklmnop123', 7, null, false],
          nested: { note: 'key svc_sk_0123456789abcdefghij here', client_secret: 'x', count: 0 },
        },
        ['s3cr3t-value-1'],
      ),
    ).toEqual({
      message: `token ${MASK} seen`,
      list: [`Bearer ${MASK}`, 7, null, false],
      nested: { note: `key svc_sk_${MASK} here`, client_secret: MASK, count: 0 },
    });
  });

  it('registers secrets of 8 characters or more only', () => {
    const registry = new SecretRegistry();
    registry.add('12345678', '1234567', null, undefined);
    expect(registry.values()).toEqual(['12345678']);
  });

  it('the registry does not learn error codes under an error list, names meant to be shown, or anything else', () => {
    const registry = new SecretRegistry();
    registry.learn({ errors: [{ code: 'invalid_value_for_limit', field: 'limit' }] });
    registry.learn({ name: 'Vendor portal application', user_code: 'WDJB-MJHT-QQQQ' });
    registry.learn(null);
    registry.learn('a plain string of text');
    registry.learn(42);
    expect(registry.values()).toEqual([]);
  });

  it('scrubs overlapping registered secrets in one pass, never completing another', () => {
    expect(scrubSecrets('xxabcdefghijyy', ['abcdefgh', 'efghij00', 'defghijy'])).toBe(`xx${MASK}y`);
    expect(scrubSecrets('short pw', ['pw'])).toBe('short pw');
  });

  it('the registry learns secret-named values of received documents', () => {
    const registry = new SecretRegistry();
    registry.learn({
      id: 'key_1',
      key: 'svc_pk_learned-value',
      items: [{ client_secret: 'nested-secret-1' }],
    });
    registry.learn({ error: { code: 'some_error_code', message: 'm' } });
    expect(registry.values().sort()).toEqual(['nested-secret-1', 'svc_pk_learned-value']);
    expect(registry.redact('a nested-secret-1 b')).toBe(`a ${MASK} b`);
  });
});

describe('holdsCredential: refusing a credential where it must not be written', () => {
  it.each([
    ['Basic reconciliation feed for the warehouse', false],
    ['Bearer instructions: see the runbook', false],
    ['basic Reconciliation of accounts', false],
    ['Authorization: Basic dXNlcjpwYXNz', true],
    ['Bearer 0123456789abcdef', true],
    ['bearer abcdefghijkl+/', true],
    ['old key whsec_0123456789abcdefABCDEF was rotated', true],
    ['token eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.abcdefghijklmnop', true],
    ['svc_sk_0123456789abcdefWXYZ', true],
  ])('%j → %s', (text, held) => {
    expect(holdsCredential(text)).toBe(held);
  });
});
