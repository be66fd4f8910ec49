import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ADMIN_ROLE, permissionCatalogue } from '../../protocol/index.ts';
import type { Caller } from '../accounts/caller.ts';
import { canAssign, canManage, type CallerFacts, coversRole, effectivePermissions, holdableIn, type RoleFacts } from './grants.ts';

/*
 * The grant rules as properties over arbitrary organisation trees and role sets (security issue, item 3):
 * nobody can create, assign, edit or take over an account or role holding keys they do not hold.
 * The rules are checked against a model written here independently of grants.ts, and then as a closure:
 * whatever chain of assignments and role edits an actor makes, no account it reaches holds a key it lacks.
 */

const KEYS = ['home_list', 'org_list', 'device_list', 'role_list', 'admin_list', 'notice_publish'] as const;
const ALL_KEYS: ReadonlySet<string> = new Set(permissionCatalogue.map((e) => e.key));

interface RoleSpec {
  /** Owning node index, or null for a platform role. */
  readonly org: number | null;
  readonly keys: readonly string[];
}

interface World {
  /** parents[i] is the parent index of node i + 1; node 0 is the root. */
  readonly parents: readonly number[];
  /** Role 0 is the admin role (a platform role); the others are ordinary. */
  readonly roles: readonly RoleSpec[];
  readonly actorOrg: number;
  readonly actorRole: number;
}

const worldArb: fc.Arbitrary<World> = fc
  .integer({ min: 1, max: 6 })
  .chain((n) =>
    fc.record({
      parents: fc.tuple(...Array.from({ length: n - 1 }, (_, i) => fc.nat({ max: i }))),
      roles: fc.array(fc.record({ org: fc.option(fc.nat({ max: n - 1 }), { nil: null }), keys: fc.subarray([...KEYS]) }), { minLength: 1, maxLength: 6 }),
      actorOrg: fc.nat({ max: n - 1 }),
    }),
  )
  .chain((w) => fc.nat({ max: w.roles.length }).map((actorRole) => ({ ...w, roles: [{ org: null, keys: [] }, ...w.roles], actorRole })));

const roleId = (index: number) => index + 1;
const orgId = (index: number) => index + 1;

function subtree(parents: readonly number[], root: number): Set<number> {
  const out = new Set([root]);
  // Parents come before their children, so one pass in order finds every descendant.
  for (let i = 1; i <= parents.length; i++) if (out.has(parents[i - 1] ?? -1)) out.add(i);
  return out;
}

/** Node `node` and its ancestors up to the root, nearest first, as organisation ids. */
function pathOf(parents: readonly number[], node: number): number[] {
  const out = [orgId(node)];
  for (let n = node; n !== 0; n = parents[n - 1] ?? 0) out.push(orgId(parents[n - 1] ?? 0));
  return out;
}

function roleFacts(roles: readonly RoleSpec[], index: number): RoleFacts {
  const spec = roles[index] as RoleSpec;
  const name = index === 0 ? ADMIN_ROLE : `role${index}`;
  return { id: roleId(index), name, orgId: spec.org === null ? null : orgId(spec.org), permissions: effectivePermissions(name, spec.keys) };
}

function callerFactsOf(w: World, roles: readonly RoleSpec[], roleIndex: number, org: number): CallerFacts {
  const role = roleFacts(roles, roleIndex);
  const caller: Caller = {
    session: { tokenHash: '', accountId: 1, expiresAt: 0 },
    accountId: 1,
    account: 'actor',
    nickname: '',
    orgId: orgId(org),
    orgName: '',
    role: role.name,
    permissions: role.permissions,
    scope: new Set([...subtree(w.parents, org)].map(orgId)),
    scopeCoversAll: org === 0,
    updatePasswordLastTime: 0,
    expireTime: null,
    language: 2,
    customerType: 1,
  };
  return { caller, roleId: role.id, atRoot: org === 0 };
}

