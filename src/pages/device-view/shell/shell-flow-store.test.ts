import { describe, expect, it } from 'vitest';
import { type FlowStorage, shellFlowStore } from './shell-flow-store.ts';

function memoryStorage(): FlowStorage & { readonly items: Map<string, string> } {
  const items = new Map<string, string>();
  return {
    items,
    getItem: (k) => items.get(k) ?? null,
    setItem: (k, v) => void items.set(k, v),
    removeItem: (k) => void items.delete(k),
  };
}

describe('shell flow store', () => {
  it('gives a remembered flow back to the same login, per device, and forgets it on request', () => {
    const storage = memoryStorage();
    const store = shellFlowStore(() => storage, () => 'token-a');
    store.set('SN-1', 'sh-1');
    store.set('SN-2', 'sh-2');
    expect(store.get('SN-1')).toBe('sh-1');
    expect(store.get('SN-2')).toBe('sh-2');
    store.set('SN-1', undefined);
    expect(store.get('SN-1')).toBeUndefined();
    expect(store.get('SN-2')).toBe('sh-2');
  });

  it('does not give one login’s flow to the next login in the same tab', () => {
    const storage = memoryStorage();
    let token = 'token-a';
    const store = shellFlowStore(() => storage, () => token);
    store.set('SN-1', 'sh-1');
    token = 'token-b';
    expect(store.get('SN-1')).toBeUndefined();
    // Nor is the token itself written down.
    expect([...storage.items.values()].join()).not.toContain('token-a');
  });

  it('works without storage, and with storage that refuses or holds something else', () => {
    const refusing: FlowStorage = {
      getItem: () => {
        throw new Error('denied');
      },
      setItem: () => {
        throw new Error('quota');
      },
      removeItem: () => undefined,
    };
    expect(() => shellFlowStore(() => refusing, () => 't').set('SN-1', 'sh-1')).not.toThrow();
    expect(shellFlowStore(() => refusing, () => 't').get('SN-1')).toBeUndefined();
    expect(shellFlowStore(() => undefined, () => 't').get('SN-1')).toBeUndefined();
    const odd = memoryStorage();
    odd.setItem('dcc.shell-flow.SN-1', 'not json');
    expect(shellFlowStore(() => odd, () => 't').get('SN-1')).toBeUndefined();
  });
});
