import type { TestProject } from 'vitest/node';
import { startPostgres } from './postgres-server.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    postgresUrl: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const external = process.env.TEST_DATABASE_URL;
  if (external) {
    project.provide('postgresUrl', external);
    return async () => {};
  }
  const server = await startPostgres();
  project.provide('postgresUrl', server.url);
  return () => server.stop();
}
