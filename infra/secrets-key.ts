import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import { Key } from 'aws-cdk-lib/aws-kms';
import { Construct } from 'constructs';

/**
 * The key that seals webhook signing secrets (shared/secrets/): a data key per secret from `GenerateDataKey`,
 * bound to the secret's account, mode and object by its encryption context. Separate from the table's key,
 * which every function that reads the table uses through DynamoDB: only the functions granted
 * `secrets:seal` (GenerateDataKey) or `secrets:open` (Decrypt) may use this one, directly. Rotated yearly
 * (old key material stays to decrypt), retained like the table: without it no sealed secret opens.
 */
export class SecretsKey extends Construct {
  readonly key: Key;

  constructor(scope: Construct, id: string) {
    super(scope, id);
    this.key = new Key(this, 'Key', {
      description: 'Service API: seals webhook signing secrets (envelope encryption)',
      enableKeyRotation: true,
      removalPolicy: RemovalPolicy.RETAIN,
      pendingWindow: Duration.days(30),
    });
  }
}
