/**
 * What the console asks of the feature settings, apart from their schemas: a value imported from
 * the package's index brings every schema (and zod) into the route that imports it.
 */
import type { FeatureName, Features } from './configuration.ts';

/** Whether `name` is a feature setting that is on (false for any other name, and before the features are known). */
export function isFeatureOn(features: Features | undefined, name: string): boolean {
  return features !== undefined && Object.hasOwn(features, name) && features[name as FeatureName];
}
