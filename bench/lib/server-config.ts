/** What every bench's server child runs with: the real app's configuration on a throwaway data dir. */
import { randomBytes } from 'node:crypto';
import { type Config, loadConfig } from '../../apps/server/src/config.ts';
import { unlimitedTestLicenseEnv } from '../../apps/server/src/modules/license/test-license.ts';

/** The administrator a bench server creates on its first start, and signs in as. */
export const BENCH_ADMIN = { username: 'admin', password: 'bench-admin-password-1' };

/**
 * Silent, on loopback, on a free port, with tokens that outlive any run; on SQLite in `dataDir`
 * unless given a database URL. `env` sets more (PUBLIC_URL; a MASTER_KEY that instances of one
 * database share, else each start makes its own).
 */
export async function benchServerConfig(dataDir: string, databaseUrl?: string, env: Record<string, string> = {}): Promise<Config> {
  return loadConfig({
    // 32 calls at a time and 10,000 chats are far past the limits without a licence.
    ...(await unlimitedTestLicenseEnv()),
    DATA_DIR: dataDir,
    ...(databaseUrl !== undefined && { DATABASE_URL: databaseUrl }),
    HOST: '127.0.0.1',
    PORT: '0',
    LOG_LEVEL: 'silent',
    ADMIN_USERNAME: BENCH_ADMIN.username,
    ADMIN_PASSWORD: BENCH_ADMIN.password,
    MASTER_KEY: randomBytes(32).toString('hex'),
    ACCESS_TOKEN_TTL: '7200',
    ...env,
  });
}
