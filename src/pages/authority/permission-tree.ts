/**
 * The role form's permission tree as pure functions: built from the flat /permit/getAllPermits list by
 * parentId. Checking a key also checks its ancestors (a child key without its page or group key would
 * grant a button on a page nobody can open); unchecking a key unchecks its descendants.
 */

export interface PermitNode {
  readonly key: string;
  readonly label: string;
  readonly children: readonly PermitNode[];
}

interface FlatPermit {
  readonly id: string;
  readonly parentId: string | null;
  readonly label: string;
}

/** Builds the tree in catalogue order; an entry whose parent is unknown becomes a root. */
export function buildPermitTree(entries: readonly FlatPermit[]): PermitNode[] {
  const ids = new Set(entries.map((e) => e.id));
  const byParent = new Map<string | null, FlatPermit[]>();
  for (const e of entries) {
    const parent = e.parentId !== null && ids.has(e.parentId) ? e.parentId : null;
    byParent.set(parent, [...(byParent.get(parent) ?? []), e]);
  }
  const seen = new Set<string>();
  const nodes = (parent: string | null): PermitNode[] =>
    (byParent.get(parent) ?? [])
      .filter((e) => !seen.has(e.id) && seen.add(e.id))
      .map((e) => ({ key: e.id, label: e.label, children: nodes(e.id) }));
  return nodes(null);
}

function descendants(node: PermitNode): string[] {
  return node.children.flatMap((c) => [c.key, ...descendants(c)]);
}

/** The keys from the root down to `key` (inclusive), or empty when `key` is not in the tree. */
function pathTo(tree: readonly PermitNode[], key: string): string[] {
  for (const node of tree) {
    if (node.key === key) return [key];
    const below = pathTo(node.children, key);
    if (below.length) return [node.key, ...below];
  }
  return [];
}

function find(tree: readonly PermitNode[], key: string): PermitNode | undefined {
  for (const node of tree) {
    if (node.key === key) return node;
    const hit = find(node.children, key);
    if (hit) return hit;
  }
  return undefined;
}

/** The selection after checking or unchecking `key`. */
export function togglePermit(tree: readonly PermitNode[], selected: ReadonlySet<string>, key: string, checked: boolean): Set<string> {
  const next = new Set(selected);
  const node = find(tree, key);
  if (!node) return next;
  if (checked) {
    for (const k of [...pathTo(tree, key), ...descendants(node)]) next.add(k);
  } else {
    for (const k of [key, ...descendants(node)]) next.delete(k);
  }
  return next;
}

/** How a node's checkbox looks: checked, partly (checked but some descendants not), or not. */
export function checkState(node: PermitNode, selected: ReadonlySet<string>): 'checked' | 'partial' | 'unchecked' {
  if (!selected.has(node.key)) return 'unchecked';
  return descendants(node).every((k) => selected.has(k)) ? 'checked' : 'partial';
}

/** Every key of the tree. */
export function allPermitKeys(tree: readonly PermitNode[]): string[] {
  return tree.flatMap((n) => [n.key, ...descendants(n)]);
}
