/**
 * The widget's look, inside its shadow root so that the page's styles and its own never mix.
 * Light by default, dark by the reader's system setting (`data-theme="auto"`, the default) or by
 * `data-theme="dark"`. Colours keep a contrast of at least 4.5:1 for text (WCAG AA). The `hidden`
 * attribute wins over every class's `display` (`.ended` and `.options` are flex): were it not so, the
 * offer of a new conversation would show beside the plan's first message.
 */
const light = `--bg:#fff;--fg:#1a1b1e;--muted:#495057;--line:#ced4da;--plan:#f1f3f5;--accent:#1864ab;--on-accent:#fff;--error:#c92a2a;`;
const dark = `--bg:#1a1b1e;--fg:#f1f3f5;--muted:#ced4da;--line:#495057;--plan:#2c2e33;--accent:#74c0fc;--on-accent:#1a1b1e;--error:#ffa8a8;`;

export const styles = `
:host{all:initial;${light}font:15px/1.4 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--fg)}
:host([data-theme=dark]){${dark}}
@media (prefers-color-scheme:dark){:host([data-theme=auto]){${dark}}}
*{box-sizing:border-box;font:inherit}
[hidden]{display:none!important}
.launcher{position:fixed;right:20px;bottom:20px;z-index:2147483000;width:56px;height:56px;border-radius:50%;border:0;background:var(--accent);color:var(--on-accent);cursor:pointer;box-shadow:0 4px 14px rgba(0,0,0,.3);display:grid;place-items:center}
.launcher svg{width:28px;height:28px;fill:currentColor}
button:focus-visible,input:focus-visible{outline:3px solid var(--accent);outline-offset:2px}
.panel{position:fixed;right:20px;bottom:88px;z-index:2147483000;width:min(370px,calc(100vw - 40px));height:min(540px,calc(100vh - 120px));display:flex;flex-direction:column;background:var(--bg);color:var(--fg);border:1px solid var(--line);border-radius:12px;box-shadow:0 8px 30px rgba(0,0,0,.3);overflow:hidden}
header{display:flex;align-items:center;justify-content:space-between;padding:10px 14px;background:var(--accent);color:var(--on-accent)}
h2{margin:0;font-size:16px;font-weight:600}
.close{border:0;background:transparent;color:inherit;cursor:pointer;font-size:22px;line-height:1;width:32px;height:32px;border-radius:6px}
.log{flex:1;overflow-y:auto;padding:12px;display:flex;flex-direction:column;gap:8px;margin:0;list-style:none}
.msg{max-width:85%;padding:8px 12px;border-radius:12px;white-space:pre-wrap;overflow-wrap:anywhere}
.msg .file-image{display:block;margin-top:4px}.msg .file-image img{display:block;max-width:100%;max-height:240px;border-radius:8px}.msg .file{display:block;margin-top:4px;color:inherit;text-decoration:underline}
.plan,.agent{align-self:flex-start;background:var(--plan)}
.name{display:block;font-size:12px;font-weight:600;margin-bottom:2px}
.user{align-self:flex-end;background:var(--accent);color:var(--on-accent)}
.msg.bare{background:none;padding:0}.msg.bare .file-image{margin-top:0}
.sr{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
.options{display:flex;flex-wrap:wrap;gap:6px;padding:0 12px 8px}
.options button,.restart{border:1px solid var(--accent);background:var(--bg);color:var(--accent);border-radius:16px;padding:6px 12px;cursor:pointer}
.options button:hover,.restart:hover{background:var(--plan)}
.status{padding:0 12px 6px;color:var(--muted);font-size:13px;min-height:1.4em}
.status.error{color:var(--error)}
.dots span{display:inline-block;width:6px;height:6px;margin-right:3px;border-radius:50%;background:var(--muted);animation:b 1s infinite}
.dots span:nth-child(2){animation-delay:.15s}.dots span:nth-child(3){animation-delay:.3s}
@keyframes b{50%{opacity:.2}}
@media (prefers-reduced-motion:reduce){.dots span{animation:none}}
form{display:flex;gap:6px;padding:10px 12px;border-top:1px solid var(--line)}
input{flex:1;min-width:0;padding:8px 10px;border:1px solid var(--line);border-radius:8px;background:var(--bg);color:var(--fg);font:inherit;font-size:16px}
input::placeholder{color:var(--muted)}
.send{border:0;border-radius:8px;padding:8px 14px;background:var(--accent);color:var(--on-accent);cursor:pointer}
button:disabled,input:disabled{opacity:.6;cursor:default}
.prechat{flex:1;flex-direction:column;overflow-y:auto;gap:12px;padding:16px 12px;border-top:0}
.prechat p{margin:0}
.prechat label{display:flex;flex-direction:column;gap:4px;font-size:14px}
.prechat .send{align-self:flex-start;padding:8px 16px}
.attach{flex:none;width:36px;padding:0;border:1px solid var(--line);border-radius:8px;background:var(--bg);color:var(--muted);cursor:pointer;display:grid;place-items:center}
.attach svg{width:22px;height:22px;fill:currentColor}
.uploading{opacity:.85}.uploading progress{display:block;width:100%;min-width:160px;height:6px;margin-top:6px;accent-color:var(--on-accent)}
.dropping .log{outline:2px dashed var(--accent);outline-offset:-6px;position:relative}
.dropping .log::after{content:attr(data-drop);position:sticky;bottom:0;align-self:center;padding:6px 12px;border-radius:16px;background:var(--accent);color:var(--on-accent)}
.ended{padding:0 12px 8px;display:flex;flex-direction:column;align-items:flex-start;gap:6px;color:var(--muted)}
`;
