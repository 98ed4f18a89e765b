/**
 * `npm run licence -- <command>`: the vendor's licence tool (docs/licence.md).
 *
 *   keygen --out <dir>          a key pair: <dir>/licence-private.pem (keep it secret) and
 *                               <dir>/licence-public.txt (what the product ships, or LICENSE_PUBLIC_KEYS)
 *   issue --key <private.pem> --serial S --client C (--installation-id I | --hardware-id H)
 *         [--product Voxplan] [--status active|poc|blocked|canceled|expired] [--expires 2027-12-31|never]
 *         [--sessions 10] [--tenants 5] [--numbers 10] [--out file.lic]
 *                               a signed licence, to a file or standard output: for an installation
 *                               (every instance on its database; the licence screen shows its id)
 *                               or for one machine
 *   verify <file.lic> [--public-key <base64>]
 *                               what a licence says and whether the vendor's key (or the one given) signed it
 *   hardware-id                 this machine's hardware id, as System info shows it
 */
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { licenseStatuses, type LicenseStatus } from '@voxplan/contracts';
import { decodeLicense, generateLicenseKeyPair, issueLicense } from '../modules/license/license-document.ts';
import { trustedLicenseKeys } from '../modules/license/license.service.ts';
import { readHardwareId } from '../modules/system/system-info.routes.ts';

class CommandError extends Error {}

const positiveInt = (name: string, value: string | undefined, fallback: number): number => {
  if (value === undefined) return fallback;
  const number = Number(value);
  if (!Number.isInteger(number) || number < 1) throw new CommandError(`--${name} must be a whole number of 1 or more, got '${value}'`);
  return number;
};

function expiryOf(value: string | undefined): string | null {
  if (value === undefined || value === 'never') return null;
  // A date alone ends with its day, in UTC.
  const at = /^\d{4}-\d{2}-\d{2}$/.test(value) ? `${value}T23:59:59.999Z` : value;
  if (Number.isNaN(Date.parse(at))) throw new CommandError(`--expires must be a date (2027-12-31), a timestamp or "never", got '${value}'`);
  return new Date(at).toISOString();
}

function keygen(args: string[]): void {
  const { values } = parseArgs({ args, options: { out: { type: 'string' } } });
  if (!values.out) throw new CommandError('keygen needs --out <dir>');
  fs.mkdirSync(values.out, { recursive: true });
  const keys = generateLicenseKeyPair();
  const privateFile = path.join(values.out, 'licence-private.pem');
  if (fs.existsSync(privateFile)) throw new CommandError(`${privateFile} exists: a new key would orphan every licence it signed`);
  fs.writeFileSync(privateFile, keys.privateKey, { mode: 0o600 });
  fs.writeFileSync(path.join(values.out, 'licence-public.txt'), `${keys.publicKey}\n`);
  process.stdout.write(`private key: ${privateFile} (keep it secret)\npublic key:  ${keys.publicKey}\n`);
}

function issue(args: string[]): void {
  const { values } = parseArgs({
    args,
    options: {
      key: { type: 'string' },
      serial: { type: 'string' },
      client: { type: 'string' },
      product: { type: 'string', default: 'Voxplan' },
      status: { type: 'string', default: 'active' },
      expires: { type: 'string' },
      'installation-id': { type: 'string' },
      'hardware-id': { type: 'string' },
      sessions: { type: 'string' },
      tenants: { type: 'string' },
      numbers: { type: 'string' },
      out: { type: 'string' },
    },
  });
  for (const name of ['key', 'serial', 'client'] as const) if (!values[name]) throw new CommandError(`issue needs --${name}`);
  const installationId = values['installation-id'];
  const hardwareId = values['hardware-id'];
  if ((installationId === undefined) === (hardwareId === undefined)) throw new CommandError('issue needs --installation-id or --hardware-id (one of them)');
  if (!(licenseStatuses as readonly string[]).includes(values.status)) throw new CommandError(`--status is one of ${licenseStatuses.join(', ')}`);
  const document = issueLicense(
    {
      format: 1,
      serial: values.serial!,
      client: values.client!,
      product: values.product,
      status: values.status as LicenseStatus,
      issued_at: new Date().toISOString(),
      expires_at: expiryOf(values.expires),
      ...(installationId !== undefined ? { installation_id: installationId } : { hardware_id: hardwareId }),
      limits: { concurrent_sessions: positiveInt('sessions', values.sessions, 10), tenants: positiveInt('tenants', values.tenants, 5), numbers: positiveInt('numbers', values.numbers, 10) },
    },
    fs.readFileSync(values.key!, 'utf8'),
  );
  if (values.out) fs.writeFileSync(values.out, `${document}\n`);
  else process.stdout.write(`${document}\n`);
}

function verify(args: string[]): void {
  const { values, positionals } = parseArgs({ args, allowPositionals: true, options: { 'public-key': { type: 'string' } } });
  if (positionals.length !== 1) throw new CommandError('verify needs the licence file');
  const decoded = decodeLicense(fs.readFileSync(positionals[0]!, 'utf8'), trustedLicenseKeys(values['public-key']));
  if (!decoded.ok) throw new CommandError(`${decoded.problem}: ${decoded.detail}`);
  process.stdout.write(`${JSON.stringify(decoded.payload, null, 2)}\n`);
}

async function main(argv: string[]): Promise<void> {
  const [command, ...args] = argv;
  if (command === 'keygen') keygen(args);
  else if (command === 'issue') issue(args);
  else if (command === 'verify') verify(args);
  else if (command === 'hardware-id') process.stdout.write(`${await readHardwareId()}\n`);
  else throw new CommandError('usage: npm run licence -- keygen|issue|verify|hardware-id (see apps/server/src/cli/licence.ts)');
}

try {
  await main(process.argv.slice(2));
} catch (error) {
  if (!(error instanceof CommandError) && !(error instanceof TypeError)) throw error;
  process.stderr.write(`licence: ${error.message}\n`);
  process.exitCode = 2;
}
