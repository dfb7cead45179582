import { createHash } from 'node:crypto';

/** Escapes text for HTML element content and double-quoted attribute values. */
export const escapeHtml = (text: string): string =>
  text.replace(/[&<>"']/g, (char) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[char]!);

const stylesheet = `
:root { color-scheme: light; font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; line-height: 1.5; color: #0b0c0c; }
body { margin: 0; background: #f3f2f1; }
main { max-width: 40rem; margin: 2rem auto; padding: 1.5rem 2rem 2rem; background: #fff; border-radius: 6px; }
h1 { font-size: 1.75rem; margin: 0 0 1rem; }
.field, fieldset { margin: 0 0 1.5rem; }
fieldset { border: 0; padding: 0; }
legend { font-weight: 700; font-size: 1.125rem; margin-bottom: .5rem; }
label { display: block; font-weight: 600; margin-bottom: .25rem; }
.inline label, .choice label { display: inline; font-weight: 400; }
.hint { color: #505a5f; margin: 0 0 .25rem; }
input[type=text], input[type=email], input[type=url], select { font: inherit; padding: .4rem; border: 2px solid #0b0c0c; border-radius: 0; width: 100%; box-sizing: border-box; max-width: 30rem; }
.date-group { display: flex; gap: 1rem; }
.date-group .field { margin: 0; }
.date-group input { width: 5rem; }
.date-group .year input { width: 7rem; }
.choice { margin: .25rem 0; }
input[type=radio], input[type=checkbox] { width: 1.25rem; height: 1.25rem; vertical-align: middle; margin-right: .5rem; }
input:focus, select:focus, button:focus, a:focus { outline: 3px solid #fd0; outline-offset: 0; box-shadow: inset 0 0 0 2px; }
.field-error { border-left: 5px solid #d4351c; padding-left: 1rem; }
input[aria-invalid=true], select[aria-invalid=true] { border-color: #d4351c; }
.error-message { color: #d4351c; font-weight: 700; margin: 0 0 .25rem; }
.error-summary { border: 5px solid #d4351c; padding: 1rem; margin-bottom: 1.5rem; }
.error-summary h2 { margin-top: 0; font-size: 1.25rem; }
.error-summary a { color: #d4351c; font-weight: 700; }
.notice { border-left: 5px solid #1d70b8; padding: .5rem 1rem; margin-bottom: 1.5rem; background: #eef4fa; }
button, .button { font: inherit; font-weight: 600; background: #00703c; color: #fff; border: 0; padding: .6rem 1.2rem; cursor: pointer; text-decoration: none; display: inline-block; }
.visually-hidden { position: absolute !important; width: 1px; height: 1px; margin: 0; padding: 0; overflow: hidden; clip: rect(0 0 0 0); border: 0; white-space: nowrap; }
`;

/**
 * Headers for every HTML page: nothing cached, no scripts at all, no framing, and no Referer (the URL
 * holds a secret). `form-action` is left open because a form post ends with a redirect to the platform.
 */
export const htmlHeaders: Record<string, string> = {
  'Content-Type': 'text/html; charset=utf-8',
  'Cache-Control': 'no-store',
  'Content-Security-Policy': `default-src 'none'; style-src 'sha256-${createHash('sha256').update(stylesheet).digest('base64')}'; img-src 'self'; base-uri 'none'; frame-ancestors 'none'`,
  'Referrer-Policy': 'no-referrer',
  'X-Content-Type-Options': 'nosniff',
  'X-Frame-Options': 'DENY',
};

/** A complete page; `main` is trusted HTML, `title` is text. */
export const htmlDocument = (title: string, main: string): string =>
  `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>${escapeHtml(title)}</title>
<style>${stylesheet}</style>
</head>
<body>
<main id="main">
${main}
</main>
</body>
</html>
`;

/** A page with a heading and a paragraph of text. */
export const messagePage = (title: string, message: string): string => htmlDocument(title, `<h1>${escapeHtml(title)}</h1>\n<p>${escapeHtml(message)}</p>`);

/** What a hosted page sees of its request. No API key: the URL (and a cookie) are the credential. */
export interface HtmlRequest {
  requestId: string;
  method: string;
  path: string;
  pathParameters: Record<string, string>;
  cookies: Record<string, string>;
  /** The fields of a form-encoded POST body, first value of each name; empty for GET. */
  form: Record<string, string>;
  sourceIp: string;
  userAgent: string;
  /** The request came in over HTTPS (cookies get `Secure`). */
  secure: boolean;
}

export interface HtmlResult {
  status: number;
  html?: string;
  /** For redirects. */
  location?: string;
  /** `Set-Cookie` values. */
  cookies?: string[];
}
