import { parse } from 'content-disposition';
import { api, type RequestOptions } from './client.ts';

/** The file name an attachment header gives (its UTF-8 `filename*` first), or undefined. */
export function attachmentName(header: string | null): string | undefined {
  if (!header) return undefined;
  try {
    const name = parse(header).parameters.filename;
    return name || undefined;
  } catch {
    // A header the parser refuses names no file: the caller's own name serves.
    return undefined;
  }
}

/**
 * Saves a file the API serves (with the bearer token, which a plain link cannot send) under the
 * name the server gives it, else `fallbackName`.
 */
export async function downloadAttachment(path: string, fallbackName: string, options: Omit<RequestOptions, 'body'> = {}): Promise<void> {
  const { blob, contentDisposition } = await api.attachment(path, options);
  saveBlob(blob, attachmentName(contentDisposition) ?? fallbackName);
}

/** Hands a file made or fetched in the page to the browser's download, as `name`. */
export function saveBlob(blob: Blob, name: string): void {
  const url = URL.createObjectURL(blob);
  try {
    const link = document.createElement('a');
    link.href = url;
    link.download = name;
    document.body.append(link);
    link.click();
    link.remove();
  } finally {
    // The click has handed the blob to the browser's download; the URL is no longer needed.
    setTimeout(() => URL.revokeObjectURL(url), 0);
  }
}
