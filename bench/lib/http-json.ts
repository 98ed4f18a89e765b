/** A request a bench's set-up needs to succeed: its JSON answer, or an error naming the step and what the server said. */
export async function checkedJson(url: string, init: RequestInit, what: string): Promise<unknown> {
  const response = await fetch(url, init);
  const text = await response.text();
  if (!response.ok) throw new Error(`${what}: HTTP ${response.status} ${text.slice(0, 300)}`);
  return JSON.parse(text) as unknown;
}
