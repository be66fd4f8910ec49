import 'asciinema-player/dist/bundle/asciinema-player.css';
import { ActionIcon, Alert, Anchor, Badge, Button, Group, Loader, Paper, ScrollArea, Stack, Table, Text, TextInput, Title } from '@mantine/core';
import { IconChevronDown, IconChevronUp, IconSearch } from '@tabler/icons-react';
import * as AsciinemaPlayer from 'asciinema-player';
import { useEffect, useMemo, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useSearch } from 'wouter';
import { saveBytes } from '../../api/device-ops.ts';
import { type RecordingDetail, recordingApi } from '../../api/timeline.ts';
import { formatDateTime } from '../../format/date.ts';
import { searchCast } from './cast-search.ts';

/** Idle gaps longer than this play as this long (seconds); search times follow the same timeline. */
const IDLE_TIME_LIMIT = 2;

type Content = { readonly kind: 'shell'; readonly cast: string } | { readonly kind: 'live'; readonly url: string; readonly blob: Blob };

/**
 * Replay of a recorded session (/device-view/recording?id=, issue 22). A shell session is its asciicast v2
 * file played by asciinema-player (play, pause, speed, seek), with a search of its output that jumps to each
 * match; a live-view session is its MP4 in a video element. Each load and download is noted server-side,
 * and the page lists who watched the recording and when.
 */
