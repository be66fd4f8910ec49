import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ADMIN_ROLE, permissionCatalogue } from '../../protocol/index.ts';
import type { Caller } from '../accounts/caller.ts';
import { canAssign, canManage, type CallerFacts, coversRole, effectivePermissions, type RoleFacts } from './grants.ts';

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

describe('grant rules (property)', () => {
  it('canAssign, coversRole and canManage agree with the model for every role', () => {
    fc.assert(
      fc.property(worldArb, (w) => {
        const facts = callerFactsOf(w, w.roles, w.actorRole, w.actorOrg);
        for (let r = 0; r < w.roles.length; r++) {
          const role = roleFacts(w.roles, r);
          const grantable = modelGrantable(w.roles, w.actorRole, r);
          const visible = modelVisible(w, w.roles, w.actorRole, w.actorOrg, r);
          const owned = role.orgId === null ? w.actorOrg === 0 : subtree(w.parents, w.actorOrg).has((role.orgId ?? 0) - 1);
          expect(coversRole(facts, role), `covers role ${r}`).toBe(grantable);
          expect(canAssign(facts, role), `assign role ${r}`).toBe(visible && grantable);
          expect(canManage(facts, role), `manage role ${r}`).toBe(r !== 0 && owned && grantable);
        }
      }),
      { numRuns: 500 },
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
              if (canManage(facts, role)) {
                const widened = [...new Set([...(roles[r] as RoleSpec).keys, ...[...facts.caller.permissions].filter((k) => (KEYS as readonly string[]).includes(k))])];
                if (widened.length > (roles[r] as RoleSpec).keys.length) {
                  roles[r] = { ...(roles[r] as RoleSpec), keys: widened };
                  grew = true;
                }
              }
              if (!canAssign(facts, roleFacts(roles, r))) continue;
              for (const org of subtree(w.parents, holderOrg)) {
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