/** The model: which keys a role confers, and who may see and grant it, from the spec's words only. */
const modelKeys = (roles: readonly RoleSpec[], index: number): ReadonlySet<string> => (index === 0 ? ALL_KEYS : new Set((roles[index] as RoleSpec).keys));
const subset = (a: ReadonlySet<string>, b: ReadonlySet<string>) => [...a].every((k) => b.has(k));

function modelGrantable(roles: readonly RoleSpec[], actorRole: number, target: number): boolean {
  // The admin role is more than its keys (it gets every key added later): only its holders hand it out.
  return target === 0 ? actorRole === 0 : subset(modelKeys(roles, target), modelKeys(roles, actorRole));
}

function modelVisible(w: World, roles: readonly RoleSpec[], actorRole: number, actorOrg: number, target: number): boolean {
  const owner = (roles[target] as RoleSpec).org;
  return target === actorRole || (owner === null ? actorOrg === 0 : subtree(w.parents, actorOrg).has(owner));
}

/** The model of where a role may be held: anywhere for a platform role, else in its owner's subtree. */
function modelHoldable(w: World, roles: readonly RoleSpec[], r: number, holderNode: number): boolean {
  const owner = (roles[r] as RoleSpec).org;
  return owner === null || subtree(w.parents, owner).has(holderNode);
}

