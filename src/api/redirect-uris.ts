/**
 * Redirect URIs of OAuth clients (RFC 8252 for native apps): what may be registered, shared by
 * the sandbox (which enforces it) and `svc plan` (which checks a file before anything is sent),
 * and how a request's redirect_uri matches a registered one. The rules, in one place:
 * - registration: https, or http on a loopback host (127.0.0.0/8, [::1], localhost); no fragment,
 *   user information or wildcard; no host label that mixes scripts (UTS 39 "highly restrictive",
 *   the rule browsers use to decide whether to show a host in Unicode: `exаmple` with a Cyrillic
 *   `а` passes for example.com). The consent page shows the host as the browser goes to it
 *   (punycode), so a label in one script that looks like another name is told apart there.
 * - matching (RFC 9700 §4.1.3, exact): the two as the browser goes to them (WHATWG URL: scheme and
 *   host lower-cased, an IDN host as punycode, a default port dropped) are the same string; except
 *   that a loopback IP literal (127.0.0.0/8, [::1]) over http may use any port (RFC 8252 §7.3).
 *   `localhost` is no IP literal (RFC 8252 §8.3: it may resolve elsewhere): it matches exactly,
 *   port included.
 */

import { domainToUnicode } from 'node:url';
import { isLoopbackHost, normalHttpUrl } from './loopback.js';

/** Script sets a host label may mix (UTS 39 §5.2, highly restrictive): one script, or one of these. */
const MIXABLE = [
  ['Latin', 'Han', 'Hiragana', 'Katakana'],
  ['Latin', 'Han', 'Bopomofo'],
  ['Latin', 'Han', 'Hangul'],
];
/**
 * Every script of Unicode 16 by its property name (\p{Script=…}), so that each letter is given
 * its own script and any two mixed in a label are told (review28c F7: 15 named, the rest were one
 * "another script", so Tamil with Telugu passed). A name this Node's Unicode lacks is left out.
 */
const SCRIPT_NAMES = `
  Adlam Ahom Anatolian_Hieroglyphs Arabic Armenian Avestan Balinese Bamum Bassa_Vah Batak Bengali
  Bhaiksuki Bopomofo Brahmi Braille Buginese Buhid Canadian_Aboriginal Carian Caucasian_Albanian
  Chakma Cham Cherokee Chorasmian Coptic Cuneiform Cypriot Cypro_Minoan Cyrillic Deseret Devanagari
  Dives_Akuru Dogra Duployan Egyptian_Hieroglyphs Elbasan Elymaic Ethiopic Georgian Glagolitic
  Gothic Grantha Greek Gujarati Gunjala_Gondi Gurmukhi Han Hangul Hanifi_Rohingya Hanunoo Hatran
  Hebrew Hiragana Imperial_Aramaic Inscriptional_Pahlavi Inscriptional_Parthian Javanese Kaithi
  Kannada Katakana Kawi Kayah_Li Kharoshthi Khitan_Small_Script Khmer Khojki Khudawadi Lao Latin
  Lepcha Limbu Linear_A Linear_B Lisu Lycian Lydian Mahajani Makasar Malayalam Mandaic Manichaean
  Marchen Masaram_Gondi Medefaidrin Meetei_Mayek Mende_Kikakui Meroitic_Cursive
  Meroitic_Hieroglyphs Miao Modi Mongolian Mro Multani Myanmar Nabataean Nag_Mundari Nandinagari
  New_Tai_Lue Newa Nko Nushu Nyiakeng_Puachue_Hmong Ogham Ol_Chiki Old_Hungarian Old_Italic
  Old_North_Arabian Old_Permic Old_Persian Old_Sogdian Old_South_Arabian Old_Turkic Old_Uyghur
  Oriya Osage Osmanya Pahawh_Hmong Palmyrene Pau_Cin_Hau Phags_Pa Phoenician Psalter_Pahlavi Rejang
  Runic Samaritan Saurashtra Sharada Shavian Siddham SignWriting Sinhala Sogdian Sora_Sompeng
  Soyombo Sundanese Syloti_Nagri Syriac Tagalog Tagbanwa Tai_Le Tai_Tham Tai_Viet Takri Tamil
  Tangsa Tangut Telugu Thaana Thai Tibetan Tifinagh Tirhuta Toto Ugaritic Vai Vithkuqi Wancho
  Warang_Citi Yezidi Yi Zanabazar_Square Garay Gurung_Khema Kirat_Rai Ol_Onal Sunuwar Todhri
  Tulu_Tigalari
`;
const SCRIPTS = SCRIPT_NAMES.split(/\s+/)
  .filter(Boolean)
  .flatMap((name) => {
    try {
      return [[name.replace(/_/g, ' '), new RegExp(`\\p{Script=${name}}`, 'u')] as const];
    } catch {
      return [];
    }
  });
