import type { Headers } from './send.js';

/** A header's value, the first when it came more than once (undici gives an array then). */
export function header(headers: Headers, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}
