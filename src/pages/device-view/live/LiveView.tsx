import { Alert, Button, Group, SegmentedControl, Stack, Switch, Text } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { useCallback, useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { lastValueFrom } from 'rxjs';
import { useSnapshot } from 'valtio';
import { Command, type ControlKey, type RemoteControlRequest, Result, type StartStreamReply, type StreamQuality } from '../../../../protocol/index.ts';
import { TOAST_MS } from '../../../api/request.ts';
import { engine } from '../../../realtime/realtime.ts';
import { resultText } from '../../../realtime/commands.ts';
import { session } from '../../../state/session.ts';
import { canDecodeH264, LivePlayer, type LivePath, type LiveStats } from './live-player.ts';
import { picturePoint } from './picture-point.ts';
import { useRealtimeOpen } from '../use-realtime-open.ts';

const SCALES = ['0.5', '0.75', '1'] as const;
/** A pointer that moves less than this share of the picture between down and up is a tap. */
const TAP_SLOP = 0.02;
/** How often the frame rate and latency readout refreshes. */
const STATS_EVERY_MS = 500;

type Status = 'idle' | 'starting' | 'playing' | 'failed';

interface Props {
  readonly sn: string;
}

/**
 * Live view of one device (devices-and-commerce section 2): the device's H.264 stream through the
 * gateway, decoded by WebCodecs onto a canvas where the browser supports the stream's configuration and
 * by jmuxer into a video element otherwise, with start and stop, main or sub stream, rotate, full screen, scale and live
 * control (tap, swipe, keys as RemoteControl). Fills its container, so it works in a tab, a dialog or
 * a page of its own.
 */
export function LiveView({ sn }: Props) {
  const { t } = useTranslation();
  const permissions = useSnapshot(session).permissions;
  const mayControl = permissions.includes('device_live_control');
  const videoRef = useRef<HTMLVideoElement>(null);
  const canvasRef = useRef<HTMLCanvasElement>(null);
  const boxRef = useRef<HTMLDivElement>(null);
  const playerRef = useRef<LivePlayer | undefined>(undefined);
  const flowRef = useRef<string | undefined>(undefined);
  const [status, setStatus] = useState<Status>('idle');
  const [reason, setReason] = useState('');
  const [quality, setQuality] = useState<StreamQuality>('main');
  const [meta, setMeta] = useState<StartStreamReply>();
  const [rotation, setRotation] = useState(0);
  const [scale, setScale] = useState<(typeof SCALES)[number]>('1');
  const [control, setControl] = useState(false);
  const [stats, setStats] = useState<LiveStats>({ fps: 0, latencyMs: undefined, fed: 0, shown: 0, path: undefined });
  const [path, setPath] = useState<LivePath>();
  // The browser had a decoder API but neither WebCodecs nor MSE accepted this stream's configuration.
  const [undecodable, setUndecodable] = useState(false);
  const decodable = canDecodeH264();

  // Bumped by every stop, so a start whose reply arrives after a stop (or unmount) stops its own flow.
  const generation = useRef(0);

  const stop = useCallback(() => {
    generation.current++;
    playerRef.current?.dispose();
    playerRef.current = undefined;
    const flowId = flowRef.current;
    flowRef.current = undefined;
    if (flowId) engine().request(Command.StopStream, { sn, data: { flowId } }).subscribe({ error: () => undefined });
    setStatus('idle');
  }, [sn]);

  const start = useCallback(
    async (q: StreamQuality) => {
      stop();
      const mine = generation.current;
      setStatus('starting');
      try {
        const { reply } = await lastValueFrom(engine().request(Command.StartStream, { sn, data: { quality: q } }));
        if (reply.result !== Result.Success) throw new Error(resultText(reply.result, reply.data));
        const info = reply.data as StartStreamReply;
        const video = videoRef.current;
        const canvas = canvasRef.current;
        if (!video || !canvas || mine !== generation.current) {
          engine().request(Command.StopStream, { sn, data: { flowId: info.flowId } }).subscribe({ error: () => undefined });
          return;
        }
        flowRef.current = info.flowId;
        setMeta(info);
        setPath(undefined);
        playerRef.current = new LivePlayer({ video, canvas }, engine(), info.flowId, info.fps, {
          onEnded: () => {
            playerRef.current?.dispose();
            playerRef.current = undefined;
            flowRef.current = undefined;
            setStatus('idle');
          },
          onPath: setPath,
          onUndecodable: () => {
            stop();
            setUndecodable(true);
          },
        });
        setStatus('playing');
      } catch (err) {
        setReason(err instanceof Error ? err.message : String(err));
        setStatus('failed');
      }
    },
    [sn, stop],
  );

  // Started once the console socket is open (a page opened straight on this view gets here first), and
  // again after it reconnects: the gateway drops a socket's viewers with it.
  const connected = useRealtimeOpen();
  // The quality chosen last, for a restart after a reconnect (kept beside the state the control shows).
  const qualityRef = useRef<StreamQuality>('main');
  useEffect(() => {
    // Starting the stream is the external effect this component exists for; its status follows it.
    if (decodable && connected) void start(qualityRef.current);
    return stop;
  }, [decodable, connected, start, stop]);

  useEffect(() => {
    const timer = setInterval(() => playerRef.current && setStats(playerRef.current.stats), STATS_EVERY_MS);
    return () => clearInterval(timer);
  }, []);

  const send = (data: RemoteControlRequest) =>
    engine()
      .request(Command.RemoteControl, { sn, data })
      .subscribe({
        next: (e) => {
          if (e.kind === 'result' && e.reply.result !== Result.Success) notifications.show({ color: 'red', message: resultText(e.reply.result, e.reply.data), autoClose: TOAST_MS });
        },
        error: (err: unknown) => notifications.show({ color: 'red', message: err instanceof Error ? err.message : String(err), autoClose: TOAST_MS }),
      });

  const pointAt = (e: React.PointerEvent<HTMLElement>) => picturePoint(e.currentTarget.getBoundingClientRect(), e.clientX, e.clientY, rotation);
  const down = useRef<{ x: number; y: number; at: number } | undefined>(undefined);

  const width = (meta?.width ?? 320) * Number(scale);
  const height = (meta?.height ?? 240) * Number(scale);
  const sideways = rotation % 180 !== 0;
  // The picture's element (canvas or video) is sized, rotated and mapped to control input the same way.
  const surface = {
    style: { width, height, transform: `rotate(${rotation}deg)`, cursor: control ? 'crosshair' : 'default', touchAction: 'none' },
    onPointerDown: (e: React.PointerEvent<HTMLElement>) => {
      if (!control) return;
      const [x, y] = pointAt(e);
      down.current = { x, y, at: performance.now() };
    },
    onPointerUp: (e: React.PointerEvent<HTMLElement>) => {
      const from = down.current;
      down.current = undefined;
      if (!control || !from) return;
      const [x, y] = pointAt(e);
      if (Math.hypot(x - from.x, y - from.y) < TAP_SLOP) send({ action: 'tap', x, y });
      else send({ action: 'swipe', x1: from.x, y1: from.y, x2: x, y2: y, durationMs: Math.min(5_000, Math.round(performance.now() - from.at)) });
    },
  };

  return (
    <Stack gap="xs" data-testid="live-view" data-status={status}>
      <Group gap="xs">
        {status === 'playing' || status === 'starting' ? (
          <Button size="xs" variant="light" onClick={stop}>
            {t('fleet.live.stop')}
          </Button>
        ) : (
          <Button size="xs" onClick={() => void start(quality)} disabled={!decodable}>
            {t('fleet.live.start')}
          </Button>
        )}
        <SegmentedControl
          size="xs"
          value={quality}
          data={[
            { value: 'main', label: t('fleet.live.main') },
            { value: 'sub', label: t('fleet.live.sub') },
          ]}
          onChange={(v) => {
            qualityRef.current = v as StreamQuality;
            setQuality(v as StreamQuality);
            if (status === 'playing') void start(v as StreamQuality);
          }}
        />
        <Button size="xs" variant="default" onClick={() => setRotation((r) => (r + 90) % 360)}>
          {t('fleet.live.rotate')}
        </Button>
        <Button size="xs" variant="default" onClick={() => void boxRef.current?.requestFullscreen?.()}>
          {t('fleet.live.fullScreen')}
        </Button>
        <Text size="xs">{t('fleet.live.scale')}</Text>
        <SegmentedControl size="xs" value={scale} data={[...SCALES]} onChange={(v) => setScale(v as (typeof SCALES)[number])} />
        {mayControl && <Switch size="xs" label={t('fleet.live.control')} checked={control} onChange={(e) => setControl(e.currentTarget.checked)} />}
      </Group>
      {(!decodable || undecodable) && (
        <Alert color="yellow" data-testid="live-no-decoder">
          {t('fleet.live.noDecoder')}
        </Alert>
      )}
      {status === 'failed' && <Alert color="red">{t('fleet.live.failed', { reason })}</Alert>}
      <div
        ref={boxRef}
        style={{ width: sideways ? height : width, height: sideways ? width : height, display: 'flex', alignItems: 'center', justifyContent: 'center', background: '#000', overflow: 'hidden' }}
      >
        <video ref={videoRef} data-testid="live-video" muted autoPlay playsInline hidden={path !== 'mse'} {...surface} />
        <canvas ref={canvasRef} data-testid="live-canvas" hidden={path !== 'webcodecs'} {...surface} />
      </div>
      <Group gap="xs">
        {mayControl &&
          (['back', 'home', 'recents'] as const satisfies readonly ControlKey[]).map((key) => (
            <Button key={key} size="xs" variant="default" disabled={!control} onClick={() => send({ action: 'key', key })}>
              {t(`fleet.live.${key}`)}
            </Button>
          ))}
        <Text size="xs" c="dimmed" data-testid="live-stats" data-fps={stats.fps} data-latency={stats.latencyMs ?? ''} data-fed={stats.fed} data-shown={stats.shown} data-path={stats.path ?? ''}>
          {status === 'playing' ? t('fleet.live.playing') : status === 'starting' ? t('fleet.live.starting') : t('fleet.live.idle')} · {t('fleet.live.fps', { fps: stats.fps })}
          {stats.latencyMs !== undefined && ` · ${t('fleet.live.latency', { ms: Math.round(stats.latencyMs) })}`}
          {stats.path && ` · ${t(stats.path === 'webcodecs' ? 'fleet.live.pathWebCodecs' : 'fleet.live.pathMse')}`}
        </Text>
      </Group>
    </Stack>
  );
}
