/** The widget's words, in the page's language: English, or Brazilian Portuguese. */
const en = {
  open: 'Open chat',
  close: 'Close chat',
  title: 'Chat',
  messages: 'Messages',
  message: 'Your message',
  placeholder: 'Type your message…',
  send: 'Send',
  typing: 'Typing…',
  you: 'You',
  them: 'Assistant',
  /** `{name}`: the person who has the conversation. */
  agentTyping: '{name} is typing…',
  /** A file someone sent, by its name: `{name}`. */
  download: 'Download {name}',
  attachment: 'Attachment',
  options: 'Choose an option',
  ended: 'This conversation has ended.',
  restart: 'Start a new conversation',
  rateLimited: 'Too many messages; wait a moment and try again.',
  busy: 'Too many conversations are open right now; try again in a few minutes.',
  refused: 'This chat is not available on this page.',
  failed: 'Something went wrong. Try again.',
  prechatIntro: 'Before we start, tell us who you are.',
  name: 'Your name',
  email: 'Your e-mail',
  startChat: 'Start chat',
  prechatInvalid: 'Fill in each field; an e-mail reads as name@example.com.',
  identity: 'This chat could not confirm who you are. Reload the page and try again.',
  attach: 'Attach a file',
  /** `{type}`: the file's type, or its extension. */
  fileType: 'This chat does not take {type} files.',
  /** `{size}`: megabytes. */
  fileTooLarge: 'This file is too big: this chat takes up to {size} MB of this type.',
  /** `{type}`: the type its name gives it. */
  fileContent: 'This file is not the {type} file its name says; it was not sent.',
  filesNeedPerson: 'You can send files once a person answers this chat.',
  /** `{name}`: the file going up. */
  uploading: 'Sending {name}…',
  dropHere: 'Drop the file to send it',
};

export type Words = typeof en;

const pt: Words = {
  open: 'Abrir chat',
  close: 'Fechar chat',
  title: 'Chat',
  messages: 'Mensagens',
  message: 'Sua mensagem',
  placeholder: 'Digite sua mensagem…',
  send: 'Enviar',
  typing: 'Digitando…',
  you: 'Você',
  them: 'Atendente',
  agentTyping: '{name} está digitando…',
  download: 'Baixar {name}',
  attachment: 'Anexo',
  options: 'Escolha uma opção',
  ended: 'Esta conversa foi encerrada.',
  restart: 'Iniciar uma nova conversa',
  rateLimited: 'Mensagens demais; aguarde um instante e tente novamente.',
  busy: 'Há conversas demais abertas agora; tente novamente em alguns minutos.',
  refused: 'Este chat não está disponível nesta página.',
  failed: 'Algo deu errado. Tente novamente.',
  prechatIntro: 'Antes de começar, diga-nos quem você é.',
  name: 'Seu nome',
  email: 'Seu e-mail',
  startChat: 'Iniciar conversa',
  prechatInvalid: 'Preencha cada campo; um e-mail tem a forma nome@exemplo.com.',
  identity: 'Este chat não pôde confirmar quem você é. Recarregue a página e tente novamente.',
  attach: 'Anexar um arquivo',
  fileType: 'Este chat não aceita arquivos {type}.',
  fileTooLarge: 'Este arquivo é grande demais: este chat aceita até {size} MB deste tipo.',
  fileContent: 'Este arquivo não é o arquivo {type} que o nome indica; não foi enviado.',
  filesNeedPerson: 'Você poderá enviar arquivos quando uma pessoa atender este chat.',
  uploading: 'Enviando {name}…',
  dropHere: 'Solte o arquivo para enviá-lo',
};

/** `data-lang` on the script tag wins; else the page's own `lang`. */
export function wordsFor(lang: string | null | undefined): { lang: 'en' | 'pt'; words: Words } {
  return lang?.toLowerCase().startsWith('pt') ? { lang: 'pt', words: pt } : { lang: 'en', words: en };
}
