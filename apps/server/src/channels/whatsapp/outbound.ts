/**
 * Engine actions as WhatsApp Cloud API messages (docs/channels-whatsapp.md, "Actions as
 * messages"): the bodies of `POST /{phone_number_id}/messages` without `to`, which the sender adds.
 * Meta refuses a message over its limits as a whole, so texts are split and titles shortened here.
 */
import { type AttachmentKind, checkAttachment, type ConversationMessage } from '@voxplan/contracts';
import type { ReplyOption } from '@voxplan/engine';
import { withAttachmentLink } from '../../modules/conversations/customer-router.ts';

/**
 * Meta's limits, in characters (code points), from the Cloud API's send-message reference
 * (https://developers.facebook.com/docs/whatsapp/cloud-api/reference/messages, text and interactive
 * objects) and the interactive messages guide
 * (https://developers.facebook.com/docs/whatsapp/guides/interactive-messages/): a text body 4,096;
 * an interactive body 1,024 for buttons and lists alike (a list's body over it is refused, and the
 * turn's later messages with it); at most 3 reply buttons of 20; at most 10 rows, titles of 24,
 * descriptions of 72; the list's button 20. Ids (256 for a button, 200 for a row) are an option's
 * digits here, far shorter; no header, footer or section title is sent.
 */
export const whatsappLimits = {
  text: 4096,
  buttons: 3,
  buttonBody: 1024,
  buttonTitle: 20,
  listRows: 10,
  listBody: 1024,
  listButton: 20,
  rowTitle: 24,
  rowDescription: 72,
} as const;

/** What opens a list: a symbol rather than a word, since a plan names no language. */
export const LIST_BUTTON = '☰';

/**
 * A template's parameter as the send-message reference types it
 * (https://developers.facebook.com/docs/whatsapp/cloud-api/reference/messages#parameter-object);
 * `parameter_name` names a named template's placeholder.
 */
export type GraphTemplateParameter = { parameter_name?: string } & (
  | { type: 'text'; text: string }
  | { type: 'currency'; currency: { fallback_value: string; code: string; amount_1000: number } }
  | { type: 'date_time'; date_time: { fallback_value: string } }
  | { type: 'image'; image: { link: string } }
  | { type: 'video'; video: { link: string } }
  | { type: 'document'; document: { link: string } }
  | { type: 'coupon_code'; coupon_code: string }
);

/** A template's component with its values (the reference's components object); a button's index is Meta's string. */
export type GraphTemplateComponent =
  | { type: 'header' | 'body'; parameters: GraphTemplateParameter[] }
  | { type: 'button'; sub_type: 'url' | 'copy_code'; index: string; parameters: GraphTemplateParameter[] };

export type GraphMessage =
  | { type: 'template'; template: { name: string; language: { code: string }; components: GraphTemplateComponent[] } }
  | { type: 'text'; text: { body: string; preview_url: false } }
  | { type: 'image'; image: { link: string } }
  | { type: 'audio'; audio: { link: string } }
  | { type: 'video'; video: { link: string } }
  | { type: 'document'; document: { link: string; filename: string } }
  | { type: 'interactive'; interactive: { type: 'button'; body: { text: string }; action: { buttons: Array<{ type: 'reply'; reply: { id: string; title: string } }> } } }
  | {
      type: 'interactive';
      interactive: {
        type: 'list';
        body: { text: string };
        action: { button: string; sections: Array<{ rows: Array<{ id: string; title: string; description?: string }> }> };
      };
    };

const codePoints = (text: string): string[] => Array.from(text);

/** At most `max` characters, the last one an ellipsis when something was cut. */
export function shorten(text: string, max: number): string {
  const chars = codePoints(text);
  return chars.length <= max ? text : `${chars.slice(0, max - 1).join('')}…`;
}

/**
 * The text in pieces of at most `max` characters, cut after the last line break (else space) of a
 * piece when it has one in its second half, so that words and lines stay whole where they can.
 */
