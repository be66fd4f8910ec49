import { describe, expect, it } from 'vitest';
import { NODE_DEAD_MS, NodeLiveness } from './node-liveness.ts';

describe('NodeLiveness', () => {
  it('declares a node dead once it has been silent for longer than the limit, and only once', () => {
    const nodes = new NodeLiveness();
    nodes.heard('a', 0);
    nodes.heard('b', 0);
    nodes.heard('b', NODE_DEAD_MS);
    expect(nodes.lapsed(NODE_DEAD_MS)).toEqual([]);
    expect(nodes.lapsed(NODE_DEAD_MS + 1)).toEqual(['a']);
    expect(nodes.lapsed(NODE_DEAD_MS + 2)).toEqual([]);
    expect(nodes.alive()).toEqual(['b']);
  });

  it('forgets a node that left on purpose without declaring it dead', () => {
    const nodes = new NodeLiveness(10);
    nodes.heard('a', 0);
    nodes.left('a');
    expect(nodes.lapsed(1_000)).toEqual([]);
    expect(nodes.alive()).toEqual([]);
  });

  it('a node that beats again after being declared dead is alive again', () => {
    const nodes = new NodeLiveness(10);
    nodes.heard('a', 0);
    expect(nodes.lapsed(11)).toEqual(['a']);
    nodes.heard('a', 12);
    expect(nodes.alive()).toEqual(['a']);
  });
});
