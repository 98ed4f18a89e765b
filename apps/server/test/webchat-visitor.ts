import type { WebchatConversation } from '@voxplan/contracts';
import type { TestServer } from './harness.ts';

/**
 * A web chat visitor's requests as the widget sends them from a page of `site`: each from another
 * client address, so that the per-address caps do not count one test's chats together. The server
 * and the number's key are read at each call (tests make them in beforeAll).
 */
export function webchatVisitor(serverOf: () => TestServer, keyOf: () => string, site: string) {
  let nextAddress = 0;
  const widget = (method: 'GET' | 'POST', url: string, payload?: object) =>
    serverOf().app.inject({
      method,
      url: `/api/v1/webchat/${keyOf()}${url}`,
      remoteAddress: `198.51.100.${(nextAddress++ % 250) + 1}`,
      headers: { origin: site },
      ...(payload && { payload }),
    });
  const view = async (id: string) => (await widget('GET', `/conversations/${id}`)).json<WebchatConversation>();
  return { widget, view };
}
