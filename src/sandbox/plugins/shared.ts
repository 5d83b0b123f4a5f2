/** The sandbox's error body, as text. */
export function errorBodyText(
  requestId: string,
  code: string,
  message: string,
  details?: Array<{ field: string; message: string }>,
): string {
  return JSON.stringify({ error: { code, message, request_id: requestId, ...(details ? { details } : {}) } });
}
