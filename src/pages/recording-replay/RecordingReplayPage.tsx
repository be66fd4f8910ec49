import 'asciinema-player/dist/bundle/asciinema-player.css';
import { Alert, Anchor, Button, Group, Loader, Title } from '@mantine/core';
import * as AsciinemaPlayer from 'asciinema-player';
import { useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useSearch } from 'wouter';
import { saveBytes } from '../../api/device-ops.ts';
import { recordingApi } from '../../api/timeline.ts';

/**
 * Replay of a recorded shell session (/device-view/recording?id=, issue 22): the asciicast v2 file played
 * by asciinema-player (play, pause, speed, seek with the keyboard and the progress bar), and its download.
 */
export function RecordingReplayPage() {
  const { t } = useTranslation();
  const id = new URLSearchParams(useSearch()).get('id') ?? '';
  const box = useRef<HTMLDivElement>(null);
  const [cast, setCast] = useState<string | undefined>();
  const [failed, setFailed] = useState(false);

  useEffect(() => {
    if (!id) return;
    let live = true;
    recordingApi.download(id).then(
      (blob) => blob.text().then((text) => live && setCast(text)),
      () => live && setFailed(true),
    );
    return () => {
      live = false;
    };
  }, [id]);

  useEffect(() => {
    if (cast === undefined || !box.current) return;
    const player = AsciinemaPlayer.create({ data: cast }, box.current, { fit: 'width', speed: 1, idleTimeLimit: 2 });
    return () => player.dispose();
  }, [cast]);

  if (!id || failed) return <Alert color="orange" data-testid="recording-missing">{t('timeline.replay.missing')}</Alert>;
  return (
    <>
      <Group mb="md" justify="space-between">
        <Title order={3}>{t('timeline.replay.title')}</Title>
        <Group>
          <Button variant="light" disabled={cast === undefined} onClick={() => cast !== undefined && saveBytes(`${id}.cast`, 'application/x-asciicast', new TextEncoder().encode(cast))} data-testid="recording-download">
            {t('timeline.replay.download')}
          </Button>
          <Anchor onClick={() => window.history.back()}>{t('timeline.replay.back')}</Anchor>
        </Group>
      </Group>
      {cast === undefined && <Loader data-testid="recording-loading" />}
      <div ref={box} data-testid="recording-player" />
    </>
  );
}
