import { accountLinkResponse, sessionCookieName } from '#shared/account-links/pages.ts';
import { wireHostedFlow } from '#shared/account-links/wiring.ts';
import { htmlHandler } from '#shared/http/html-handler.ts';

const flow = wireHostedFlow();

/** POST /hosted/account_links/{secret}: a form post of the session the link's first visit opened. */
export const handler = htmlHandler(
  {
    summary: "Submit an account link's hosted form",
    description: "A form post of the hosted onboarding page. The session cookie the visit set and the link's secret are the credentials.",
  },
  async (request) => {
    const visitor = { requestId: request.requestId, ip: request.sourceIp, userAgent: request.userAgent };
    const outcome = await flow.submit(request.pathParameters.secret ?? '', request.cookies[sessionCookieName], request.form, visitor);
    return accountLinkResponse(outcome, request);
  },
);