export function RecordingReplayPage() {
  const { t } = useTranslation();
  const id = new URLSearchParams(useSearch()).get('id') ?? '';
  const box = useRef<HTMLDivElement>(null);
  const player = useRef<AsciinemaPlayer.Player | null>(null);
  const [detail, setDetail] = useState<RecordingDetail | undefined>();
  const [content, setContent] = useState<Content | undefined>();
  const [failed, setFailed] = useState(false);
  const [downloading, setDownloading] = useState(false);
  const [query, setQuery] = useState('');
  const [current, setCurrent] = useState(-1);

  useEffect(() => {
    if (!id) return;
    let live = true;
    let url: string | undefined;
    (async () => {
      const first = await recordingApi.detail(id);
      const blob = await recordingApi.download(id, 'replay');
      if (!live) return;
      if (first.recording.kind === 'live') {
        url = URL.createObjectURL(new Blob([blob], { type: 'video/mp4' }));
        setContent({ kind: 'live', url, blob });
      } else setContent({ kind: 'shell', cast: await blob.text() });
      // Read again: the list of who watched now holds this view.
      const again = await recordingApi.detail(id);
      if (live) setDetail(again);
    })().catch(() => live && setFailed(true));
    return () => {
      live = false;
      if (url) URL.revokeObjectURL(url);
    };
  }, [id]);

  useEffect(() => {
    if (content?.kind !== 'shell' || !box.current) return;
    const created = AsciinemaPlayer.create({ data: content.cast }, box.current, { fit: 'width', speed: 1, idleTimeLimit: IDLE_TIME_LIMIT });
    player.current = created;
    return () => {
      player.current = null;
      created.dispose();
    };
  }, [content]);

  const matches = useMemo(() => (content?.kind === 'shell' && query.trim() ? searchCast(content.cast, query.trim(), IDLE_TIME_LIMIT) : []), [content, query]);

  const jump = (index: number) => {
    const match = matches[index];
    if (!match || !player.current) return;
    setCurrent(index);
    const p = player.current;
    // Just past the event that completes the match, paused, so the match is on screen.
    void p.pause().then(() => p.seek(match.time + 0.001));
  };

  const download = async () => {
    if (!detail) return;
    setDownloading(true);
    try {
      const blob = await recordingApi.download(id, 'download');
      const live = detail.recording.kind === 'live';
      saveBytes(`${detail.recording.sn}-${id}${live ? '.mp4' : '.cast'}`, live ? 'video/mp4' : 'application/x-asciicast', new Uint8Array(await blob.arrayBuffer()));
      setDetail(await recordingApi.detail(id));
    } finally {
      setDownloading(false);
    }
  };

  if (!id || failed) return <Alert color="orange" data-testid="recording-missing">{t('timeline.replay.missing')}</Alert>;
  const rec = detail?.recording;
  const live = rec?.kind === 'live';
  return (
    <>
      <Group mb="md" justify="space-between" wrap="wrap">
        <Group gap="sm">
          <Title order={3}>{t('timeline.replay.title')}</Title>
          {rec && (
            <>
              <Badge variant="light" data-testid="recording-kind">{t(`recordings.kinds.${rec.kind === 'live' ? 'live' : 'shell'}`)}</Badge>
              <Anchor component={Link} href={`/device-view/index?sn=${encodeURIComponent(rec.sn)}`}>{rec.sn}</Anchor>
              <Text size="sm" c="dimmed">
                {rec.account} · {formatDateTime(rec.startedAt)}
              </Text>
            </>
          )}
        </Group>
        <Group>
          <Button variant="light" disabled={!detail || content === undefined} loading={downloading} onClick={() => void download()} data-testid="recording-download">
            {live ? t('timeline.replay.downloadMp4') : t('timeline.replay.download')}
          </Button>
          <Anchor onClick={() => window.history.back()}>{t('timeline.replay.back')}</Anchor>
        </Group>
      </Group>
      {content === undefined && <Loader data-testid="recording-loading" />}
      {content?.kind === 'shell' && (
        <Stack gap="xs" mb="sm">
          <Group gap="xs" wrap="nowrap">
            <TextInput
              leftSection={<IconSearch size={16} />}
              placeholder={t('timeline.replay.searchPlaceholder')}
              aria-label={t('timeline.replay.search')}
              value={query}
              onChange={(e) => {
                setQuery(e.currentTarget.value);
                setCurrent(-1);
              }}
              onKeyDown={(e) => e.key === 'Enter' && matches.length > 0 && jump((current + 1) % matches.length)}
              w={320}
              data-testid="recording-search"
            />
            <Text size="sm" c="dimmed" data-testid="recording-search-count">
              {!query.trim() ? '' : current >= 0 ? t('timeline.replay.matches', { count: matches.length, current: current + 1 }) : t('timeline.replay.matchCount', { count: matches.length })}
            </Text>
            <ActionIcon variant="subtle" disabled={!matches.length} onClick={() => jump((Math.max(current, 0) - 1 + matches.length) % matches.length)} aria-label={t('timeline.replay.previous')}>
              <IconChevronUp size={16} />
            </ActionIcon>
            <ActionIcon variant="subtle" disabled={!matches.length} onClick={() => jump((current + 1) % matches.length)} aria-label={t('timeline.replay.next')}>
              <IconChevronDown size={16} />
            </ActionIcon>
          </Group>
          {matches.length > 0 && (
            <ScrollArea.Autosize mah={120}>
              <Stack gap={2} data-testid="recording-matches">
                {matches.map((m, i) => (
                  <Anchor key={`${m.time}-${i}`} size="sm" onClick={() => jump(i)} fw={i === current ? 700 : 400} data-testid="recording-match">
                    {formatSeconds(m.time)} · {m.context}
                  </Anchor>
                ))}
              </Stack>
            </ScrollArea.Autosize>
          )}
        </Stack>
      )}
      {content?.kind === 'live' && (
        <video src={content.url} controls muted playsInline data-testid="recording-video" style={{ display: 'block', width: '100%', maxWidth: 960, maxHeight: '65vh', background: '#000' }} />
      )}
      <div ref={box} data-testid="recording-player" />
      {detail && (
        <Paper withBorder p="sm" mt="md" data-testid="recording-views">
          <Title order={5} mb="xs">{t('timeline.replay.watchedBy')}</Title>
          {detail.views.length === 0 ? (
            <Text size="sm" c="dimmed">{t('timeline.replay.noViews')}</Text>
          ) : (
            <Table striped withRowBorders={false} fz="sm">
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>{t('timeline.account')}</Table.Th>
                  <Table.Th>{t('timeline.replay.viewKind')}</Table.Th>
                  <Table.Th>{t('timeline.time')}</Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {detail.views.map((v, i) => (
                  <Table.Tr key={`${v.at}-${i}`} data-testid="recording-view">
                    <Table.Td>{v.account}</Table.Td>
                    <Table.Td>{t(`timeline.replay.purposes.${v.purpose}`)}</Table.Td>
                    <Table.Td>{formatDateTime(v.at)}</Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          )}
        </Paper>
      )}
    </>
  );
}

/** m:ss of a player time. */
function formatSeconds(s: number): string {
  const whole = Math.floor(s);
  return `${Math.floor(whole / 60)}:${String(whole % 60).padStart(2, '0')}`;
}
