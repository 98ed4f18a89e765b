import type { Audio } from '@voxplan/contracts';
import type { LightMyRequestResponse } from 'fastify';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { espeakSynthesizer, failAbandonedGenerations, TtsJobs } from '../src/modules/audios/tts-jobs.ts';
import { makeAudio, probe, uploadCall } from './audio-fixtures.ts';
import { createTenantMember, dialect, q, startTestServer, type TestServer } from './harness.ts';

interface ErrorBody {
  error: { statusCode: number; code?: string; message: string; details?: { path: string; message: string }[]; params?: Record<string, unknown> };
}

let server: TestServer;
let admin: string;
let tenantId: number;
let member: string;
let serial = 0;
const next = () => (serial += 1);

beforeAll(async () => {
  server = await startTestServer();
  admin = await server.login();
  ({ tenantId, token: member } = await createTenantMember(server, admin, 'audios'));
});
afterAll(() => server.close());

const errorOf = (response: LightMyRequestResponse) => response.json<ErrorBody>().error;
const fieldsOf = (response: LightMyRequestResponse) => (errorOf(response).details ?? []).map((detail) => detail.path).sort();
const expectCode = (response: LightMyRequestResponse, status: number, code: string) => {
  expect(response.statusCode, response.body).toBe(status);
  expect(errorOf(response).code).toBe(code);
};
const audioCount = async () => (await server.call({ method: 'GET', url: '/audios/count', token: member })).json<{ count: number }>().count;

async function upload(fields: Record<string, unknown>, file?: Parameters<typeof uploadCall>[1], headers: Record<string, string> = {}) {
  const call = uploadCall(fields, file);
  return server.call({ ...call, headers: { ...call.headers, ...headers }, token: member });
}

async function uploaded(format: 'wav' | 'mp3' | 'ogg' = 'wav', seconds = 1): Promise<Audio> {
  const response = await upload({ name: `tone ${next()}` }, { bytes: makeAudio(format, seconds), filename: `tone.${format}` });
  expect(response.statusCode, response.body).toBe(201);
  return response.json<Audio>();
}

const fileOf = (id: number, query = '', headers: Record<string, string> = {}) =>
  server.call({ method: 'GET', url: `/audios/${id}/file${query}`, token: member, headers });

/** Polls the record until it leaves "generating", noting the progress it reported. */
async function generated(id: number): Promise<{ audio: Audio; progress: number[] }> {
  const progress: number[] = [];
  for (let attempt = 0; attempt < 600; attempt += 1) {
    const audio = (await server.call({ method: 'GET', url: `/audios/${id}`, token: member })).json<Audio>();
    progress.push(audio.progress);
    if (audio.status !== 'generating') return { audio, progress };
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`audio ${id} still generating`);
}

async function setMaxSize(value: string): Promise<void> {
  const [setting] = (
    await server.call({ method: 'GET', url: `/configurations?${q('filter', { where: { name: 'audio_max_size_mb' } })}`, token: admin })
  ).json<{ id: number }[]>();
  const patched = await server.call({ method: 'PATCH', url: `/configurations/${setting!.id}`, token: admin, payload: { value } });
  expect(patched.statusCode, patched.body).toBe(200);
}

