import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { permissionCatalogue } from '../../../protocol/index.ts';
import { allPermitKeys, buildPermitTree, checkState, togglePermit } from './permission-tree.ts';

const entries = permissionCatalogue.map((e) => ({ id: e.key, parentId: e.parent, label: e.en }));
const tree = buildPermitTree(entries);

describe('role permission tree', () => {
  it('holds every catalogued key once, children under their parent', () => {
    expect(allPermitKeys(tree).sort()).toEqual(permissionCatalogue.map((e) => e.key).sort());
    const authority = tree.find((n) => n.key === 'permit_manage');
    expect(authority?.children.map((c) => c.key)).toEqual(['admin_list', 'role_list', 'webhook_manage']);
    expect(authority?.label).toBe('Authority');
  });

  it('checking a child checks its parent; unchecking a parent unchecks its children', () => {
    let selected = togglePermit(tree, new Set(), 'role_list', true);
    expect([...selected].sort()).toEqual(['permit_manage', 'role_list']);
    const authority = tree.find((n) => n.key === 'permit_manage');
    if (!authority) throw new Error('missing permit_manage');
    expect(checkState(authority, selected)).toBe('partial');
    selected = togglePermit(tree, selected, 'admin_list', true);
    expect(checkState(authority, selected)).toBe('partial');
    selected = togglePermit(tree, selected, 'webhook_manage', true);
    expect(checkState(authority, selected)).toBe('checked');
    selected = togglePermit(tree, selected, 'permit_manage', false);
    expect(selected.size).toBe(0);
  });

  it('for any sequence of toggles, no key is selected without its parent', () => {
    const keys = allPermitKeys(tree);
    const parentOf = new Map(entries.map((e) => [e.id, e.parentId]));
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.constantFrom(...keys), fc.boolean())), (steps) => {
        let selected = new Set<string>();
        for (const [key, on] of steps) selected = togglePermit(tree, selected, key, on);
        for (const key of selected) {
          const parent = parentOf.get(key);
          if (parent) expect(selected.has(parent)).toBe(true);
        }
      }),
    );
  });
});
