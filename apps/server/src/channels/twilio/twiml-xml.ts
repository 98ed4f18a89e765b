/**
 * TwiML's XML, written straight to text: the same document, byte for byte, as the twilio library's
 * VoiceResponse (xmlbuilder 13, its defaults) writes for the verbs twiml.ts uses. The library builds
 * a node tree with a stringifier and a writer object per element; on a Twilio call's path that was
 * 5 to 7 % of the server's CPU (bench/README.md, issue 40). twiml-xml.test.ts compares both on every
 * kind of element and text twiml.ts writes.
 */

/**
 * An element's attributes, as the library takes them: a list is joined with spaces, undefined
 * leaves the attribute out. Typed `object` so that the library's own attribute types (Twilio's
 * lists of languages and voices, which twiml.ts uses) fit.
 */
export type TwimlAttributes = object;

// xmlbuilder's XML 1.0 check of a text node: a character XML cannot hold is an error, not a document Twilio cannot read.
// eslint-disable-next-line no-control-regex -- the control characters XML 1.0 refuses are what it looks for
const INVALID_XML_CHAR = /[\0-\x08\x0B\f\x0E-\x1F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?:[^\uD800-\uDBFF]|^)[\uDC00-\uDFFF]/;
const TEXT_SPECIAL = /[&<>\r]/;
const ATTRIBUTE_SPECIAL = /[&<"\t\n\r]/;

/** A text node as xmlbuilder escapes it (`textEscape`, then `assertLegalChar`). */
function escapeText(text: string): string {
  const escaped = TEXT_SPECIAL.test(text) ? text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/\r/g, '&#xD;') : text;
  const invalid = INVALID_XML_CHAR.exec(escaped);
  if (invalid) throw new Error(`Invalid character in string: ${escaped} at index ${invalid.index}`);
  return escaped;
}

/** An attribute's value as the library's own stringifier writes it (`attEscape`, without xmlbuilder's character check). */
function escapeAttribute(value: string): string {
  if (!ATTRIBUTE_SPECIAL.test(value)) return value;
  return value.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/"/g, '&quot;').replace(/\t/g, '&#x9;').replace(/\n/g, '&#xA;').replace(/\r/g, '&#xD;');
}

function attributesXml(attributes: TwimlAttributes | undefined): string {
  let xml = '';
  if (attributes === undefined) return xml;
  const values = attributes as Readonly<Record<string, unknown>>;
  for (const name in values) {
    const value = values[name];
    if (value === undefined || value === null || !Object.hasOwn(values, name)) continue;
    const text = Array.isArray(value) ? value.join(' ') : String(value as string | number | boolean);
    xml += ` ${name}="${escapeAttribute(text)}"`;
  }
  return xml;
}

/** An element with its attributes and, as the library's verbs take it, one text or child elements. */
export class TwimlElement {
  private readonly children: TwimlElement[] = [];
  private readonly open: string;
  private readonly text: string;

  constructor(
    private readonly name: string,
    attributes?: TwimlAttributes,
    text?: string,
  ) {
    this.open = `<${name}${attributesXml(attributes)}`;
    this.text = text === undefined ? '' : escapeText(text);
  }

  /** Adds a child element and answers it. */
  add(name: string, attributes?: TwimlAttributes, text?: string): TwimlElement {
    const child = new TwimlElement(name, attributes, text);
    this.children.push(child);
    return child;
  }

  toXml(): string {
    if (this.children.length === 0) return this.text === '' ? `${this.open}/>` : `${this.open}>${this.text}</${this.name}>`;
    let xml = `${this.open}>${this.text}`;
    for (const child of this.children) xml += child.toXml();
    return `${xml}</${this.name}>`;
  }
}

/** A `<Response>` document, with the XML declaration the library writes. */
export class TwimlDocument extends TwimlElement {
  constructor() {
    super('Response');
  }

  override toString(): string {
    return `<?xml version="1.0" encoding="UTF-8"?>${this.toXml()}`;
  }
}
