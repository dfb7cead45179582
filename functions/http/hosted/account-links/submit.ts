import { accountLinkResponse, sessionCookieName } from '#shared/account-links/pages.ts';
import { wireHostedFlow } from '#shared/account-links/wiring.ts';
import { htmlHandler } from '#shared/http/html-handler.ts';

const flow = wireHostedFlow();

/** POST /hosted/account_links/{secret}: a form post of the session the link's first visit opened. */
export const handler = htmlHandler(async (request) => {
  const visitor = { requestId: request.requestId, ip: request.sourceIp, userAgent: request.userAgent };
  const outcome = await flow.submit(request.pathParameters.secret ?? '', request.cookies[sessionCookieName], request.form, visitor);
  return accountLinkResponse(outcome, request);
});
