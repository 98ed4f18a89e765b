import { createHmac, timingSafeEqual } from 'node:crypto';

/** Where a provider fetches an audio: `/api/v1/media/audios/<id>?exp=…&sig=…` below PUBLIC_URL. */
export const mediaAudioPath = (audioId: number): string => `/api/v1/media/audios/${audioId}`;

/**
 * Long enough for any call to reach the prompt it was made for (a turn's TwiML plays at once; a
 * retried callback answers the URL stored with the turn), short enough that a URL seen in a
 * provider's log stops working the same day.
 */
export const MEDIA_URL_TTL_SECONDS = 6 * 3600;

/** Where a channel (WhatsApp's Graph API, the widget, the console) fetches a conversation's file. */
export const mediaAttachmentPath = (attachmentId: number): string => `/api/v1/media/attachments/${attachmentId}`;

export type MediaCheck = 'ok' | 'invalid' | 'expired';

export interface MediaUrls {
  /** The signed URL of the audio's telephony copy, valid for MEDIA_URL_TTL_SECONDS from `now`. */
  audioUrl(audioId: number, now?: Date): string;
  /** Whether `exp` and `sig` (as received, possibly missing) sign this audio and have not expired at `now`. */
  check(audioId: number, exp: string | undefined, sig: string | undefined, now?: Date): MediaCheck;
  /**
   * The signed URL of a text spoken by espeak-ng in a language (BCP 47) and, optionally, one of its
   * voice variants (`/media/speech.wav`), for a channel without speech of its own (Asterisk). The
   * text travels in the URL, so any instance can speak it.
   */
  speechUrl(text: string, language: string, voice?: string, now?: Date): string;
  checkSpeech(text: string, language: string, voice: string, exp: string | undefined, sig: string | undefined, now?: Date): MediaCheck;
  /** The signed URL of a file sent in a conversation (docs/conversations.md, "Attachments"). */
  attachmentUrl(attachmentId: number, now?: Date): string;
  checkAttachment(attachmentId: number, exp: string | undefined, sig: string | undefined, now?: Date): MediaCheck;
}

export const mediaSpeechPath = '/api/v1/media/speech.wav';

/**
 * Audio URLs a telephony provider can fetch without a user's token (issue 15, media): the path and
 * an expiry signed with HMAC-SHA256 under a key derived from MASTER_KEY, so every instance signs and
 * checks alike and nothing is stored. The signature covers the path, so it opens one audio only.
 */
export function createMediaUrls(key: Buffer, publicUrl: string): MediaUrls {
  // What is signed names the kind of media and everything that chooses its content.
  const sign = (subject: string, exp: number) => createHmac('sha256', key).update(`${subject}\n${exp}`).digest('base64url');
  const audioSubject = (audioId: number) => mediaAudioPath(audioId);
  const speechSubject = (text: string, language: string, voice: string) => `${mediaSpeechPath}\n${language}\n${voice}\n${text}`;
  const expiry = (now: Date) => Math.floor(now.getTime() / 1000) + MEDIA_URL_TTL_SECONDS;
  const check = (subject: string, exp: string | undefined, sig: string | undefined, now: Date): MediaCheck => {
    if (exp === undefined || sig === undefined || !/^\d{1,12}$/.test(exp)) return 'invalid';
    const expected = Buffer.from(sign(subject, Number(exp)));
    const given = Buffer.from(sig);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return 'invalid';
    return Number(exp) * 1000 <= now.getTime() ? 'expired' : 'ok';
  };
  // The path alone is signed for a file of its own: the subject is the path the URL names.
  const pathUrl = (subject: string, now: Date) => {
    const exp = expiry(now);
    return `${publicUrl}${subject}?exp=${exp}&sig=${sign(subject, exp)}`;
  };
  return {
    audioUrl: (audioId, now = new Date()) => pathUrl(audioSubject(audioId), now),
    check: (audioId, exp, sig, now = new Date()) => check(audioSubject(audioId), exp, sig, now),
    speechUrl(text, language, voice = '', now = new Date()) {
      const exp = expiry(now);
      const query = new URLSearchParams({ lang: language, ...(voice && { voice }), text, exp: String(exp), sig: sign(speechSubject(text, language, voice), exp) });
      return `${publicUrl}${mediaSpeechPath}?${query.toString()}`;
    },
    checkSpeech: (text, language, voice, exp, sig, now = new Date()) => check(speechSubject(text, language, voice), exp, sig, now),
    attachmentUrl: (attachmentId, now = new Date()) => pathUrl(mediaAttachmentPath(attachmentId), now),
    checkAttachment: (attachmentId, exp, sig, now = new Date()) => check(mediaAttachmentPath(attachmentId), exp, sig, now),
  };
}
