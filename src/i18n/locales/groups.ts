// Texts of saved views, dynamic groups, custom device fields and the push target picker (issue 23), in
// both languages; `typeof groupsEn` makes the compiler check the zh keys.
export const groupsEn = {
  view: {
    label: 'Saved view',
    placeholder: 'Load a saved view',
    none: 'No saved views yet',
    save: 'Save view',
    saveTitle: 'Save the current view',
    name: 'View name',
    shared: 'Share with my organisation',
    sharedTag: 'shared',
    delete: 'Delete view',
    deleteConfirm: 'Delete the view "{{name}}"?',
    saved: 'View "{{name}}" saved',
    columns: 'Columns ({{shown}}/{{total}})',
  },
};

export const groupsZh: typeof groupsEn = {
  view: {
    label: '已保存视图',
    placeholder: '加载已保存的视图',
    none: '暂无已保存的视图',
    save: '保存视图',
    saveTitle: '保存当前视图',
    name: '视图名称',
    shared: '在本组织内共享',
    sharedTag: '共享',
    delete: '删除视图',
    deleteConfirm: '确定删除视图“{{name}}”吗？',
    saved: '视图“{{name}}”已保存',
    columns: '列（{{shown}}/{{total}}）',
  },
};