describe('upload', () => {
  test.each(['wav', 'mp3', 'ogg'] as const)('a real %s is stored as sent, with its format, type and duration', async (format) => {
    const bytes = makeAudio(format, 2);
    const response = await upload({ name: `Greeting ${format}`, language: 'pt-br' }, { bytes, filename: `greeting.${format}` });
    expect(response.statusCode, response.body).toBe(201);
    const audio = response.json<Audio>();
    expect(audio).toMatchObject({
      name: `Greeting ${format}`,
      tenant_id: tenantId,
      source: 'upload',
      language: 'pt-br',
      format,
      mime_type: { wav: 'audio/wav', mp3: 'audio/mpeg', ogg: 'audio/ogg' }[format],
      size: bytes.length,
      status: 'ready',
      progress: 100,
    });
    // Encoders pad a little: a two-second tone lasts two seconds give or take a frame.
    expect(audio.duration_ms).toBeGreaterThan(1900);
    expect(audio.duration_ms).toBeLessThan(2200);

    const file = await fileOf(audio.id);
    expect(file.statusCode).toBe(200);
    expect(file.headers['content-type']).toBe(audio.mime_type);
    expect(file.headers['accept-ranges']).toBe('bytes');
    expect(Buffer.compare(file.rawPayload, bytes)).toBe(0);
  });

  test('the format comes from the content, not the name: an MP3 named .wav is an MP3', async () => {
    const response = await upload({ name: 'misnamed' }, { bytes: makeAudio('mp3'), filename: 'misnamed.wav', type: 'audio/wav' });
    expect(response.statusCode, response.body).toBe(201);
    expect(response.json<Audio>()).toMatchObject({ format: 'mp3', mime_type: 'audio/mpeg' });
  });

  test('a text file renamed .wav is refused with invalid_audio_format, in both languages, and nothing is stored', async () => {
    const before = await audioCount();
    const text = Buffer.from('This is not a sound, only words in a file.\n'.repeat(50));
    for (const [language, message] of [
      ['en', 'The file is not a WAV, MP3 or OGG audio.'],
      ['pt-BR', 'O arquivo não é um áudio WAV, MP3 ou OGG.'],
    ] as const) {
      const response = await upload({ name: 'fake' }, { bytes: text, filename: 'fake.wav', type: 'audio/wav' }, { 'accept-language': language });
      expectCode(response, 400, 'invalid_audio_format');
      expect(errorOf(response).message).toBe(message);
      expect(fieldsOf(response)).toEqual(['file']);
    }
    expect(await audioCount()).toBe(before);
  });

  test('a file that only looks like audio (a WAV header on noise) is refused: it must decode', async () => {
    const wav = makeAudio('wav');
    const header = Buffer.from(wav.subarray(0, 12));
    const forged = Buffer.concat([header, Buffer.from('fmt garbage that no decoder can read'.repeat(20))]);
    expectCode(await upload({ name: 'forged' }, { bytes: forged, filename: 'forged.wav' }), 400, 'invalid_audio_format');
    // An OGG page header alone, and an MP3 frame sync followed by text.
    expectCode(await upload({ name: 'forged' }, { bytes: Buffer.from(`OggS${'x'.repeat(500)}`), filename: 'x.ogg' }), 400, 'invalid_audio_format');
    expectCode(await upload({ name: 'forged' }, { bytes: Buffer.concat([Buffer.from([0xff, 0xfb, 0x90, 0x00]), Buffer.from('y'.repeat(500))]), filename: 'x.mp3' }), 400, 'invalid_audio_format');
  });

  test('each field is refused on its own, in both languages', async () => {
    const missing = await upload({}, null);
    expectCode(missing, 400, 'invalid_input');
    expect(fieldsOf(missing)).toEqual(['file', 'name']);
    const pt = await upload({}, null, { 'accept-language': 'pt-BR' });
    expect(errorOf(pt).message).toBe('Alguns campos são inválidos.');

    const blankName = await upload({ name: '   ' });
    expect(fieldsOf(blankName)).toEqual(['name']);
    const longName = await upload({ name: 'x'.repeat(101) });
    expect(fieldsOf(longName)).toEqual(['name']);
    const language = await upload({ name: 'ok', language: 'klingon' });
    expect(fieldsOf(language)).toEqual(['language']);
    const unknown = await upload({ name: 'ok', tenant_id: '999' });
    expect(fieldsOf(unknown)).toEqual(['tenant_id']);
    const empty = await upload({ name: 'ok' }, { bytes: Buffer.alloc(0), filename: 'empty.wav' });
    expect(fieldsOf(empty)).toEqual(['file']);
    // Not multipart at all: nothing was sent as a file or a name.
    const json = await server.call({ method: 'POST', url: '/audios/upload', token: member, payload: { name: 'json' } });
    expect(fieldsOf(json)).toEqual(['file', 'name']);
  });

  test('the size limit is the general setting of the moment, with the message of the spec in both languages', async () => {
    const big = makeAudio('wav', 2); // 44.1 kHz stereo 16-bit: about 350 KB
    const small = makeAudio('wav', 0.5, 8000, 1); // about 8 KB
    expect((await server.call({ method: 'GET', url: '/audios/limits', token: member })).json()).toEqual({ max_size_mb: 10 });
    try {
      await setMaxSize('0.1');
      expect((await server.call({ method: 'GET', url: '/audios/limits', token: member })).json()).toEqual({ max_size_mb: 0.1 });
      const before = await audioCount();
      const english = await upload({ name: 'too big' }, { bytes: big, filename: 'big.wav' });
      expectCode(english, 413, 'file_too_large');
      expect(errorOf(english).message).toBe('File bigger than 0.1 Mbs');
      expect(errorOf(english).params).toEqual({ maxSize: 0.1 });
      expect(fieldsOf(english)).toEqual(['file']);
      const portuguese = await upload({ name: 'too big' }, { bytes: big, filename: 'big.wav' }, { 'accept-language': 'pt-BR' });
      expect(errorOf(portuguese).message).toBe('Arquivo maior que 0.1 Mbs');
      expect(await audioCount()).toBe(before);
      expect((await upload({ name: 'small enough' }, { bytes: small, filename: 'small.wav' })).statusCode).toBe(201);
    } finally {
      await setMaxSize('10');
    }
    // Back to 10 MB, without a restart: the same file goes in.
    expect((await upload({ name: 'big again' }, { bytes: big, filename: 'big.wav' })).statusCode).toBe(201);
  });

  test('a file of several MB under the limit goes in whole (the JSON body limit does not apply)', async () => {
    const bytes = makeAudio('wav', 40); // 44.1 kHz stereo 16-bit: about 7 MB
    expect(bytes.length).toBeGreaterThan(5 * 1024 * 1024);
    const response = await upload({ name: 'long recording' }, { bytes, filename: 'long.wav' });
    expect(response.statusCode, response.body).toBe(201);
    expect(response.json<Audio>().size).toBe(bytes.length);
    expect(Buffer.compare((await fileOf(response.json<Audio>().id)).rawPayload, bytes)).toBe(0);
  });

  test('a stored value the setting cannot take (written before values were checked) counts as the default 10 MB', async () => {
    try {
      await server.ctx.db.updateTable('configurations').set({ value: 'lots' }).where('name', '=', 'audio_max_size_mb').execute();
      expect((await server.call({ method: 'GET', url: '/audios/limits', token: member })).json()).toEqual({ max_size_mb: 10 });
    } finally {
      await setMaxSize('10');
    }
  });
});

