/**
 * Table-driven: every scenario of fixtures/plans/scenarios runs against the fixture plans, turn by
 * turn, and must produce the actions, path and report it lists. Together they take every exit of
 * every block on voice and on chat, except the exits a channel cannot take (below). The `fx`
 * blocks' scripts run in the real Lua sandbox.
 */
import { blockDefinitions } from '@voxplan/blocks/definitions';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { LuaScriptRunner } from './lua/index.ts';
import type { ScriptResult } from './ports.ts';
import type { Channel } from './session.ts';
import { type ExpectedLua, loadFixturePlans, loadScenarios, loadWorld, runScenario } from './testing/scenario-runner.ts';

const plans = loadFixturePlans();
const world = loadWorld();
const scenarios = loadScenarios();

let scripts: LuaScriptRunner;
beforeAll(async () => {
  scripts = new LuaScriptRunner();
  await scripts.warm();
});
afterAll(() => scripts.close());

const options = () => ({ plans, world, scripts });

/** A failure's message need only contain the scenario's text: Lua's wording is not the plan's business. */
const luaResult = (expected: ExpectedLua): ScriptResult =>
  'exit' in expected
    ? { ok: true, exit: expected.exit, set: expected.set ?? {} }
    : { ok: false, reason: expected.reason, message: expected.message === undefined ? expect.any(String) : expect.stringContaining(expected.message) };

/** Exits no session of that channel can take, by design (docs/engine.md). */
const impossible: Readonly<Record<Channel, readonly string[]>> = {
  // A WhatsApp template is a chat's: a call skips it by `sent`.
  voice: ['voice_chat_switch:chat', 'whatsapp_template:<data>', 'whatsapp_template:failed'],
  // A chat has no input timeout: an idle chat ends by the plan's session timeout instead.
  chat: ['voice_chat_switch:voice', 'voice_menu:timeout'],
};

describe.each(scenarios.map(({ file, scenario }) => [`${file}: ${scenario.name}`, scenario] as const))('%s', (_name, scenario) => {
  test('turn by turn, the actions and the end the scenario lists', async () => {
    const run = await runScenario(scenario, options());
    scenario.turns.forEach((turn, index) => {
      const result = run.results[index]!;
      if (turn.actions) expect(result.actions, `actions of turn ${index}`).toEqual(turn.actions);
      if (turn.status) expect(result.session.status, `status after turn ${index}`).toBe(turn.status);
      if (turn.ignored !== undefined) expect(result.ignored === true, `turn ${index} ignored`).toBe(turn.ignored);
    });
    if (scenario.path) expect(run.path).toEqual(scenario.path);
    const report = run.results.at(-1)!.report;
    if (scenario.report) {
      expect(report).toBeDefined();
      expect({ ...report, pressed_digits: report!.pressed_digits.map((entry) => entry.digits) }).toMatchObject(scenario.report);
    }
    if (scenario.variables) expect(run.session.variables).toEqual(scenario.variables);
    // Every Lua run is listed, so a scenario cannot pass on an exit its script never chose.
    expect(run.ports.log.scripts.map(({ result }) => result), 'what Lua answered').toEqual((scenario.lua ?? []).map(luaResult));
    // The session a host would store is plain JSON.
    expect(JSON.parse(JSON.stringify(run.session))).toEqual(run.session);
  });
});

test.each(['voice', 'chat'] as const)('coverage: on %s the scenarios enter every block and take every exit', async (channel) => {
  const taken = new Set<string>();
  const entered = new Set<string>();
  const staticExits = new Map(blockDefinitions.map((definition) => [definition.type as string, definition.staticExits]));
  for (const { scenario } of scenarios.filter((item) => item.scenario.channel === channel)) {
    for (const entry of (await runScenario(scenario, options())).session.path) {
      entered.add(entry.type);
      // Exits that come from the data (menu options, API cases, Lua returns) count once per block type.
      if (entry.exit !== null) taken.add(`${entry.type}:${staticExits.get(entry.type)?.includes(entry.exit) ? entry.exit : '<data>'}`);
    }
  }
  const wanted = blockDefinitions
    .flatMap((definition) => [...definition.staticExits, ...(definition.hasDataExits ? ['<data>'] : [])].map((exit) => `${definition.type}:${exit}`))
    .filter((key) => !impossible[channel].includes(key));
  expect([...taken].sort()).toEqual(wanted.sort());
  expect([...entered].sort()).toEqual(blockDefinitions.map((definition) => definition.type).sort());
});

// The ports may answer at once (a host's cache hit, these memory ports) or with promises (a miss):
// every turn of every scenario must come out the same either way.
test('the scenarios run alike on ports that answer with promises', async () => {
  for (const { file, scenario } of scenarios) {
    const atOnce = await runScenario(scenario, options());
    const promised = await runScenario(scenario, { ...options(), world: { ...world, async: true } });
    expect(promised.results, `${file}: ${scenario.name}`).toEqual(atOnce.results);
    expect(promised.ports.log, `${file}: ${scenario.name}`).toEqual(atOnce.ports.log);
  }
});
