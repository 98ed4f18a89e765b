import { afterEach, describe, expect, it, vi } from 'vitest';
import { WebchatApi, WidgetApiError } from './api.ts';

const conversation = { id: 'c1', revision: 1, status: 'waiting', messages: [] };
const unavailable = () =>
  new Response(JSON.stringify({ error: { statusCode: 503, code: 'database_unavailable' } }), { status: 503, headers: { 'retry-after': '2', 'content-type': 'application/json' } });

describe("the widget's API when the server's database is briefly away", () => {
  afterEach(() => {
    vi.useRealTimers();
    vi.unstubAllGlobals();
  });

  it('waits the Retry-After of a 503 and sends the same request again', async () => {
    vi.useFakeTimers();
    const fetchMock = vi.fn().mockResolvedValueOnce(unavailable()).mockResolvedValueOnce(new Response(JSON.stringify(conversation), { status: 200 }));
    vi.stubGlobal('fetch', fetchMock);
    const sent = new WebchatApi('https://chat.example.com', 'key', 'en').send('c1', 'm1', 'hello');
    await vi.advanceTimersByTimeAsync(1_900);
    expect(fetchMock).toHaveBeenCalledTimes(1);
    await vi.advanceTimersByTimeAsync(200);
    await expect(sent).resolves.toEqual(conversation);
    expect(fetchMock).toHaveBeenCalledTimes(2);
    // The same message, with its id: the server stores it once.
    expect(fetchMock.mock.calls[1]![1]).toMatchObject({ method: 'POST', body: JSON.stringify({ id: 'm1', text: 'hello' }) });
  });

  it('gives up after a few tries, with the error the server named', async () => {
    vi.useFakeTimers();
    const fetchMock = vi.fn().mockImplementation(async () => unavailable());
    vi.stubGlobal('fetch', fetchMock);
    const started = new WebchatApi('https://chat.example.com', 'key', 'en').start({});
    const failed = expect(started).rejects.toEqual(new WidgetApiError(503, 'database_unavailable'));
    await vi.advanceTimersByTimeAsync(10_000);
    await failed;
    expect(fetchMock).toHaveBeenCalledTimes(4);
  });
});
