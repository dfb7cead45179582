import { CfnOutput, Duration, Stack, type StackProps } from 'aws-cdk-lib';
import { HttpApi, HttpMethod, HttpRoute, HttpRouteKey, PayloadFormatVersion } from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import type { Construct } from 'constructs';
import {
  fallbackRoute as defaultFallbackRoute,
  queueWorkers as defaultQueueWorkers,
  routes as defaultRoutes,
  type QueueWorker,
  type Route,
} from '#functions/routes.ts';
import { queues as queueDefinitions } from '#shared/messaging/queues.ts';
import { ServiceFunction, type ServiceResources } from './service-function.ts';

/** A function that answers whatever no route matched. */
export type FallbackRoute = Pick<Route, 'name' | 'handler' | 'permissions'>;

export interface StatelessStackProps extends StackProps {
  /** Usually the stateful stack, which exposes exactly these properties. */
  resources: ServiceResources;
  /** @default - `routes` from functions/routes.ts */
  routes?: Route[];
  /** @default - `fallbackRoute` from functions/routes.ts */
  fallbackRoute?: FallbackRoute;
  /** @default - `queueWorkers` from functions/routes.ts */
  queueWorkers?: QueueWorker[];
}

/** Queue workers may run longer than API functions, but never longer than their queue's visibility timeout. */
const workerTimeout = Duration.seconds(30);

/**
 * Everything that can be replaced at will: the HTTP API with one function per route of the route table,
 * the fallback function on `$default`, and one function per queue worker. Each function's construct id
 * is its name in the route table.
 */
export class StatelessStack extends Stack {
  readonly api: HttpApi;
  /** Every function of the stack by its route-table name. */
  readonly functions: Record<string, ServiceFunction> = {};

  constructor(scope: Construct, id: string, props: StatelessStackProps) {
    super(scope, id, props);
    const { resources } = props;
    const routes = props.routes ?? defaultRoutes;
    const fallbackRoute = props.fallbackRoute ?? defaultFallbackRoute;
    const queueWorkers = props.queueWorkers ?? defaultQueueWorkers;

    this.api = new HttpApi(this, 'HttpApi', {
      apiName: this.stackName,
      description: 'Service API; routes come from functions/routes.ts',
    });

    for (const route of routes) {
      this.addRoute(route, HttpRouteKey.with(route.path, HttpMethod[route.method]), resources);
    }
    this.addRoute(fallbackRoute, HttpRouteKey.DEFAULT, resources);

    for (const worker of queueWorkers) {
      const visibilityTimeoutSeconds = queueDefinitions[worker.queue].visibilityTimeoutSeconds;
      if (workerTimeout.toSeconds() > visibilityTimeoutSeconds) {
        throw new Error(
          `Worker ${worker.name} times out after ${workerTimeout.toSeconds()} s, longer than the ${visibilityTimeoutSeconds} s visibility timeout of queue ${worker.queue}`,
        );
      }
      const fn = this.addFunction(worker.name, worker.handler, worker.permissions, resources, workerTimeout);
      fn.function.addEventSource(
        new SqsEventSource(resources.queues[worker.queue].queue, {
          batchSize: worker.batchSize ?? 10,
          maxBatchingWindow: Duration.seconds(1),
          reportBatchItemFailures: true,
        }),
      );
    }

    new CfnOutput(this, 'ApiUrl', { value: this.api.apiEndpoint, description: 'Base URL of the API' });
    new CfnOutput(this, 'TableName', { value: resources.table.tableName, description: 'The single DynamoDB table' });
  }

  private addRoute(route: FallbackRoute, routeKey: HttpRouteKey, resources: ServiceResources): void {
    const fn = this.addFunction(route.name, route.handler, route.permissions, resources);
    new HttpRoute(this, `${route.name}Route`, {
      httpApi: this.api,
      routeKey,
      integration: new HttpLambdaIntegration(`${route.name}Integration`, fn.function, {
        payloadFormatVersion: PayloadFormatVersion.VERSION_2_0,
      }),
    });
  }

  private addFunction(
    name: string,
    entry: string,
    permissions: Route['permissions'],
    resources: ServiceResources,
    timeout?: Duration,
  ): ServiceFunction {
    if (this.functions[name]) {
      throw new Error(`Two functions are named ${name}; names in functions/routes.ts must be unique`);
    }
    const fn = new ServiceFunction(this, name, { entry, permissions, resources, timeout });
    this.functions[name] = fn;
    return fn;
  }
}