describe('the sound', () => {
  test('lists and records carry the metadata, never the bytes', async () => {
    const audio = await uploaded();
    const listed = (await server.call({ method: 'GET', url: `/audios?${q('filter', { where: { id: audio.id } })}`, token: member })).json<Audio[]>();
    expect(listed).toEqual([audio]);
    expect(Object.keys(listed[0]!)).not.toContain('data');
    expect((await server.call({ method: 'GET', url: `/audios/${audio.id}`, token: member })).json()).toEqual(audio);
  });

  test('a range is answered with those bytes only, so a player can seek', async () => {
    const audio = await uploaded('mp3', 2);
    const whole = (await fileOf(audio.id)).rawPayload;
    const first = await fileOf(audio.id, '', { range: 'bytes=0-99' });
    expect(first.statusCode).toBe(206);
    expect(first.headers['content-range']).toBe(`bytes 0-99/${whole.length}`);
    expect(Buffer.compare(first.rawPayload, whole.subarray(0, 100))).toBe(0);
    const tail = await fileOf(audio.id, '', { range: 'bytes=-50' });
    expect(tail.statusCode).toBe(206);
    expect(Buffer.compare(tail.rawPayload, whole.subarray(whole.length - 50))).toBe(0);
    const beyond = await fileOf(audio.id, '', { range: `bytes=${whole.length + 10}-` });
    expect(beyond.statusCode).toBe(416);
    expect(beyond.headers['content-range']).toBe(`bytes */${whole.length}`);
  });

  test('telephony: 8000 Hz mono WAV, converted once and kept', async () => {
    const audio = await uploaded('ogg', 2);
    const converted = await fileOf(audio.id, '?format=telephony');
    expect(converted.statusCode, converted.body).toBe(200);
    expect(converted.headers['content-type']).toBe('audio/wav');
    const probed = probe(converted.rawPayload);
    expect(probed).toMatchObject({ format: 'wav', codec: 'pcm_s16le', sampleRate: 8000, channels: 1 });
    expect(Math.abs(probed.durationMs - audio.duration_ms!)).toBeLessThan(100);
    const stored = await server.ctx.db.selectFrom('audio_data').select(['variant', 'data']).where('audio_id', '=', audio.id).orderBy('variant').execute();
    expect(stored.map((row) => row.variant)).toEqual(['original', 'telephony']);
    expect(Buffer.compare(Buffer.from(stored[1]!.data), converted.rawPayload)).toBe(0);
    // The next request reads the kept copy; the original is untouched.
    const again = await fileOf(audio.id, '?format=telephony');
    expect(Buffer.compare(again.rawPayload, converted.rawPayload)).toBe(0);
    expect(Buffer.compare((await fileOf(audio.id)).rawPayload, makeAudio('ogg', 2))).toBe(0);
    expectCode(await fileOf(audio.id, '?format=flac'), 400, 'invalid_input');
  });

  test('a missing audio answers audio_not_found, for the record, the file and removal', async () => {
    expectCode(await server.call({ method: 'GET', url: '/audios/999999', token: member }), 404, 'audio_not_found');
    expectCode(await fileOf(999999), 404, 'audio_not_found');
    expectCode(await server.call({ method: 'DELETE', url: '/audios/999999', token: member }), 404, 'audio_not_found');
    expectCode(await server.call({ method: 'PATCH', url: '/audios/999999', token: member, payload: { name: 'x' } }), 404, 'audio_not_found');
  });

  test('there is no generic create: audios come from an upload or from text', async () => {
    const response = await server.call({ method: 'POST', url: '/audios', token: member, payload: { name: 'direct' } });
    expect(response.statusCode).toBe(404);
  });
});

