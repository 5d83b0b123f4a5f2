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
ul{padding-left:1.2rem}label{display:block;margin:.3rem 0}input[type=text],input:not([type]){font:inherit;padding:.35rem .5rem;width:100%;box-sizing:border-box}code{background:#f1f3f6;padding:0 .25rem;border-radius:3px}
.actions{display:flex;gap:.75rem;margin-top:1.2rem}button{font:inherit;padding:.45rem 1.2rem;border-radius:6px;border:1px solid #9aa3b2;background:#fff;cursor:pointer}
button.primary{background:#1f5fd6;border-color:#1f5fd6;color:#fff}.error{border-color:#d93b3b;background:#fff5f5}`;

export const PAGE_HEADERS = {
  'content-security-policy':
    "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'",
  // No Referer leaves the sandbox (the redirect to a client's redirect URI carries none), while the
  // page's own form POST keeps its Origin: under no-referrer a browser sends Origin: null, which the
  // sandbox refuses as cross-origin (plugins/host-origin.ts).
  'referrer-policy': 'same-origin',
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

export interface UserChoice {
  id: string;
  name: string;
  email: string;
  detail: string;
}

export interface ConsentView {
  ticket: string;
  /** Where the form posts: the authorization endpoint, or the device verification page. */
  action: 'authorize' | 'device';
  clientName: string;
  clientId: string;
  clientDescription: string;
  tenant: string;
  scopes: Array<{ name: string; description: string }>;
  /** A recent change of the client's scopes or redirect URIs: which, when, by whom (name, id). */
  changed?: { fields: string; at: string; by: string; byId: string };
  /** How many users may sign in here, and the few suggested (typeahead, no script). */
  userCount: number;
  suggestions: UserChoice[];
  /** What was typed, and why it was not accepted (the page is shown again). */
  typed?: string;
  problem?: string;
  /** What approving does: a sentence, and the URI or code it names. */
  outcome: { text: string; code: string };
}

/**
 * The consent page. Whom to sign in as is a text field (a user id or email) with a short list of
 * suggestions the browser offers as you type (`<datalist>`, no script), so the page is the same
 * size with 10 users or 100,000; a name that matches no one, or several, brings the page back
 * with the matches as suggestions (the lookup happens on the server).
 */
export function consentPage(view: ConsentView): string {
  const options = view.suggestions
    .map(
      (u) =>
        `<option value="${escapeHtml(u.id)}">${escapeHtml(u.name)} · ${escapeHtml(u.email)} · ${escapeHtml(u.detail)}</option>`,
    )
    .join('\n');
  const scopes = view.scopes
    .map((s) => `<li><code>${escapeHtml(s.name)}</code> — ${escapeHtml(s.description)}</li>`)
    .join('\n');
  const changed = view.changed
    ? `<div class="box error"><p id="changed">Recently changed: its ${escapeHtml(view.changed.fields)} were changed at ${escapeHtml(view.changed.at)} by ${view.changed.by ? `${escapeHtml(view.changed.by)} (<code>${escapeHtml(view.changed.byId)}</code>)` : `<code>${escapeHtml(view.changed.byId)}</code>`}. Approve only if you expected this.</p></div>\n`
    : '';
  const shown = view.suggestions.length;
  const hint =
    view.userCount > shown
      ? `${view.userCount.toLocaleString('en')} users can sign in here; type a user id or email (${shown} suggested).`
      : 'Type a user id or email, or pick a suggestion.';
  const examples = view.suggestions
    .slice(0, 3)
    .map((u) => `<code>${escapeHtml(u.id)}</code>`)
    .join(', ');
  return page(
    `Authorize ${view.clientName}`,
    `<h1>Authorize <span id="client-name">${escapeHtml(view.clientName)}</span></h1>
<p class="muted">Client <code>${escapeHtml(view.clientId)}</code>${view.clientDescription ? ` — ${escapeHtml(view.clientDescription)}` : ''}</p>
<form method="post" action="${view.action}">
<input type="hidden" name="ticket" value="${escapeHtml(view.ticket)}">
<div class="box"><p><strong>Tenant:</strong> <span id="tenant">${escapeHtml(view.tenant)}</span></p>
<p><strong>It asks to:</strong></p><ul id="scopes">${scopes}</ul></div>
${changed}<div class="box${view.problem ? ' error' : ''}"><p><label for="user_id"><strong>Sign in as</strong></label> <span class="muted">(a sandbox user)</span></p>
${view.problem ? `<p id="problem">${escapeHtml(view.problem)}</p>\n` : ''}<input id="user_id" name="user_id" list="users" required autocomplete="off" spellcheck="false" placeholder="user id or email" value="${escapeHtml(view.typed ?? '')}">
<datalist id="users">${options}</datalist>
<p class="muted" id="user-hint">${escapeHtml(hint)}${examples ? ` For example ${examples}.` : ''}</p></div>
<p class="muted">${escapeHtml(view.outcome.text)} <code>${escapeHtml(view.outcome.code)}</code>.</p>
<div class="actions"><button class="primary" type="submit" name="decision" value="approve">Approve</button>
<button type="submit" name="decision" value="deny" formnovalidate>Deny</button></div>
</form>`,
  );
}

/** RFC 8628 §3.3: the verification page where a user code is typed in (or was wrong). */
export function userCodePage(problem?: string, typed?: string): string {
  return page(
    'Connect a device',
    `<h1>Connect a device</h1>
<p class="muted">Enter the code your terminal shows (for example after <code>svc login --device</code>).</p>
<form method="get" action="device">
<div class="box${problem ? ' error' : ''}">${problem ? `<p id="problem">${escapeHtml(problem)}</p>` : ''}
<p><label for="user_code"><strong>Code</strong></label></p>
<input id="user_code" name="user_code" required autocomplete="off" spellcheck="false" placeholder="XXXX-XXXX" value="${escapeHtml(typed ?? '')}"></div>
<div class="actions"><button class="primary" type="submit">Continue</button></div>
</form>`,
  );
}
