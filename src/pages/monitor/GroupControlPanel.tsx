import { Badge, Button, Card, Group, ScrollArea, Stack, Text, TextInput, Title } from '@mantine/core';
import { useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { GroupControlOutcome } from '../../../protocol/api/device-ops.ts';
import { CONTROL_KEYS, type ControlKey, MAX_CONTROL_TEXT, MAX_SWIPE_MS, type RemoteControlRequest, Result, type ResultCode } from '../../../protocol/index.ts';
import { replyMessage, toastError } from '../../devices/commands.ts';
import { useGroupControlSession } from '../../devices/group-marks.ts';
import { sendGroupInput, type ThumbnailPump, useThumbnail } from '../../devices/wall.ts';
import classes from './MonitorPage.module.css';

/** A press that moves less than this share of the picture is a tap; more is a swipe. */
const TAP_SLOP = 0.02;
const MIN_SWIPE_MS = 100;

const clamp01 = (v: number) => Math.min(1, Math.max(0, v));

interface Props {
  readonly sns: readonly string[];
  readonly pump: ThumbnailPump | undefined;
  readonly onExit: () => void;
}

/**
 * Group control: one input surface (the first device's picture), keys and text, mirrored to every device
 * of the group through the server (which checks each device); each device's result listed under it.
 */
export function GroupControlPanel({ sns, pump, onExit }: Props) {
  const { t } = useTranslation();
  const leader = sns[0] ?? '';
  const picture = useThumbnail(pump, leader);
  const [text, setText] = useState('');
  const [sending, setSending] = useState(false);
  const [last, setLast] = useState<{ input: RemoteControlRequest; list: readonly GroupControlOutcome[] }>();
  const press = useRef<{ x: number; y: number; at: number }>(undefined);
  // Other consoles showing these devices see them under this account's group control while the panel is open.
  useGroupControlSession(sns);

  const send = async (input: RemoteControlRequest) => {
    setSending(true);
    try {
      setLast({ input, list: await sendGroupInput(sns, input) });
    } catch (err) {
      toastError(err);
    } finally {
      setSending(false);
    }
  };

  const fractionOf = (e: React.PointerEvent<HTMLElement>) => {
    const r = e.currentTarget.getBoundingClientRect();
    return { x: clamp01((e.clientX - r.left) / r.width), y: clamp01((e.clientY - r.top) / r.height) };
  };
  const round = (v: number) => Math.round(v * 10_000) / 10_000;
  const onDown = (e: React.PointerEvent<HTMLElement>) => {
    e.preventDefault();
    press.current = { ...fractionOf(e), at: performance.now() };
  };
  const onUp = (e: React.PointerEvent<HTMLElement>) => {
    const from = press.current;
    press.current = undefined;
    if (!from) return;
    const to = fractionOf(e);
    if (Math.hypot(to.x - from.x, to.y - from.y) < TAP_SLOP) {
      void send({ action: 'tap', x: round(from.x), y: round(from.y) });
      return;
    }
    const durationMs = Math.round(Math.min(MAX_SWIPE_MS, Math.max(MIN_SWIPE_MS, performance.now() - from.at)));
    void send({ action: 'swipe', x1: round(from.x), y1: round(from.y), x2: round(to.x), y2: round(to.y), durationMs });
  };

  const pointer = { onPointerDown: onDown, onPointerUp: onUp, onPointerLeave: () => (press.current = undefined) };
  const inputLabel = (input: RemoteControlRequest) => (input.action === 'key' ? t('wall.inputs.key', { key: t(`wall.keys.${input.key}`) }) : t(`wall.inputs.${input.action}`));
  const outcomeText = (o: GroupControlOutcome) => {
    if (o.result === Result.Success) return o.at ? t('wall.appliedAt', { x: o.at.x, y: o.at.y }) : t('wall.applied');
    return replyMessage({ result: (o.result ?? Result.Fail) as ResultCode, data: o.message ? { message: o.message } : undefined });
  };
  const applied = last?.list.filter((o) => o.result === Result.Success).length ?? 0;

  return (
    <Card withBorder padding="sm" className={classes.panel} data-testid="group-panel">
      <Group justify="space-between" mb="xs" gap="xs">
        <Group gap={6} wrap="nowrap">
          <span className={classes.groupDot} aria-hidden />
          <Title order={5} data-testid="group-title">
            {t('wall.groupTitle', { count: sns.length })}
          </Title>
        </Group>
        <Button size="compact-sm" variant="default" onClick={onExit} data-testid="group-exit">
          {t('wall.exitGroup')}
        </Button>
      </Group>
      <Text size="xs" c="dimmed" mb={6}>
        {t('wall.padHint')}
      </Text>
      <div className={classes.pad}>
        {/* The surface is the picture itself (or its stand-in), so a press's fractions are of the device's picture. */}
        {picture ? (
          <img src={picture} alt={t('wall.pictureOf', { sn: leader })} draggable={false} className={classes.padPicture} data-testid="group-pad" {...pointer} />
        ) : (
          <div className={classes.padEmpty} role="application" aria-label={t('wall.pictureOf', { sn: leader })} data-testid="group-pad" {...pointer}>
            <Text size="xs" c="dimmed" ta="center" px="xs">
              {t('wall.noPicture')}
            </Text>
          </div>
        )}
      </div>
      <Group gap={4} mt="xs" justify="center">
        {CONTROL_KEYS.map((key: ControlKey) => (
          <Button key={key} size="compact-xs" variant="light" disabled={sending} onClick={() => void send({ action: 'key', key })} data-testid={`group-key-${key}`}>
            {t(`wall.keys.${key}`)}
          </Button>
        ))}
      </Group>
      <Group gap={4} mt="xs" wrap="nowrap">
        <TextInput
          size="xs"
          style={{ flex: 1 }}
          placeholder={t('wall.text')}
          aria-label={t('wall.text')}
          maxLength={MAX_CONTROL_TEXT}
          value={text}
          onChange={(e) => setText(e.currentTarget.value)}
          data-testid="group-text"
        />
        <Button size="xs" disabled={sending || text.length === 0} onClick={() => void send({ action: 'text', text })} data-testid="group-type">
          {t('wall.type')}
        </Button>
      </Group>
      <Group justify="space-between" mt="sm" mb={4}>
        <Text size="sm" fw={600}>
          {t('wall.results')}
        </Text>
        {sending ? (
          <Text size="xs" c="dimmed">
            {t('wall.sending')}
          </Text>
        ) : (
          last && (
            <Text size="xs" c="dimmed" data-testid="group-summary">
              {t('wall.lastInput', { input: inputLabel(last.input) })} · {t('wall.summary', { ok: applied, count: last.list.length })}
            </Text>
          )
        )}
      </Group>
      <ScrollArea.Autosize mah={320}>
        <Stack gap={2} data-testid="group-results">
          {sns.map((sn) => {
            const o = last?.list.find((r) => r.sn === sn);
            const ok = o?.result === Result.Success;
            return (
              <Group key={sn} gap={6} wrap="nowrap" className={classes.resultRow} data-testid="group-result" data-sn={sn} data-result={o ? String(o.result) : ''}>
                <Text size="xs" ff="monospace" className={classes.resultSn}>
                  {sn}
                </Text>
                {o ? (
                  <Badge size="sm" variant="light" color={ok ? 'green' : 'red'} style={{ textTransform: 'none' }} className={classes.resultBadge}>
                    {outcomeText(o)}
                  </Badge>
                ) : (
                  <Text size="xs" c="dimmed">
                    {t('wall.noResults')}
                  </Text>
                )}
              </Group>
            );
          })}
        </Stack>
      </ScrollArea.Autosize>
    </Card>
  );
}
