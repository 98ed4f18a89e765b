/**
 * A licence without practical limits for the servers tests and benchmarks start on this machine:
 * a key pair made once per process (its public half trusted through LICENSE_PUBLIC_KEYS), the
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

export function unlimitedTestLicenseEnv(): Promise<TestLicenseEnv> {
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
    return { LICENSE_PUBLIC_KEYS: keys.publicKey, LICENSE_FILE: file };
  })();
  return made;
}