describe('rename and removal', () => {
  test('only the name changes; the sound stays', async () => {
    const audio = await uploaded();
    const renamed = await server.call({ method: 'PATCH', url: `/audios/${audio.id}`, token: member, payload: { name: 'Renamed tone' } });
    expect(renamed.statusCode, renamed.body).toBe(200);
    expect(renamed.json<Audio>()).toMatchObject({ ...audio, name: 'Renamed tone', updated_time: expect.any(String) });
    for (const payload of [{ status: 'failed' }, { size: 1 }, { name: '' }, { format: 'mp3' }]) {
      expectCode(await server.call({ method: 'PATCH', url: `/audios/${audio.id}`, token: member, payload }), 400, 'invalid_input');
    }
    expect(Buffer.compare((await fileOf(audio.id)).rawPayload, makeAudio('wav'))).toBe(0);
  });

  test('removing an audio removes its sound and its telephony copy', async () => {
    const audio = await uploaded();
    await fileOf(audio.id, '?format=telephony');
    const removed = await server.call({ method: 'DELETE', url: `/audios/${audio.id}`, token: member });
    expect(removed.statusCode, removed.body).toBe(204);
    expect(await server.ctx.db.selectFrom('audio_data').select('variant').where('audio_id', '=', audio.id).execute()).toEqual([]);
    expectCode(await fileOf(audio.id), 404, 'audio_not_found');
  });

  test('when the stored sound cannot be removed: error_deleting_file, and the audio is left whole', async () => {
    const audio = await uploaded();
    // The database itself refuses: a trigger stands for a storage that fails.
    if (dialect === 'sqlite') {
      await sql`CREATE TRIGGER audio_data_locked BEFORE DELETE ON audio_data BEGIN SELECT RAISE(ABORT, 'locked'); END`.execute(server.ctx.db);
    } else {
      await sql`CREATE FUNCTION audio_data_locked() RETURNS trigger AS $$ BEGIN RAISE EXCEPTION 'locked'; END $$ LANGUAGE plpgsql`.execute(server.ctx.db);
      await sql`CREATE TRIGGER audio_data_locked BEFORE DELETE ON audio_data FOR EACH ROW EXECUTE FUNCTION audio_data_locked()`.execute(server.ctx.db);
    }
    try {
      for (const [language, message] of [
        ['en', 'The file could not be deleted.'],
        ['pt-BR', 'Não foi possível remover o arquivo.'],
      ] as const) {
        const response = await server.call({ method: 'DELETE', url: `/audios/${audio.id}`, token: member, headers: { 'accept-language': language } });
        expectCode(response, 500, 'error_deleting_file');
        expect(errorOf(response).message).toBe(message);
      }
      expectCode(await server.call({ method: 'DELETE', url: '/audios', token: member, payload: [audio.id] }), 500, 'error_deleting_file');
    } finally {
      await sql`DROP TRIGGER audio_data_locked${sql.raw(dialect === 'postgres' ? ' ON audio_data' : '')}`.execute(server.ctx.db);
      if (dialect === 'postgres') await sql`DROP FUNCTION audio_data_locked()`.execute(server.ctx.db);
    }
    expect((await server.call({ method: 'GET', url: `/audios/${audio.id}`, token: member })).json()).toEqual(audio);
    expect(Buffer.compare((await fileOf(audio.id)).rawPayload, makeAudio('wav'))).toBe(0);
  });
});

