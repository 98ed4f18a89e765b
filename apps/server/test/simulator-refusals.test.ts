import net, { type AddressInfo } from 'node:net';
import type { SimulatorClientFrame } from '@voxplan/contracts/simulator';
import { describe, expect, test } from 'vitest';
import { q } from './harness.ts';
import { describeFrames } from './simulator-client.ts';
import { admin, guest, member, open, outsider, plans, releaseSlow, server, sessionIdOf, slowRequests, useSimulatorServer } from './simulator-fixture.ts';

/**
 * The simulator API (issue 5, item 6), continued from simulator.test.ts: refusals before and after
 * the upgrade, and the simulator in the API description.
 */

useSimulatorServer();

describe('refusals', () => {
  test('a frame that is not JSON, of an unknown type, or with bad fields is refused with the catalogue code; the socket goes on', async () => {
    const client = await open(plans.frontLine, member.token, { headers: { 'accept-language': 'pt-BR' } });
    client.send('not json');
    expect((await client.waitFor('error')).error).toMatchObject({ statusCode: 400, code: 'invalid_input', message: 'Alguns campos são inválidos.' });
    client.send({ type: 'dance', id: 'x' });
    expect(await client.waitFor('error')).toMatchObject({ event_id: 'x', error: { code: 'invalid_input' } });
    client.send({ type: 'digits', id: 'k', digits: 'abc' });
    const bad = await client.waitFor('error');
    expect(bad.event_id).toBe('k');
    expect(bad.error.details).toContainEqual(expect.objectContaining({ path: 'digits' }));
    client.send({ type: 'start', channel: 'fax' });
    expect((await client.waitFor('error')).error.details).toContainEqual(expect.objectContaining({ path: 'channel' }));
    client.send({ type: 'digits', id: 'early', digits: '1' });
    expect(await client.waitFor('error')).toMatchObject({ event_id: 'early', error: { statusCode: 404, code: 'session_not_found' } });
    // Still usable.
    expect(describeFrames(await client.turn({ type: 'start', channel: 'voice' })).at(-1)).toBe('turn waiting');
    await client.close();
  });

  test.each<[string, keyof typeof plans, SimulatorClientFrame, string, string, string]>([
    [
      'the published version of a plan never published',
      'unpublished',
      { type: 'start', channel: 'voice', version: 'published' },
      'plan_not_published',
      'This plan has no published version yet: publish it, or run the draft.',
      'Este plano ainda não tem versão publicada: publique-o ou execute o rascunho.',
    ],
    [
      'a version never published (the draft\'s number)',
      'frontLine',
      { type: 'start', channel: 'voice', version: 3 },
      'plan_version_not_found',
      'This plan has no published version with this number.',
      'Este plano não tem versão publicada com este número.',
    ],
    [
      'a block the plan does not have',
      'frontLine',
      { type: 'start', channel: 'voice', start_node: 'nowhere' },
      'start_node_not_found',
      'This block is not in the plan version being run: save the plan, or choose another block.',
      'Este bloco não está na versão do plano em execução: salve o plano ou escolha outro bloco.',
    ],
  ])('a start of %s is refused in the language asked, and starts nothing', async (_, plan, frame, code, english, portuguese) => {
    for (const [language, message] of [
      ['en', english],
      ['pt-BR', portuguese],
    ] as const) {
      const client = await open(plans[plan], member.token, { headers: { 'accept-language': language } });
      client.send(frame);
      expect(await client.waitFor('error')).toMatchObject({ event_id: 'start', error: { statusCode: 400, code, message } });
      expect(client.frames.some((sent) => sent.type === 'started' || sent.type === 'node')).toBe(false);
      await client.close();
    }
  });

  test('a start at a block names the field when refused: a block not in the plan, or no block id at all', async () => {
    const client = await open();
    client.send({ type: 'start', channel: 'voice', start_node: 'nowhere' });
    expect((await client.waitFor('error')).error).toMatchObject({ code: 'start_node_not_found', details: [expect.objectContaining({ path: 'start_node' })] });
    client.send({ type: 'start', channel: 'voice', start_node: 'not an id!' });
    expect((await client.waitFor('error')).error).toMatchObject({ code: 'invalid_input', details: [expect.objectContaining({ path: 'start_node' })] });
    await client.close();
  });

  test('an "as if" time must be an instant with its offset, and the holiday a boolean; only a test session runs as if', async () => {
    const client = await open(plans.hours);
    for (const [asIf, path] of [
      [{ at: 'next tuesday' }, 'as_if.at'],
      [{ at: '2030-01-08T10:00:00' }, 'as_if.at'],
      [{ holiday: 'yes' }, 'as_if.holiday'],
      [{ at: '2030-01-08T10:00:00Z', when: 'now' }, 'as_if.when'],
    ] as const) {
      client.send({ type: 'start', channel: 'voice', as_if: asIf });
      expect((await client.waitFor('error')).error, JSON.stringify(asIf)).toMatchObject({ code: 'invalid_input', details: [expect.objectContaining({ path })] });
    }
    expect(client.frames.some((frame) => frame.type === 'started')).toBe(false);
    await client.close();
    const request = { tenant_id: member.tenantId, plan_id: plans.hours, channel: 'voice', provider: 'twilio', caller: '+15550000001', called: '+15550000002' } as const;
    await expect(server.ctx.sessions.start({ ...request, is_test: false, schedule_clock: { offset_ms: 3_600_000, holiday: true } })).rejects.toMatchObject({
      statusCode: 400,
      code: 'invalid_input',
      details: [expect.objectContaining({ path: 'schedule_clock' })],
    });
  });

  test('only a test session begins elsewhere than the start block', async () => {
    const request = { tenant_id: member.tenantId, plan_id: plans.frontLine, channel: 'voice', provider: 'twilio', caller: '+15550000001', called: '+15550000002', start_node: 'menu' } as const;
    await expect(server.ctx.sessions.start({ ...request, is_test: false })).rejects.toMatchObject({ statusCode: 400, code: 'invalid_input' });
  });

  test('before the upgrade: no token, a bad token, a guest and another tenant are answered over HTTP', async () => {
    const refusal = (promise: Promise<unknown>) => promise.then(() => ({ statusCode: 101, code: 'upgraded' }), (error: { statusCode: number; body: string }) => ({ statusCode: error.statusCode, code: (JSON.parse(error.body) as { error: { code: string } }).error.code }));
    expect(await refusal(open(plans.frontLine, '', { headers: { authorization: '' } }))).toEqual({ statusCode: 401, code: 'auth_header_not_found' });
    expect(await refusal(open(plans.frontLine, 'not-a-token'))).toEqual({ statusCode: 401, code: 'verifying_token_error' });
    expect(await refusal(open(plans.frontLine, guest.token))).toEqual({ statusCode: 403, code: 'readonly_only' });
    expect(await refusal(open(plans.frontLine, outsider.token))).toEqual({ statusCode: 404, code: 'not_found' });
    expect(await refusal(open(999_999))).toEqual({ statusCode: 404, code: 'not_found' });
  });

  test('an upgrade to any other path is answered 404 and closed, and runs nothing', async () => {
    const { port } = server.app.server.address() as AddressInfo;
    const upgradeTo = (method: string, path: string, body = '') =>
      new Promise<string>((resolve, reject) => {
        const socket = net.connect(port, '127.0.0.1');
        let answer = '';
        socket.on('data', (chunk) => (answer += chunk.toString()));
        // Resolves only once the server closed the connection.
        socket.on('close', () => resolve(answer));
        socket.on('error', reject);
        socket.write(
          `${method} ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${member.token}\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n` +
            `Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
        );
      });
    const refused = await upgradeTo('GET', '/api/v1/health');
    expect(refused).toMatch(/^HTTP\/1\.1 404 /);
    expect(JSON.parse(refused.slice(refused.indexOf('\r\n\r\n') + 4))).toMatchObject({ error: { statusCode: 404, code: 'not_found' } });
    expect(await upgradeTo('POST', '/api/v1/destinations', JSON.stringify({ name: 'Through an upgrade', kind: 'voice', uri: 'sip:x@pbx.example.com' }))).toMatch(/^HTTP\/1\.1 404 /);
    const created = await server.call({ method: 'GET', url: `/destinations?${q('filter', { where: { name: 'Through an upgrade' } })}`, token: member.token });
    expect(created.json()).toEqual([]);
  });

  test('a browser sends its token as a subprotocol, which is never echoed back', async () => {
    const client = await open(plans.frontLine, member.token, { tokenIn: 'protocol' });
    expect(client.socket.protocol).toBe('voxplan.simulator.v1');
    expect(describeFrames(await client.turn({ type: 'start', channel: 'chat' })).at(-1)).toBe('turn waiting');
    await client.close();
  });

  test('an administrator runs any tenant’s plan, in that tenant', async () => {
    const client = await open(plans.frontLine, admin);
    const sessionId = sessionIdOf(await client.turn({ type: 'start', channel: 'voice' }));
    expect((await server.ctx.sessions.find(sessionId))!.session.tenant_id).toBe(member.tenantId);
    await client.close();
  });

  test('a client that floods the socket while a turn runs is disconnected', async () => {
    const before = slowRequests;
    const client = await open(plans.slow);
    client.send({ type: 'start', channel: 'voice' });
    await client.waitFor('node', (frame) => frame.node.node_id === 'lookup');
    // The turn is under way (its request has reached the remote service) when the flood starts.
    await expect.poll(() => slowRequests).toBe(before + 1);
    for (let i = 0; i < 40; i++) client.send({ type: 'digits', id: `flood-${i}`, digits: '1' });
    expect(await client.closed).toBe(1008);
    releaseSlow!();
  });
});

describe('the simulator in the API description', () => {
  test('the OpenAPI document lists the simulator route; a plain GET is told to upgrade', async () => {
    const document = (await server.call({ method: 'GET', url: '/openapi.json' })).json<{ paths: Record<string, { get?: { description?: string } }> }>();
    expect(document.paths['/api/v1/visual-plans/{id}/simulator']?.get?.description).toContain('WebSocket');
    const plain = await server.call({ method: 'GET', url: `/visual-plans/${plans.frontLine}/simulator`, token: member.token });
    expect(plain.statusCode).toBe(426);
    expect(plain.json()).toMatchObject({ error: { code: 'upgrade_required', name: 'UpgradeRequiredError' } });
  });
});
