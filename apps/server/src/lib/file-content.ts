/**
 * Whether a file's bytes are what its declared type says, by the signatures its format starts with
 * (as `file(1)` and the WHATWG MIME sniffing standard read them). A visitor's browser names a file by
 * its extension, and anyone may call the widget's API with any type: a file is taken only when its
 * content agrees, so that an executable renamed `receipt.pdf`, or a page renamed `photo.png`, is
 * refused rather than kept and offered to an agent.
 */

const startsWith = (bytes: Buffer, hex: string, offset = 0): boolean => bytes.subarray(offset, offset + hex.length / 2).equals(Buffer.from(hex, 'hex'));
const ascii = (bytes: Buffer, text: string, offset = 0): boolean => bytes.subarray(offset, offset + text.length).toString('latin1') === text;

/** ISO base media (MP4, M4A, 3GP): a `ftyp` box first. */
const isoMedia = (bytes: Buffer) => ascii(bytes, 'ftyp', 4);
/** ZIP (and the Office Open XML formats, which are ZIP files): a local file header, or an empty archive's end record. */
const zip = (bytes: Buffer) => startsWith(bytes, '504b0304') || startsWith(bytes, '504b0506');
/** The older Office formats (doc, xls, ppt): a Compound File Binary. */
const compoundFile = (bytes: Buffer) => startsWith(bytes, 'd0cf11e0a1b11ae1');
/** MPEG audio: an ID3 tag, or a frame's sync word (11 bits set). */
const mpegAudio = (bytes: Buffer) => ascii(bytes, 'ID3') || (bytes.length > 1 && bytes[0] === 0xff && (bytes[1]! & 0xe0) === 0xe0);

/**
 * Text a person reads: no control characters but tab, line feed, form feed, carriage return and
 * escape (UTF-8 and Latin-1 alike pass, as a spreadsheet's CSV export in either would). A NUL or
 * another control byte is a binary file.
 */
function isText(bytes: Buffer): boolean {
  for (const byte of bytes) {
    if (byte < 0x20 && byte !== 0x09 && byte !== 0x0a && byte !== 0x0c && byte !== 0x0d && byte !== 0x1b) return false;
    if (byte === 0x7f) return false;
  }
  return true;
}

const signatures: Readonly<Record<string, (bytes: Buffer) => boolean>> = {
  'image/jpeg': (bytes) => startsWith(bytes, 'ffd8ff'),
  'image/png': (bytes) => startsWith(bytes, '89504e470d0a1a0a'),
  'image/gif': (bytes) => ascii(bytes, 'GIF87a') || ascii(bytes, 'GIF89a'),
  'image/webp': (bytes) => ascii(bytes, 'RIFF') && ascii(bytes, 'WEBP', 8),
  'audio/mpeg': mpegAudio,
  'audio/ogg': (bytes) => ascii(bytes, 'OggS'),
  // ADTS frames (12 sync bits) or an ADIF header.
  'audio/aac': (bytes) => ascii(bytes, 'ADIF') || (bytes.length > 1 && bytes[0] === 0xff && (bytes[1]! & 0xf6) === 0xf0),
  'audio/amr': (bytes) => ascii(bytes, '#!AMR'),
  'audio/mp4': isoMedia,
  'audio/wav': (bytes) => ascii(bytes, 'RIFF') && ascii(bytes, 'WAVE', 8),
  'video/mp4': isoMedia,
  'video/3gpp': isoMedia,
  // EBML, of which WebM is a profile.
  'video/webm': (bytes) => startsWith(bytes, '1a45dfa3'),
  // A PDF reader finds the header within the first 1,024 bytes.
  'application/pdf': (bytes) => bytes.subarray(0, 1024).includes('%PDF-'),
  'application/zip': zip,
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document': zip,
  'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet': zip,
  'application/vnd.openxmlformats-officedocument.presentationml.presentation': zip,
  'application/msword': compoundFile,
  'application/vnd.ms-excel': compoundFile,
  'application/vnd.ms-powerpoint': compoundFile,
  'text/plain': isText,
  'text/csv': isText,
};

/**
 * Whether `bytes` look like `type` (a base MIME type, lower case). A type with no known signature
 * is not taken: the caller lists only types it can check.
 */
export function contentMatches(type: string, bytes: Buffer): boolean {
  const matches = signatures[type];
  return matches !== undefined && bytes.length > 0 && matches(bytes);
}

/** The types whose content `contentMatches` can check. */
export const sniffedTypes: ReadonlySet<string> = new Set(Object.keys(signatures));
