import { describe, expect, it } from 'vitest';
import { CAST, mirrors, shapesOf } from '../../tools/contract-census.ts';

describe('tools/contract-census.ts', () => {
  it('finds a schema, its hand-written interface and a console copy as one shape declared three times', () => {
    const server = shapesOf(
      'server/x/schemas.ts',
      `export const body = { type: 'object', properties: { name: { type: 'string' }, remark: { type: 'string' } } } as const;
       export interface Body { name: string; remark?: string }`,
    );
    const console = shapesOf('src/api/x.ts', `export interface NewX { readonly remark: string; readonly name: string }`);
    const groups = mirrors([...server, ...console]);
    expect(groups).toHaveLength(1);
    expect(groups[0]?.props).toEqual(['name', 'remark']);
    expect(groups[0]?.shapes.map((s) => s.kind).sort()).toEqual(['interface', 'interface', 'json-schema']);
  });

  it('counts a TypeBox object once, and a type derived from it not at all', () => {
    const contract = shapesOf(
      'protocol/api/x.ts',
      `const More = { remark: Type.String() };
       export const Body = Type.Object({ name: Type.String(), ...More });
       export type Body = Static<typeof Body>;`,
    );
    expect(contract.map((s) => [s.kind, s.props])).toEqual([['typebox', ['name', 'remark']]]);
    const console = shapesOf('src/api/x.ts', `export type NewX = Body;`);
    expect(mirrors([...contract, ...console])).toEqual([]);
  });

  it('does not count two areas\' contracts with the same names, but does count a copy of either', () => {
    const cards = shapesOf('protocol/api/cards.ts', `export const GroupBody = Type.Object({ id: Type.Optional(Id), name: Text, remark: Type.Optional(Text) });`);
    const content = shapesOf('protocol/api/content.ts', `export const EditBody = Type.Object({ id: Id, name: Type.Optional(Text), remark: Type.Optional(Text) });`);
    expect(mirrors([...cards, ...content])).toEqual([]);
    const copy = shapesOf('server/cards/repository.ts', `export interface GroupFilter { id?: number; name: string; remark?: string }`);
    expect(mirrors([...cards, ...content, ...copy])[0]?.shapes).toHaveLength(3);
  });

  it('skips dependency bags and single-property shapes', () => {
    const shapes = shapesOf('server/x/routes.ts', `export interface XRouteDeps { db: Db; clock: Clock } interface One { id: number }`);
    expect(shapes).toEqual([]);
  });

  it('counts casts of message data, not `as const` nor other casts', () => {
    const count = (line: string) => [...line.matchAll(CAST)].length;
    expect(count('const d = env.data as Foo;')).toBe(1);
    expect(count('const p = payload as { sn: string };')).toBe(1);
    expect(count('return data as unknown as T;')).toBe(1);
    expect(count('const k = keys as const;')).toBe(0);
    expect(count('const x = value as Foo;')).toBe(0);
  });
});
