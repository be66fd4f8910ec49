import { Input } from '@mantine/core';
import { DEFAULT_LABELS, Link, RichTextEditor, type RichTextEditorLabels } from '@mantine/tiptap';
import '@mantine/tiptap/styles.css';
import { useEditor } from '@tiptap/react';
import StarterKit from '@tiptap/starter-kit';
import { useTranslation } from 'react-i18next';

// Mantine's control labels (aria-label and tooltip) in Chinese, for the controls offered here.
const ZH_LABELS: RichTextEditorLabels = {
  ...DEFAULT_LABELS,
  boldControlLabel: '粗体',
  italicControlLabel: '斜体',
  underlineControlLabel: '下划线',
  strikeControlLabel: '删除线',
  clearFormattingControlLabel: '清除格式',
  h2ControlLabel: '二级标题',
  h3ControlLabel: '三级标题',
  bulletListControlLabel: '无序列表',
  orderedListControlLabel: '有序列表',
  blockquoteControlLabel: '引用',
  linkControlLabel: '插入链接',
  unlinkControlLabel: '移除链接',
  undoControlLabel: '撤销',
  redoControlLabel: '重做',
  linkEditorInputLabel: '输入链接地址',
  linkEditorInputPlaceholder: 'https://example.com/',
  linkEditorExternalLink: '在新标签页打开',
  linkEditorInternalLink: '在当前标签页打开',
  linkEditorSave: '保存',
};

interface Props {
  readonly label: string;
  readonly description?: string;
  /** HTML; read when the field mounts (the dialog holding it mounts it per opening). */
  readonly value: string;
  readonly onChange: (html: string) => void;
  readonly error?: string | undefined;
  readonly testId?: string;
}

/**
 * A rich-text field (Tiptap through @mantine/tiptap): bold, italic, underline, strike, headings, lists,
 * quotes and links. It produces HTML; the server still sanitises whatever it receives.
 */
export function RichTextField({ label, description, value, onChange, error, testId }: Props) {
  const { i18n } = useTranslation();
  const editor = useEditor({
    // Mantine's Link replaces the starter kit's (it opens the link editor from the toolbar).
    extensions: [StarterKit.configure({ link: false }), Link.configure({ openOnClick: false })],
    content: value,
    immediatelyRender: true,
    onUpdate: ({ editor: e }) => onChange(e.isEmpty ? '' : e.getHTML()),
  });
  return (
    <Input.Wrapper label={label} description={description} error={error}>
      <RichTextEditor editor={editor} labels={i18n.language === 'zh' ? ZH_LABELS : DEFAULT_LABELS} mt={4}>
        <RichTextEditor.Toolbar>
          <RichTextEditor.ControlsGroup>
            <RichTextEditor.Bold />
            <RichTextEditor.Italic />
            <RichTextEditor.Underline />
            <RichTextEditor.Strikethrough />
            <RichTextEditor.ClearFormatting />
          </RichTextEditor.ControlsGroup>
          <RichTextEditor.ControlsGroup>
            <RichTextEditor.H2 />
            <RichTextEditor.H3 />
            <RichTextEditor.BulletList />
            <RichTextEditor.OrderedList />
            <RichTextEditor.Blockquote />
          </RichTextEditor.ControlsGroup>
          <RichTextEditor.ControlsGroup>
            <RichTextEditor.Link />
            <RichTextEditor.Unlink />
          </RichTextEditor.ControlsGroup>
          <RichTextEditor.ControlsGroup>
            <RichTextEditor.Undo />
            <RichTextEditor.Redo />
          </RichTextEditor.ControlsGroup>
        </RichTextEditor.Toolbar>
        <RichTextEditor.Content mih={140} data-testid={testId} />
      </RichTextEditor>
    </Input.Wrapper>
  );
}
