import { Anchor, Group, Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { type NoticeAttachment, noticeAuthoringApi } from '../../api/notices.ts';
import { saveBlob } from './save-blob.ts';

/**
 * A notice's attachments as download links (downloads carry the session header, so they go through the
 * REST client, not a plain href). For the reader's notice dialog as well as the authoring list.
 */
export function NoticeFiles({ files }: { files: readonly NoticeAttachment[] | undefined }) {
  const { t } = useTranslation();
  if (!files?.length) return null;
  return (
    <Group gap="xs" mt="sm" data-testid="notice-files">
      <Text size="sm" fw={500}>
        {t('authoring.notice.attachments')}:
      </Text>
      {files.map((f) => (
        <Anchor key={f.id} size="sm" component="button" onClick={() => void noticeAuthoringApi.download(f.url).then((blob) => saveBlob(blob, f.name), () => undefined)}>
          {f.name}
        </Anchor>
      ))}
    </Group>
  );
}