describe('grant rules (property)', () => {
  it('canAssign, coversRole and canManage agree with the model for every role, holder organisation and holder set', () => {
    fc.assert(
      fc.property(
        worldArb.chain((w) =>
          fc.record({
            w: fc.constant(w),
            holderNode: fc.nat({ max: w.parents.length }),
            holders: fc.array(fc.subarray(Array.from({ length: w.parents.length + 1 }, (_, i) => i)), { minLength: w.roles.length, maxLength: w.roles.length }),
          }),
        ),
        ({ w, holderNode, holders }) => {
          const facts = callerFactsOf(w, w.roles, w.actorRole, w.actorOrg);
          const actorScope = subtree(w.parents, w.actorOrg);
          for (let r = 0; r < w.roles.length; r++) {
            const role = roleFacts(w.roles, r);
            const grantable = modelGrantable(w.roles, w.actorRole, r);
            const visible = modelVisible(w, w.roles, w.actorRole, w.actorOrg, r);
            const owned = role.orgId === null ? w.actorOrg === 0 : actorScope.has((role.orgId ?? 0) - 1);
            const holderNodes = holders[r] ?? [];
            expect(coversRole(facts, role), `covers role ${r}`).toBe(grantable);
            expect(holdableIn(role, pathOf(w.parents, holderNode)), `role ${r} holdable in node ${holderNode}`).toBe(modelHoldable(w, w.roles, r, holderNode));
            expect(canAssign(facts, role, pathOf(w.parents, holderNode)), `assign role ${r} in node ${holderNode}`).toBe(visible && grantable && modelHoldable(w, w.roles, r, holderNode));
            expect(canManage(facts, role, holderNodes.map(orgId)), `manage role ${r}`).toBe(r !== 0 && owned && grantable && holderNodes.every((n) => actorScope.has(n)));
          }
        },
      ),
      { numRuns: 500 },
    );
  });

  it('across the tree, every account a role reaches lies in its owner subtree, so whoever may edit a role reaches all its holders', () => {
    // Every organisation's accounts act (one account per role held there), starting from holders that obey the
    // rule; each assigns what it may to accounts anywhere in its subtree (its own, or a new organisation's
    // login). Whatever they do, no role ends up held outside its owner's subtree, and so an actor that may
    // change a role (canManage even without the holder check) has every holder of it in its own scope: a
    // child organisation never sets the keys of an account above it (security review, M3).
    fc.assert(
      fc.property(
        worldArb.chain((w) => fc.record({ w: fc.constant(w), logins: fc.array(fc.nat({ max: w.roles.length - 1 }), { minLength: w.parents.length + 1, maxLength: w.parents.length + 1 }) })),
        ({ w, logins }) => {
          const nodes = Array.from({ length: w.parents.length + 1 }, (_, i) => i);
          // Each node's login account holds a role it may hold (the admin role when the drawn one may not be).
          const held = new Set<string>(nodes.map((n) => `${modelHoldable(w, w.roles, logins[n] ?? 0, n) ? (logins[n] ?? 0) : 0}:${n}`));
          let grew = true;
          while (grew) {
            grew = false;
            for (const entry of [...held]) {
              const [holderRole, holderNode] = entry.split(':').map(Number) as [number, number];
              const facts = callerFactsOf(w, w.roles, holderRole, holderNode);
              for (let r = 0; r < w.roles.length; r++) {
                for (const target of subtree(w.parents, holderNode)) {
                  if (!canAssign(facts, roleFacts(w.roles, r), pathOf(w.parents, target)) || held.has(`${r}:${target}`)) continue;
                  held.add(`${r}:${target}`);
                  grew = true;
                }
              }
            }
          }
          const holdersOf = (r: number) => [...held].map((e) => e.split(':').map(Number) as [number, number]).filter(([role]) => role === r).map(([, n]) => n);
          for (let r = 0; r < w.roles.length; r++) {
            for (const n of holdersOf(r)) expect(modelHoldable(w, w.roles, r, n), `role ${r} held in node ${n}, outside its owner's subtree`).toBe(true);
          }
          for (const entry of held) {
            const [actorRole, actorNode] = entry.split(':').map(Number) as [number, number];
            const facts = callerFactsOf(w, w.roles, actorRole, actorNode);
            const scope = subtree(w.parents, actorNode);
            for (let r = 0; r < w.roles.length; r++) {
              if (!canManage(facts, roleFacts(w.roles, r), [])) continue;
              for (const n of holdersOf(r)) expect(scope.has(n), `node ${actorNode} edits role ${r}, held in node ${n} outside its scope`).toBe(true);
            }
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it('no chain of assignments and role edits reaches an account holding a key the actor lacks', () => {
    fc.assert(
      fc.property(worldArb, (w) => {
        const roles = w.roles.map((r) => ({ ...r, keys: [...r.keys] }));
        const actorKeys = modelKeys(roles, w.actorRole);
        // Every (role, organisation) an account the actor controls could hold: its own, then any account it
        // creates or re-roles (in its subtree, with a role it may assign), or whose password it resets, and
        // so on from each of those. A role it may manage grows to the most it may give: the manager's keys.
        const reached = new Set<string>([`${w.actorRole}:${w.actorOrg}`]);
        let grew = true;
        while (grew) {
          grew = false;
          for (const entry of [...reached]) {
            const [holderRole, holderOrg] = entry.split(':').map(Number) as [number, number];
            const facts = callerFactsOf(w, roles, holderRole, holderOrg);
            for (let r = 0; r < roles.length; r++) {
              const role = roleFacts(roles, r);
              if (canManage(facts, role, [])) {
                const widened = [...new Set([...(roles[r] as RoleSpec).keys, ...[...facts.caller.permissions].filter((k) => (KEYS as readonly string[]).includes(k))])];
                if (widened.length > (roles[r] as RoleSpec).keys.length) {
                  roles[r] = { ...(roles[r] as RoleSpec), keys: widened };
                  grew = true;
                }
              }
              for (const org of subtree(w.parents, holderOrg)) {
                if (!canAssign(facts, roleFacts(roles, r), pathOf(w.parents, org))) continue;
                const key = `${r}:${org}`;
                if (!reached.has(key)) {
                  reached.add(key);
                  grew = true;
                }
              }
            }
          }
        }
        for (const entry of reached) {
          const r = Number(entry.split(':')[0]);
          if (r === 0) expect(w.actorRole, 'only an admin reaches the admin role').toBe(0);
          expect(subset(modelKeys(roles, r), actorKeys), `role ${r} reached with keys beyond the actor's`).toBe(true);
        }
      }),
      { numRuns: 300 },
    );
  });
});