export function splitText(text: string, max: number): string[] {
  const pieces: string[] = [];
  let rest = codePoints(text);
  while (rest.length > max) {
    const head = rest.slice(0, max);
    const line = head.lastIndexOf('\n');
    const space = head.lastIndexOf(' ');
    const cut = line >= max / 2 ? line + 1 : space >= max / 2 ? space + 1 : max;
    pieces.push(rest.slice(0, cut).join('').trimEnd());
    rest = rest.slice(cut);
  }
  const last = rest.join('');
  if (last.trim() !== '' || pieces.length === 0) pieces.push(last);
  return pieces.filter((piece) => piece.trim() !== '');
}

const textMessage = (body: string): GraphMessage => ({ type: 'text', text: { body, preview_url: false } });

/**
 * A file as a media message that Meta fetches from `link` (the send-message reference's media
 * object: https://developers.facebook.com/docs/whatsapp/cloud-api/reference/messages#media-object);
 * a document keeps its name, which WhatsApp shows.
 */
export function mediaMessage(kind: AttachmentKind, link: string, filename: string): GraphMessage {
  switch (kind) {
    case 'image':
      return { type: 'image', image: { link } };
    case 'audio':
      return { type: 'audio', audio: { link } };
    case 'video':
      return { type: 'video', video: { link } };
    case 'document':
      return { type: 'document', document: { link, filename } };
  }
}

/** A free-form text: one message, or several when it is longer than Meta takes. */
export function textMessages(text: string): GraphMessage[] {
  return splitText(text, whatsappLimits.text).map(textMessage);
}

/**
 * The text before an interactive message, and the body it keeps: the last piece that fits the
 * body's limit goes into it, the rest leaves first as text. A body is required; without a prompt
 * the choices themselves are its text.
 */
function withBody(text: string, max: number, options: readonly ReplyOption[]): { before: GraphMessage[]; body: string } {
  const pieces = splitText(text, max);
  const body = pieces.pop() ?? shorten(options.map((option) => option.label).join(' / '), max);
  return { before: pieces.map(textMessage), body };
}

/**
 * A chat reply: its text, with its choices as reply buttons (up to 3, every label whole within 20
 * characters), else a list (up to 10 rows; a label over 24 characters is shortened in the title and
 * given whole in the row's description), else numbered lines the user answers by number or label.
 */
export function replyMessages(text: string, options: readonly ReplyOption[] = []): GraphMessage[] {
  if (options.length === 0) return textMessages(text);
  const fitsButtons =
    options.length <= whatsappLimits.buttons &&
    options.every((option) => codePoints(option.label).length <= whatsappLimits.buttonTitle) &&
    new Set(options.map((option) => option.label)).size === options.length;
  if (fitsButtons) {
    const { before, body } = withBody(text, whatsappLimits.buttonBody, options);
    const buttons = options.map((option) => ({ type: 'reply' as const, reply: { id: option.id, title: option.label } }));
    return [...before, { type: 'interactive', interactive: { type: 'button', body: { text: body }, action: { buttons } } }];
  }
  if (options.length <= whatsappLimits.listRows) {
    const { before, body } = withBody(text, whatsappLimits.listBody, options);
    const rows = options.map((option) => {
      const title = shorten(option.label, whatsappLimits.rowTitle);
      return { id: option.id, title, ...(title !== option.label && { description: shorten(option.label, whatsappLimits.rowDescription) }) };
    });
    return [...before, { type: 'interactive', interactive: { type: 'list', body: { text: body }, action: { button: LIST_BUTTON, sections: [{ rows }] } } }];
  }
  const lines = options.map((option) => (option.label === option.id ? option.id : `${option.id} - ${option.label}`));
  return textMessages([text, ...lines].filter((line) => line.trim() !== '').join('\n'));
}

/**
 * A person's message as WhatsApp messages: its text, then an uploaded file as a media message of its
 * kind (Meta fetches the signed URL); a link someone gave, or a file WhatsApp does not take, goes as
 * text after the message's.
 */
export function personMessages(message: Pick<ConversationMessage, 'text' | 'attachment'>): GraphMessage[] {
  const { attachment } = message;
  const checked = attachment?.size != null ? checkAttachment('whatsapp', attachment.content_type, attachment.size) : null;
  if (!attachment || !checked?.ok) return textMessages(withAttachmentLink(message.text, attachment?.url));
  return [...(message.text ? textMessages(message.text) : []), mediaMessage(checked.rule.kind, attachment.url, attachment.name)];
}