/** Letters of no one script (Common, Inherited): they mix with any. */
const ANY_SCRIPT = /[\p{Script=Common}\p{Script=Inherited}]/u;

/** The scripts of a label's letters (Common and Inherited ones, digits and `-`, are none). */
function scriptsOf(label: string): string[] {
  const found = new Set<string>();
  for (const char of label) {
    if (!/\p{L}/u.test(char) || ANY_SCRIPT.test(char)) continue;
    found.add(SCRIPTS.find(([, pattern]) => pattern.test(char))?.[0] ?? 'a script newer than this Node');
  }
  return [...found];
}

/** Why a host may pass for another (a label mixing scripts), or undefined. */
function mixedScriptProblem(asciiHost: string): string | undefined {
  for (const ascii of asciiHost.split('.')) {
    const label = domainToUnicode(ascii) || ascii;
    const scripts = scriptsOf(label);
    if (scripts.length <= 1 || MIXABLE.some((set) => scripts.every((s) => set.includes(s)))) continue;
    const named = `${scripts.slice(0, -1).join(', ')} and ${scripts.at(-1)}`;
    return `has a host that mixes scripts (${named} in ${JSON.stringify(label)}, ${ascii}): it can pass for another host; register a host whose every label is in one script`;
  }
  return undefined;
}

/** A redirect URI as the browser goes to it (punycode host): what the consent page shows. */
export function redirectUriShown(uri: string): string {
  return normalHttpUrl(uri);
}

/** Why a redirect URI cannot be registered, or undefined when it can. */
export function redirectUriProblem(uri: string): string | undefined {
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return 'is not an absolute URI';
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return 'must use https (or http on loopback)';
  if (url.protocol === 'http:' && !isLoopbackHost(url.hostname))
    return 'may use http only on a loopback host (127.0.0.1, [::1], localhost)';
  if (url.hash !== '' || uri.includes('#')) return 'must not contain a fragment';
  if (url.username !== '' || url.password !== '') return 'must not contain user information';
  // Matched only literally, `https://*.example.com/cb` would register a host no browser reaches.
  if (url.hostname.includes('*'))
    return 'has a wildcard in its host: wildcards are not supported; register each redirect URI';
  return mixedScriptProblem(url.hostname);
}

/**
 * The redirect URIs of one client that repeat an earlier one, as WHATWG URL writes them (scheme
 * and host case, a default port, `/./`): `HTTPS://A.EXAMPLE:443/cb` is `https://a.example/cb`,
 * and the browser goes to the same place for both. Each as `[index, problem]`, the problem
 * naming the earlier spelling.
 */
export function repeatedRedirectUris(uris: readonly string[]): Array<[number, string]> {
  const first = new Map<string, number>();
  const repeats: Array<[number, string]> = [];
  uris.forEach((uri, i) => {
    const normal = normalHttpUrl(uri);
    const earlier = first.get(normal);
    if (earlier === undefined) {
      first.set(normal, i);
      return;
    }
    const problem =
      uris[earlier] === uri
        ? `repeats redirect_uris.${earlier}`
        : `is redirect_uris.${earlier} ${JSON.stringify(uris[earlier])} spelled another way (both are ${normal})`;
    repeats.push([i, `${problem}; register each redirect URI once`]);
  });
  return repeats;
}

/** A loopback IP literal (127.0.0.0/8, [::1]): `localhost` is a name, not one (RFC 8252 §8.3). */
const isLoopbackIp = (hostname: string) => hostname !== 'localhost' && isLoopbackHost(hostname);

/**
 * Exact match of the two as the browser goes to them (the rules at the top), except that a
 * loopback IP literal over http may use any port (RFC 8252 §7.3): native apps listen on an
 * ephemeral port chosen at run time.
 */
export function redirectUriMatches(registered: string, given: string): boolean {
  let r: URL;
  let g: URL;
  try {
    r = new URL(registered);
    g = new URL(given);
  } catch {
    return registered === given;
  }
  if (g.hash !== '' || given.includes('#') || g.username !== '' || g.password !== '') return false;
  if (r.href === g.href) return true;
  if (r.protocol !== 'http:' || g.protocol !== 'http:' || !isLoopbackIp(r.hostname)) return false;
  return r.hostname === g.hostname && r.pathname === g.pathname && r.search === g.search;
}

/** Where svc's loopback receiver listens (src/auth/loopback.ts): any port, this path. */
export const SVC_REDIRECT_EXAMPLE = 'http://127.0.0.1/callback';

/**
 * Whether a client with these redirect URIs can be used by `svc oauth authorize` / `svc login`:
 * svc redirects to http://127.0.0.1:PORT/callback, so one registered URI must match that.
 */
export function acceptsSvcRedirect(redirectUris: readonly string[]): boolean {
  return redirectUris.some((registered) => redirectUriMatches(registered, 'http://127.0.0.1:1/callback'));
}
