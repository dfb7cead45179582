import { allows, type Permission } from '#functions/permissions.ts';
import { callScope, type AwsAction, type CallScope } from '#shared/aws/aws-calls.ts';
import { queues } from '#shared/messaging/queues.ts';

/** The error an SDK call gets when IAM refuses it, with the name AWS gives it. */
export class AccessDeniedError extends Error {
  override name = 'AccessDeniedException';
}

/** Which of the service's queues a queue URL is, from the queue URL variables of the environment. */
function queueNameOf(url: string): string | undefined {
  return Object.entries(queues).find(([, queue]) => process.env[queue.urlVariable] === url)?.[0];
}

/**
 * The calls of one invocation of `functionName`, recorded and refused as its IAM policy on AWS would
 * refuse them: the stack grants each function exactly its route-table permissions, so a call outside them
 * fails here too, in the tests, instead of on the first request after a deploy.
 */
export function functionCallScope(functionName: string, permissions: readonly Permission[], measure = false): CallScope {
  return callScope({
    measure,
    authorize: (actions: AwsAction[]) => {
      const refused = actions.find((action) => !allows(permissions, action, queueNameOf));
      if (refused) {
        const error = new AccessDeniedError(
          `${functionName} is not authorized to perform ${refused.action}${refused.resource ? ` on ${refused.resource}` : ''}: its permissions in functions/routes.ts are ${permissions.join(', ') || 'none'}`,
        );
        console.error(error.message);
        throw error;
      }
    },
  });
}
