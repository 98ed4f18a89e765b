import { planSettingsSchema } from '@voxplan/blocks/definitions';
import { describe, expect, test } from 'vitest';
import { commit, connect, contentOf, fragmentOf, freeSpotNear, graphOf, withChatFollowingVoice, paste, readFragment, redo, removeElements, startHistory, touch, undo } from './graph-state.ts';

const settings = planSettingsSchema.parse({});
const plan = () =>
  graphOf({
    settings,
    nodes: [
      { id: 'start', type: 'start', position: { x: 0, y: 0 }, data: {} },
      { id: 'menu', type: 'voice_menu', position: { x: 200, y: 0 }, data: { voice_text: 'Press 1', options: [{ digits: '1', label: 'Sales' }] } },
      { id: 'bye', type: 'hangup', position: { x: 400, y: 0 }, data: {} },
    ],
    edges: [
      { id: 'e1', source: 'start', source_exit: 'next', target: 'menu' },
      { id: 'e2', source: 'menu', source_exit: '1', target: 'bye' },
    ],
  });

describe('history', () => {
  test('undo restores the very graph that was there, so a plan undone to its saved state is clean again', () => {
    const saved = startHistory(plan());
    const edited = commit(saved, { settings: { ...settings, chat_text: 'bye' } });
    expect(edited.graph.revision).not.toBe(saved.graph.revision);
    const undone = undo(edited);
    expect(undone.graph).toBe(saved.graph);
    const redone = redo(undone);
    expect(redone.graph).toBe(edited.graph);
  });

  test('a new edit drops what could be redone', () => {
    const history = undo(commit(startHistory(plan()), { settings: { ...settings, chat_text: 'a' } }));
    expect(history.future).toHaveLength(1);
    expect(commit(history, { settings: { ...settings, chat_text: 'b' } }).future).toHaveLength(0);
  });

  test('keys typed into one field within a second are one undo step; another field is another', () => {
    const start = startHistory(plan());
    let history = commit(start, { settings: { ...settings, chat_text: 'h' } }, { mergeKey: 'settings.chat_text', now: 1_000 });
    history = commit(history, { settings: { ...settings, chat_text: 'hi' } }, { mergeKey: 'settings.chat_text', now: 1_500 });
    expect(history.past).toHaveLength(1);
    expect(undo(history).graph).toBe(start.graph);
    history = commit(history, { settings: { ...settings, chat_text: 'hi', webhook: 'h' } }, { mergeKey: 'settings.webhook', now: 1_600 });
    expect(history.past).toHaveLength(2);
    history = commit(history, { settings: { ...settings, chat_text: 'hi', webhook: 'ht' } }, { mergeKey: 'settings.webhook', now: 3_000 });
    expect(history.past).toHaveLength(3);
  });

  test('a measurement or a drag in progress is no edit: same revision, nothing to undo', () => {
    const history = startHistory(plan());
    const touched = touch(history, { nodes: history.graph.nodes.map((node) => ({ ...node, measured: { width: 10, height: 10 } })) });
    expect(touched.graph.revision).toBe(history.graph.revision);
    expect(touched.past).toHaveLength(0);
  });
});

describe('edits', () => {
  test('removing a block removes its edges; the start block stays', () => {
    const graph = plan();
    const change = removeElements(graph, new Set(['menu', 'start']), new Set());
    expect(change?.nodes?.map((node) => node.id)).toEqual(['start', 'bye']);
    expect(change?.edges).toEqual([]);
    expect(removeElements(graph, new Set(['start']), new Set())).toBeUndefined();
  });

  test('an exit leads to one block: connecting it again replaces its edge', () => {
    const graph = plan();
    const change = connect(graph, { source: 'start', sourceExit: 'next', target: 'bye' });
    const fromStart = change?.edges?.filter((edge) => edge.source === 'start');
    expect(fromStart).toHaveLength(1);
    expect(fromStart?.[0]).toMatchObject({ source_exit: 'next', target: 'bye' });
    expect(change?.edges).toContainEqual({ id: 'e2', source: 'menu', source_exit: '1', target: 'bye' });
  });

  test('copy and paste: new ids, the edges between the copied blocks follow, the start block is left out', () => {
    const graph = plan();
    const fragment = fragmentOf(graph, new Set(['start', 'menu', 'bye']));
    expect(fragment.nodes.map((node) => node.id)).toEqual(['menu', 'bye']);
    expect(fragment.edges).toEqual([{ id: 'e2', source: 'menu', source_exit: '1', target: 'bye' }]);
    const pasted = paste(graph, readFragment(JSON.stringify(fragment))!, { offset: { x: 40, y: 40 } })!;
    expect(pasted.nodeIds).toHaveLength(2);
    const nodes = pasted.change.nodes!;
    expect(nodes).toHaveLength(5);
    const copy = nodes.find((node) => node.id === pasted.nodeIds[0])!;
    expect(copy).toMatchObject({ type: 'voice_menu', position: { x: 240, y: 40 }, data: { voice_text: 'Press 1' } });
    expect(pasted.change.edges!.at(-1)).toMatchObject({ source: pasted.nodeIds[0], source_exit: '1', target: pasted.nodeIds[1] });
    // The copy's data is its own: editing it leaves the original alone.
    expect(copy.data).not.toBe(graph.nodes[1]!.data);
  });

  test('a whole plan file pastes as blocks; text that is not blocks pastes nothing', () => {
    const file = JSON.stringify({ format_version: 1, name: 'x', ...contentOf(plan()) });
    expect(readFragment(file)?.nodes).toHaveLength(3);
    expect(readFragment('hello')).toBeUndefined();
    expect(readFragment('{"nodes": [{"id": 1}]}')).toBeUndefined();
  });

  test('saved content carries no React Flow fields and whole-pixel positions', () => {
    const graph = plan();
    const moved = { ...graph, nodes: graph.nodes.map((node) => ({ ...node, position: { x: node.position.x + 0.4, y: 10.6 }, measured: { width: 1, height: 2 } })) };
    const content = contentOf(moved);
    expect(content.nodes[1]).toEqual({ id: 'menu', type: 'voice_menu', position: { x: 200, y: 11 }, data: graph.nodes[1]!.data });
  });
});

test('a block added where another stands goes below it, clear of every block', () => {
  const graph = plan();
  expect(freeSpotNear(graph, { x: 1_000, y: 1_000 })).toEqual({ x: 1_000, y: 1_000 });
  const spot = freeSpotNear(graph, { x: 210, y: 10 });
  expect(spot.x).toBe(210);
  expect(spot.y).toBeGreaterThanOrEqual(90 + 20);
});

test('with the texts synced, a block\'s chat text follows its voice text; blocks without both are left alone', () => {
  expect(withChatFollowingVoice({ voice_text: 'Hi', chat_text: 'old' })).toEqual({ voice_text: 'Hi', chat_text: 'Hi' });
  const plain = { voice_text: 'Hi' };
  expect(withChatFollowingVoice(plain)).toBe(plain);
});
