/**
 * The vendor's public key (Ed25519, SPKI DER in base64): the licences the product believes. Its
 * private half never enters this repository; the vendor signs licences with it through
 * `npm run licence -- issue`. More keys can be trusted through LICENSE_PUBLIC_KEYS (tests, the
 * vendor's own staging servers), never fewer.
 */
export const VENDOR_LICENSE_PUBLIC_KEY = 'MCowBQYDK2VwAyEAjsbG/V7zwnOQne/w0L06yibEZbmprG0iA8b/n57INGg=';
