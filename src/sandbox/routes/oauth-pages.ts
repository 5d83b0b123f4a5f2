import type { FastifyReply } from 'fastify';

/**
 * The sandbox's HTML pages (consent and errors): self-contained — inline CSS, no scripts, no
 * external resources — and served with headers that keep them out of frames, caches and
 * Referer headers.
 */

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

const STYLE = `
body{font:15px/1.5 system-ui,sans-serif;max-width:34rem;margin:3rem auto;padding:0 1rem;color:#1d2330}
h1{font-size:1.3rem}.muted{color:#5b6474}.box{border:1px solid #d5d9e0;border-radius:8px;padding:1rem;margin:1rem 0}
ul{padding-left:1.2rem}label{display:block;margin:.3rem 0}code{background:#f1f3f6;padding:0 .25rem;border-radius:3px}
.actions{display:flex;gap:.75rem;margin-top:1.2rem}button{font:inherit;padding:.45rem 1.2rem;border-radius:6px;border:1px solid #9aa3b2;background:#fff;cursor:pointer}
button.primary{background:#1f5fd6;border-color:#1f5fd6;color:#fff}.error{border-color:#d93b3b;background:#fff5f5}`;

export const PAGE_HEADERS = {
  'content-security-policy':
    "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'",
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
  'x-content-type-options': 'nosniff',
  'cache-control': 'no-store',
};

export function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${escapeHtml(title)} · svc sandbox</title><style>${STYLE}</style></head>
<body>${body}</body></html>
`;
}

export function sendPage(reply: FastifyReply, status: number, title: string, body: string): FastifyReply {
  return reply.code(status).headers(PAGE_HEADERS).type('text/html; charset=utf-8').send(page(title, body));
}

/** An error the page shows instead of redirecting (unknown client, unregistered redirect URI, …). */
export function sendErrorPage(
  reply: FastifyReply,
  status: number,
  problem: string,
  detail: string,
): FastifyReply {
  return sendPage(
    reply,
    status,
    problem,
    `<h1>${escapeHtml(problem)}</h1><div class="box error"><p>${escapeHtml(detail)}</p></div>` +
      '<p class="muted">The application that sent you here is misconfigured, so you are not sent back to it.</p>',
  );
}

export interface ConsentView {
  ticket: string;
  clientName: string;
  clientId: string;
  clientDescription: string;
  tenant: string;
  scopes: Array<{ name: string; description: string }>;
  users: Array<{ id: string; name: string; email: string; detail: string }>;
  redirectUri: string;
}

export function consentPage(view: ConsentView): string {
  const users = view.users
    .map(
      (u, i) =>
        `<label><input type="radio" name="user_id" value="${escapeHtml(u.id)}"${i === 0 ? ' checked' : ''}> ` +
        `<strong>${escapeHtml(u.name)}</strong> <span class="muted">${escapeHtml(u.email)} · ${escapeHtml(u.detail)}</span></label>`,
    )
    .join('\n');
  const scopes = view.scopes
    .map((s) => `<li><code>${escapeHtml(s.name)}</code> — ${escapeHtml(s.description)}</li>`)
    .join('\n');
  return page(
    `Authorize ${view.clientName}`,
    `<h1>Authorize <span id="client-name">${escapeHtml(view.clientName)}</span></h1>
<p class="muted">Client <code>${escapeHtml(view.clientId)}</code>${view.clientDescription ? ` — ${escapeHtml(view.clientDescription)}` : ''}</p>
<form method="post" action="authorize">
<input type="hidden" name="ticket" value="${escapeHtml(view.ticket)}">
<div class="box"><p><strong>Tenant:</strong> <span id="tenant">${escapeHtml(view.tenant)}</span></p>
<p><strong>It asks to:</strong></p><ul id="scopes">${scopes}</ul></div>
<div class="box"><p><strong>Sign in as</strong> <span class="muted">(sandbox users)</span></p>
${users}</div>
<p class="muted">Approving sends you back to <code>${escapeHtml(view.redirectUri)}</code>.</p>
<div class="actions"><button class="primary" type="submit" name="decision" value="approve">Approve</button>
<button type="submit" name="decision" value="deny">Deny</button></div>
</form>`,
  );
}
