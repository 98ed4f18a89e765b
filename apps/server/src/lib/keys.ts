import { createCipheriv, createDecipheriv, createHash, hkdfSync, randomBytes, timingSafeEqual } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

export interface Keys {
  /** AES-256-GCM key for secrets stored in the database. */
  secretsKey: Buffer;
  /** HMAC key for access tokens. */
  tokenKey: Buffer;
  /** HMAC key for the signed media URLs telephony providers fetch audios by. */
  mediaKey: Buffer;
}

export function parseMasterKey(text: string): Buffer {
  const trimmed = text.trim();
  const key = /^[0-9a-f]{64}$/i.test(trimmed) ? Buffer.from(trimmed, 'hex') : Buffer.from(trimmed, 'base64');
  if (key.length !== 32) throw new Error('MASTER_KEY must be 32 bytes, as 64 hex digits or base64');
  return key;
}

/**
 * Every instance must share the master key: given in MASTER_KEY, or else generated once into the
 * data folder (which a single-instance install keeps across restarts).
 */
/** Where a master key generated for want of MASTER_KEY is kept. */
export const masterKeyFileOf = (dataDir: string): string => path.join(dataDir, 'master.key');

export function loadMasterKey(options: { masterKey: string | undefined; dataDir: string }): Buffer {
  if (options.masterKey) return parseMasterKey(options.masterKey);
  const file = masterKeyFileOf(options.dataDir);
  if (fs.existsSync(file)) return parseMasterKey(fs.readFileSync(file, 'utf8'));
  fs.mkdirSync(options.dataDir, { recursive: true });
  const key = randomBytes(32);
  fs.writeFileSync(file, key.toString('hex') + '\n', { mode: 0o600, flag: 'wx' });
  return key;
}

export function deriveKeys(masterKey: Buffer): Keys {
  const derive = (info: string) => Buffer.from(hkdfSync('sha256', masterKey, Buffer.alloc(0), info, 32));
  return { secretsKey: derive('voxplan secrets v1'), tokenKey: derive('voxplan access tokens v1'), mediaKey: derive('voxplan media urls v1') };
}

const CIPHER_PREFIX = 'v1:';

export function encryptSecret(key: Buffer, plain: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
  return CIPHER_PREFIX + Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64');
}

export function decryptSecret(key: Buffer, stored: string): string {
  if (!stored.startsWith(CIPHER_PREFIX)) throw new Error('not an encrypted secret');
  const raw = Buffer.from(stored.slice(CIPHER_PREFIX.length), 'base64');
  const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(0, 12));
  decipher.setAuthTag(raw.subarray(12, 28));
  return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
}

export const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');

export function safeEqualHex(a: string, b: string): boolean {
  const left = Buffer.from(a, 'hex');
  const right = Buffer.from(b, 'hex');
  return left.length === right.length && timingSafeEqual(left, right);
}

export const randomToken = (bytes = 32): string => randomBytes(bytes).toString('base64url');
