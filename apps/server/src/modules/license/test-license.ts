/**
 * A licence without practical limits for the servers tests and benchmarks start on this machine:
 * a key pair made once per process tree (its public half trusted through LICENSE_PUBLIC_KEYS), the
 * licence issued for this server's hardware id and written to a file LICENSE_FILE names. The
 * licence's own tests start without it to see the defaults bite.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { readHardwareId } from '../system/system-info.routes.ts';
import { generateLicenseKeyPair, issueLicense } from './license-document.ts';

export interface TestLicenseEnv {
  LICENSE_PUBLIC_KEYS: string;
  LICENSE_FILE: string;
}

let made: Promise<TestLicenseEnv> | undefined;

/**
 * Where a process hands its test licence to the processes it starts (they inherit its
 * environment): servers of one database must trust one key, or the licence the first stored
 * would not verify on the others, which would fall back to the defaults.
 */
const INHERITED = { key: 'VOXPLAN_TEST_LICENSE_PUBLIC_KEY', file: 'VOXPLAN_TEST_LICENSE_FILE' } as const;

export function unlimitedTestLicenseEnv(): Promise<TestLicenseEnv> {
  const inheritedKey = process.env[INHERITED.key];
  const inheritedFile = process.env[INHERITED.file];
  if (inheritedKey && inheritedFile && fs.existsSync(inheritedFile)) made ??= Promise.resolve({ LICENSE_PUBLIC_KEYS: inheritedKey, LICENSE_FILE: inheritedFile });
  made ??= (async () => {
    const keys = generateLicenseKeyPair();
    const document = issueLicense(
      {
        format: 1,
        serial: 'TEST-UNLIMITED',
        client: 'Voxplan tests',
        product: 'Voxplan',
        status: 'active',
        issued_at: new Date().toISOString(),
        expires_at: null,
        hardware_id: await readHardwareId(),
        limits: { concurrent_sessions: 1_000_000, tenants: 1_000_000, numbers: 1_000_000 },
      },
      keys.privateKey,
    );
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'voxplan-licence-'));
    const file = path.join(dir, 'test.lic');
    fs.writeFileSync(file, document);
    process.env[INHERITED.key] = keys.publicKey;
    process.env[INHERITED.file] = file;
    return { LICENSE_PUBLIC_KEYS: keys.publicKey, LICENSE_FILE: file };
  })();
  return made;
}
