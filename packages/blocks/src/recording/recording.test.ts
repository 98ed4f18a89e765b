import { expect, test } from 'vitest';
import { validatePlanDocument } from '../plan/validate.ts';
import { planAround, runPlan } from '../test-helpers.ts';

const analyses = [
  { kind: 'sentiment', items: ['positive', 'negative'] },
  { kind: 'summary', max_length: 200 },
];

test('voice: records the rest of the call; when the recording is ready the analyses go on the report', async () => {
  const plan = planAround({ id: 'rec', type: 'recording', data: { analyses, format: 'mp3', min_duration_s: 10 } }, ['next']);
  const run = await runPlan(plan, {
    world: { ai: { analyse: { results: { sentiment: 'positive', summary: 'Asked about an order.' } } } },
    events: [{ type: 'recording_ready', url: 'https://media.example/rec.mp3', duration_s: 42 }],
  });
  expect(run.results[0]!.actions).toEqual([{ type: 'record', format: 'mp3' }, { type: 'hangup', cause: 'normal_clearing' }]);
  expect(run.results[0]!.report?.recording).toMatchObject({ status: 'recording', url: null });
  expect(run.ports.log.analyse).toEqual([
    { tenantId: 1, sessionId: run.session.id, analyses: [{ kind: 'sentiment', items: ['positive', 'negative'] }, { kind: 'summary', max_length: 200 }], source: { kind: 'audio', url: 'https://media.example/rec.mp3', provider: run.session.provider }, anonymization: false },
  ]);
  expect(run.results[1]!.report?.recording).toEqual({
    format: 'mp3',
    url: 'https://media.example/rec.mp3',
    duration_s: 42,
    status: 'analysed',
    results: { sentiment: 'positive', summary: 'Asked about an order.' },
    error: null,
  });
});

test('a recording shorter than the minimum, or outside the percentage, is kept but not analysed', async () => {
  const short = await runPlan(planAround({ id: 'rec', type: 'recording', data: { analyses, min_duration_s: 60 } }, ['next']), {
    events: [{ type: 'recording_ready', url: 'u', duration_s: 5 }],
  });
  expect(short.session.recording).toMatchObject({ status: 'recorded', results: null });
  const none = await runPlan(planAround({ id: 'rec', type: 'recording', data: { analyses, percentage: 0 } }, ['next']), {
    events: [{ type: 'recording_ready', url: 'u', duration_s: 90 }],
  });
  expect(none.session.recording).toMatchObject({ status: 'recorded', selected: false });
  expect(none.ports.log.analyse).toEqual([]);
});

test('chat: the conversation is analysed when it ends; without an AI key the report says so', async () => {
  const plan = planAround({ id: 'rec', type: 'recording', data: { analyses } }, ['next']);
  const run = await runPlan(plan, { channel: 'chat' });
  expect(run.actions).toEqual([{ type: 'hangup', cause: 'normal_clearing' }]);
  expect(run.ports.log.analyse[0]!.source).toEqual({ kind: 'transcript', text: '' });
  expect(run.results[0]!.report?.recording).toMatchObject({ status: 'failed', error: 'ai_key_not_found' });
});

test('analyses: at most 5, each kind once, lists of 1 to 3 items, a summary of at most 250 characters', () => {
  const check = (list: unknown[]) => validatePlanDocument(planAround({ id: 'rec', type: 'recording', data: { analyses: list } }, ['next'])).ok;
  expect(check([{ kind: 'topics', items: ['a', 'b', 'c'] }, { kind: 'summary' }])).toBe(true);
  expect(check([{ kind: 'topics', items: [] }])).toBe(false);
  expect(check([{ kind: 'topics', items: ['a', 'b', 'c', 'd'] }])).toBe(false);
  expect(check([{ kind: 'summary', max_length: 251 }])).toBe(false);
  expect(check([{ kind: 'keywords', items: ['a'] }, { kind: 'keywords', items: ['b'] }])).toBe(false);
  expect(check([{ kind: 'mood', items: ['a'] }])).toBe(false);
  const six = ['sentiment', 'topics', 'keywords', 'questions'].map((kind) => ({ kind, items: ['x'] }));
  expect(check([...six, { kind: 'summary' }])).toBe(true);
  expect(check([...six, { kind: 'summary' }, { kind: 'summary' }])).toBe(false);
});
