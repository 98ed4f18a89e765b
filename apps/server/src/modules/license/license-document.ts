/**
 * Licence documents (docs/licence.md): `<payload>.<signature>`, both base64url, the signature
 * Ed25519 over the payload's JSON bytes. Made by the vendor's tool (scripts/licence.ts), read by
 * the server. Node's own crypto does the signing: no dependency for 64 bytes of maths.
 */
import { createPrivateKey, createPublicKey, generateKeyPairSync, type KeyObject, sign, verify } from 'node:crypto';
import { type LicensePayload, licensePayloadSchema } from '@voxplan/contracts';

export interface LicenseKeyPair {
  /** SPKI DER, base64: what the product ships (vendor-key.ts) or LICENSE_PUBLIC_KEYS lists. */
  publicKey: string;
  /** PKCS#8 PEM: what the vendor keeps to itself. */
  privateKey: string;
}

export function generateLicenseKeyPair(): LicenseKeyPair {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  return {
    publicKey: publicKey.export({ type: 'spki', format: 'der' }).toString('base64'),
    privateKey: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
  };
}

export function publicKeyFrom(base64: string): KeyObject {
  return createPublicKey({ key: Buffer.from(base64.trim(), 'base64'), format: 'der', type: 'spki' });
}

/** Signs a payload with the vendor's private key (PEM). The payload is checked first: the server would refuse a bad one. */
export function issueLicense(payload: LicensePayload, privateKeyPem: string): string {
  const checked = licensePayloadSchema.parse(payload);
  const bytes = Buffer.from(JSON.stringify(checked));
  const signature = sign(null, bytes, createPrivateKey(privateKeyPem));
  return `${bytes.toString('base64url')}.${signature.toString('base64url')}`;
}

/** Why a document cannot be used; each is an error code of the catalogue. */
export type LicenseDocumentProblem = 'license_decrypt_error' | 'license_invalid_signature' | 'license_invalid_serial';

export type DecodedLicense = { ok: true; payload: LicensePayload; document: string } | { ok: false; problem: LicenseDocumentProblem; detail: string };

const BASE64URL = /^[A-Za-z0-9_-]+$/;

/**
 * Reads a document as pasted or uploaded (white space anywhere is dropped: mail clients wrap long
 * lines) and checks its signature against the trusted keys before anything in it is believed.
 */
export function decodeLicense(text: string, trustedKeys: readonly KeyObject[]): DecodedLicense {
  const document = text.replace(/\s+/g, '');
  const parts = document.split('.');
  if (parts.length !== 2 || !parts.every((part) => BASE64URL.test(part))) {
    return { ok: false, problem: 'license_decrypt_error', detail: 'not two base64url parts joined by a dot' };
  }
  const bytes = Buffer.from(parts[0]!, 'base64url');
  const signature = Buffer.from(parts[1]!, 'base64url');
  if (!trustedKeys.some((key) => signature.length === 64 && verify(null, bytes, key, signature))) {
    return { ok: false, problem: 'license_invalid_signature', detail: 'signed by none of the trusted keys' };
  }
  let json: unknown;
  try {
    json = JSON.parse(bytes.toString('utf8'));
  } catch {
    return { ok: false, problem: 'license_decrypt_error', detail: 'the payload is not JSON' };
  }
  const parsed = licensePayloadSchema.safeParse(json);
  if (!parsed.success) {
    const serialIssue = parsed.error.issues.some((issue) => issue.path[0] === 'serial');
    return { ok: false, problem: serialIssue ? 'license_invalid_serial' : 'license_decrypt_error', detail: parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('; ') };
  }
  return { ok: true, payload: parsed.data, document };
}
