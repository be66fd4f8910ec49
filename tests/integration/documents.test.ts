import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Client, client, createOrg, createRole } from '../support/console-api.ts';
import { dbTargets } from '../support/databases.ts';
import { loginAs, loginAsAdmin, injectTestServer, type TestServer } from '../support/server.ts';

const targets = await dbTargets();

interface CategoryNode {
  id: number;
  name: string;
  children: { id: number; name: string }[];
}
interface DocumentDetail {
  id: number;
  title: string;
  content: string;
  categoryId: number;
  updateTime: number;
}

let serial = 0;
const unique = (prefix: string) => `${prefix}${++serial}`;

for (const target of targets) {
  describe.skipIf(!target.available)(`document library (${target.name})`, () => {
    let ts: TestServer;
    let admin: Client;

    beforeAll(async () => {
      ts = await injectTestServer(target.name);
      admin = client(ts, (await loginAsAdmin(ts)).token);
    });
    afterAll(async () => ts?.stop());

    const saveCategory = async (body: Record<string, unknown>) => (await admin.ok<{ id: number }>('POST', '/archives-category/save', body)).id;

    /** A first-level category with one second-level child. */
    async function tree(): Promise<{ top: number; child: number; en: string; zh: string }> {
      const en = unique('Guides ');
      const zh = unique('指南');
      const top = await saveCategory({ parentId: null, nameZh: zh, nameEn: en });
      const child = await saveCategory({ parentId: top, nameZh: `${zh}子`, nameEn: `${en} sub` });
      return { top, child, en, zh };
    }

    it('builds a two-level tree, answers in the caller language, and sanitises content', async () => {
      const { top, child, en, zh } = await tree();
      const third = await admin.call('POST', '/archives-category/save', { parentId: child, nameZh: '三', nameEn: 'Third' });
      expect(third.code).toBe(40001);

      const docId = (
        await admin.ok<{ id: number }>('POST', '/archives-document/save', {
          categoryId: child,
          titleZh: '入门',
          titleEn: 'Getting started',
          contentZh: '<p>你好</p>',
          contentEn: '<p>Hello<img src="x" onerror="alert(1)"></p><script>alert(2)</script>',
        })
      ).id;
      // Only the English title: the Chinese reader falls back to it.
      await admin.ok('POST', '/archives-document/save', { categoryId: child, titleZh: '', titleEn: 'English only', contentZh: '', contentEn: '<b>x</b>' });
      // A document cannot sit in a first-level category.
      const misplaced = await admin.call('POST', '/archives-document/save', { categoryId: top, titleZh: 'a', titleEn: 'a', contentZh: '', contentEn: '' });
      expect(misplaced.code).toBe(40001);

      const listedTree = await admin.ok<CategoryNode[]>('GET', '/archives-category/first-and-second-tree');
      expect(listedTree.find((c) => c.id === top)).toEqual({ id: top, name: en, children: [{ id: child, name: `${en} sub` }] });
      expect(listedTree.some((c) => c.id === child)).toBe(false);

      const list = await admin.ok<{ id: number; title: string; updateTime: number }[]>('GET', `/archives-document/list/${child}`);
      expect(list.map((d) => d.title)).toEqual(['Getting started', 'English only']);
      expect(list[0]?.updateTime).toEqual(expect.any(Number));
      const detail = await admin.ok<DocumentDetail>('GET', `/archives-document/detail/${docId}`);
      expect(detail).toMatchObject({ id: docId, title: 'Getting started', categoryId: child });
      expect(detail.content).toContain('Hello');
      expect(detail.content).not.toMatch(/<script|alert\(2\)|onerror/i);

      await admin.ok('POST', '/common/modify-language', { languageType: 1 });
      expect((await admin.ok<{ languageType: number }>('GET', '/home/getAccountDetail')).languageType).toBe(1);
      const zhTree = await admin.ok<CategoryNode[]>('GET', '/archives-category/first-and-second-tree');
      expect(zhTree.find((c) => c.id === top)).toEqual({ id: top, name: zh, children: [{ id: child, name: `${zh}子` }] });
      const zhList = await admin.ok<{ title: string }[]>('GET', `/archives-document/list/${child}`);
      expect(zhList.map((d) => d.title)).toEqual(['入门', 'English only']);
      expect(await admin.ok<DocumentDetail>('GET', `/archives-document/detail/${docId}`)).toMatchObject({ title: '入门', content: '<p>你好</p>' });
      await admin.ok('POST', '/common/modify-language', { languageType: 2 });
      expect((await admin.call('POST', '/common/modify-language', { languageType: 3 })).code).toBe(40001);
    });

    it('refuses to delete a category with children or documents', async () => {
      const { top, child } = await tree();
      const doc = (await admin.ok<{ id: number }>('POST', '/archives-document/save', { categoryId: child, titleZh: '', titleEn: 'Doc', contentZh: '', contentEn: 'x' })).id;
      expect((await admin.call('DELETE', `/archives-category/del/${top}`)).code).toBe(40001);
      expect((await admin.call('DELETE', `/archives-category/del/${child}`)).code).toBe(40001);
      await admin.ok('DELETE', `/archives-document/del/${doc}`);
      expect((await admin.call('GET', `/archives-document/detail/${doc}`)).code).toBe(40004);
      await admin.ok('DELETE', `/archives-category/del/${child}`);
      await admin.ok('DELETE', `/archives-category/del/${top}`);
      expect((await admin.call('GET', `/archives-document/list/${child}`)).code).toBe(40004);
    });

    it('gates reading on document_list and authoring on document_manage', async () => {
      const { child } = await tree();
      const readerRole = await createRole(admin, unique('reader'), ['document_list', 'home_list']);
      const owner = unique('owner');
      await createOrg(admin, { name: unique('Org '), account: owner, password: 'Owner_pw1', roleId: readerRole });
      const reader = client(ts, (await loginAs(ts, owner, 'Owner_pw1')).token);
      expect(await reader.ok<CategoryNode[]>('GET', '/archives-category/first-and-second-tree')).toEqual(expect.any(Array));
      expect((await reader.call('POST', '/archives-category/save', { nameZh: 'x', nameEn: 'x' })).code).toBe(40003);
      const write = await reader.call('POST', '/archives-document/save', { categoryId: child, titleZh: 'x', titleEn: 'x', contentZh: '', contentEn: '' });
      expect(write.code).toBe(40003);
      expect((await reader.call('DELETE', `/archives-category/del/${child}`)).code).toBe(40003);

      const plainRole = await createRole(admin, unique('plain'), ['home_list']);
      const plainAccount = unique('plain');
      await createOrg(admin, { name: unique('Org '), account: plainAccount, password: 'Plain_pw1', roleId: plainRole });
      const plain = client(ts, (await loginAs(ts, plainAccount, 'Plain_pw1')).token);
      expect((await plain.call('GET', '/archives-category/first-and-second-tree')).code).toBe(40003);
      expect((await plain.call('GET', `/archives-document/list/${child}`)).code).toBe(40003);
      const authorRole = await createRole(admin, unique('author'), ['document_list', 'document_manage']);
      const authorAccount = unique('author');
      await createOrg(admin, { name: unique('Org '), account: authorAccount, password: 'Author_pw1', roleId: authorRole });
      const author = client(ts, (await loginAs(ts, authorAccount, 'Author_pw1')).token);
      // The key lets an author write in its own organisation's categories, never in the platform's.
      const write2 = await author.call('POST', '/archives-document/save', { categoryId: child, titleZh: '作者', titleEn: 'By author', contentZh: '', contentEn: 'x' });
      expect(write2.code).toBe(40003);
      const ownTop = (await author.ok<{ id: number }>('POST', '/archives-category/save', { parentId: null, nameZh: '自有', nameEn: 'Own' })).id;
      const ownChild = (await author.ok<{ id: number }>('POST', '/archives-category/save', { parentId: ownTop, nameZh: '自有子', nameEn: 'Own sub' })).id;
      await author.ok('POST', '/archives-document/save', { categoryId: ownChild, titleZh: '作者', titleEn: 'By author', contentZh: '', contentEn: 'x' });
      // Any session may choose its language.
      await plain.ok('POST', '/common/modify-language', { languageType: 1 });
    });
  });
}