describe('text to speech (espeak-ng)', () => {
  test('voices: espeak-ng\'s languages and variants', async () => {
    const response = await server.call({ method: 'GET', url: '/audios/voices', token: member });
    expect(response.statusCode).toBe(200);
    const voices = response.json<{ engine: string; languages: { code: string; name: string }[]; voices: { id: string; name: string; gender: string }[] }>();
    expect(voices.engine).toBe('espeak-ng');
    expect(voices.languages).toEqual(expect.arrayContaining([{ code: 'pt-br', name: 'Portuguese (Brazil)' }, { code: 'en-us', name: 'English (America)' }]));
    expect(voices.voices).toEqual(expect.arrayContaining([{ id: 'f3', name: 'female3', gender: 'female' }]));
    expect(voices.languages.some((language) => language.code === 'variant')).toBe(false);
    // Each once: the console offers them as options.
    expect(new Set(voices.languages.map((language) => language.code)).size).toBe(voices.languages.length);
    expect(new Set(voices.voices.map((voice) => voice.id)).size).toBe(voices.voices.length);
  });

  test('answers at once with a generating record, then the audio is ready, decodes and lasts as long as the text', async () => {
    const text = 'Olá! Você ligou para a central de atendimento. Para falar com o suporte, digite um. Para o financeiro, digite dois.';
    const response = await server.call({ method: 'POST', url: '/audios/tts', token: member, payload: { name: 'Menu', text, language: 'pt-br', voice: 'f3' } });
    expect(response.statusCode, response.body).toBe(201);
    const created = response.json<Audio>();
    expect(created).toMatchObject({ source: 'tts', status: 'generating', progress: 0, text, language: 'pt-br', voice: 'f3', tenant_id: tenantId, duration_ms: null });

    const { audio, progress } = await generated(created.id);
    expect(audio).toMatchObject({ status: 'ready', progress: 100, format: 'wav', mime_type: 'audio/wav' });
    expect(progress).toEqual([...progress].sort((a, b) => a - b));
    const file = await fileOf(audio.id);
    expect(file.rawPayload.length).toBe(audio.size);
    const probed = probe(file.rawPayload);
    expect(probed.format).toBe('wav');
    // 20 words: spoken at espeak-ng's 175 words a minute, about seven seconds.
    const words = text.split(/\s+/).length;
    expect(probed.durationMs).toBeGreaterThan(words * 200);
    expect(probed.durationMs).toBeLessThan(words * 800);
    expect(Math.abs(probed.durationMs - audio.duration_ms!)).toBeLessThan(50);
  });

  test('a long text is spoken in parts and joined into one audio', async () => {
    const sentence = 'This sentence is spoken by the server while the request has already been answered. ';
    const text = sentence.repeat(12);
    const response = await server.call({ method: 'POST', url: '/audios/tts', token: member, payload: { name: 'Long', text, language: 'en-us' } });
    expect(response.json<Audio>().status).toBe('generating');
    const { audio } = await generated(response.json<Audio>().id);
    expect(audio.status).toBe('ready');
    const probed = probe((await fileOf(audio.id)).rawPayload);
    const words = text.trim().split(/\s+/).length;
    expect(probed.durationMs).toBeGreaterThan(words * 200);
    expect(probed.durationMs).toBeLessThan(words * 800);
    // The telephony copy of a spoken audio too.
    expect(probe((await fileOf(audio.id, '?format=telephony')).rawPayload)).toMatchObject({ sampleRate: 8000, channels: 1 });
  });

  test('starting one is audited as a create by its member; the generation itself writes no entry', async () => {
    const lastId = async () =>
      (await server.call({ method: 'GET', url: `/audit?${q('filter', { order: ['id DESC'], limit: 1 })}`, token: admin })).json<{ id: number }[]>()[0]!.id;
    const since = await lastId();
    const response = await server.call({ method: 'POST', url: '/audios/tts', token: member, payload: { name: 'Audited speech', text: 'Good morning.', language: 'en-us' } });
    const created = response.json<Audio>();
    await generated(created.id);
    const entries = (await server.call({ method: 'GET', url: `/audit?${q('filter', { where: { id: { gt: since } } })}`, token: admin })).json<Record<string, unknown>[]>();
    expect(entries).toEqual([expect.objectContaining({ action: 'create', entity: 'audio', entity_id: String(created.id), tenant_id: tenantId, username: 'audios-user', after: created })]);
  });

  test('each field is refused on its own, in both languages', async () => {
    const before = await audioCount();
    const tts = (payload: Record<string, unknown>, language = 'en') =>
      server.call({ method: 'POST', url: '/audios/tts', token: member, payload, headers: { 'accept-language': language } });
    expect(fieldsOf(await tts({}))).toEqual(['language', 'name', 'text']);
    const pt = await tts({}, 'pt-BR');
    expect(errorOf(pt).message).toBe('Alguns campos são inválidos.');
    expect(fieldsOf(await tts({ name: 'x', text: '   ', language: 'en-us' }))).toEqual(['text']);
    expect(fieldsOf(await tts({ name: 'x', text: 'y'.repeat(5001), language: 'en-us' }))).toEqual(['text']);
    expect(fieldsOf(await tts({ name: 'x', text: 'hello', language: 'klingon' }))).toEqual(['language']);
    expect(fieldsOf(await tts({ name: 'x', text: 'hello', language: '--help' }))).toEqual(['language']);
    expect(fieldsOf(await tts({ name: 'x', text: 'hello', language: 'en-us', voice: 'nobody' }))).toEqual(['voice']);
    expect(fieldsOf(await tts({ name: 'x', text: 'hello', language: 'en-us', status: 'ready' }))).toEqual(['status']);
    expect(await audioCount()).toBe(before);
  });

  test('until it is ready the file answers audio_not_ready', async () => {
    const audio = await uploaded();
    await server.ctx.db.updateTable('audios').set({ status: 'failed' }).where('id', '=', audio.id).execute();
    expectCode(await fileOf(audio.id), 409, 'audio_not_ready');
  });

  test('a generation left behind by a stopped process is marked failed at the next start; a recent one is not', async () => {
    const old = await uploaded();
    const recent = await uploaded();
    await server.ctx.db.updateTable('audios').set({ status: 'generating', updated_time: '2020-01-01T00:00:00.000Z' }).where('id', '=', old.id).execute();
    await server.ctx.db.updateTable('audios').set({ status: 'generating', updated_time: new Date().toISOString() }).where('id', '=', recent.id).execute();
    await failAbandonedGenerations(server.ctx.db);
    const statusOf = async (id: number) => (await server.call({ method: 'GET', url: `/audios/${id}`, token: member })).json<Audio>().status;
    expect(await statusOf(old.id)).toBe('failed');
    expect(await statusOf(recent.id)).toBe('generating');
  });

  test('stopping the server stops its generations and marks them failed', async () => {
    const audio = await uploaded();
    await server.ctx.db.updateTable('audios').set({ status: 'generating', progress: 0 }).where('id', '=', audio.id).execute();
    const jobs = new TtsJobs(server.ctx.db, server.app.log);
    jobs.start(audio.id, 'A long announcement that will not be finished. '.repeat(100), espeakSynthesizer('en-us', ''));
    await jobs.close(0);
    expect((await server.call({ method: 'GET', url: `/audios/${audio.id}`, token: member })).json<Audio>()).toMatchObject({ status: 'failed', progress: 0 });
  });
});
