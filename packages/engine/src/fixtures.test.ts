/**
 * Table-driven: every scenario of fixtures/plans/scenarios runs against the fixture plans, turn by
 * turn, and must produce the actions, path and report it lists. Together they take every exit of
 * every block on voice and on chat, except the exits a channel cannot take (below).
 */
import { blockDefinitions } from '@voxplan/blocks/definitions';
import { describe, expect, test } from 'vitest';
import type { Channel } from './session.ts';
import { loadFixturePlans, loadScenarios, loadWorld, runScenario } from './testing/scenario-runner.ts';

const plans = loadFixturePlans();
const world = loadWorld();
const scenarios = loadScenarios();

/** Exits no session of that channel can take, by design (docs/engine.md). */
const impossible: Readonly<Record<Channel, readonly string[]>> = {
  voice: ['voice_chat_switch:chat'],
  // A chat has no input timeout: an idle chat ends by the plan's session timeout instead.
  chat: ['voice_chat_switch:voice', 'voice_menu:timeout'],
};

describe.each(scenarios.map(({ file, scenario }) => [`${file}: ${scenario.name}`, scenario] as const))('%s', (_name, scenario) => {
  test('turn by turn, the actions and the end the scenario lists', async () => {
    const run = await runScenario(scenario, plans, world);
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
    // The session a host would store is plain JSON.
    expect(JSON.parse(JSON.stringify(run.session))).toEqual(run.session);
  });
});

test.each(['voice', 'chat'] as const)('coverage: on %s the scenarios enter every block and take every exit', async (channel) => {
  const taken = new Set<string>();
  const entered = new Set<string>();
  const staticExits = new Map(blockDefinitions.map((definition) => [definition.type as string, definition.staticExits]));
  for (const { scenario } of scenarios.filter((item) => item.scenario.channel === channel)) {
    for (const entry of (await runScenario(scenario, plans, world)).session.path) {
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
