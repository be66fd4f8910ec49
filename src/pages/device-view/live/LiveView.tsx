import { Alert, Button, Group, SegmentedControl, Stack, Switch, Text, TextInput } from '@mantine/core';
import { notifications } from '../../../layout/toast.ts';
import { useCallback, useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useSnapshot } from 'valtio';
import {
  Command,
  type ControlKey,
  MAX_CONTROL_TEXT,
  OnlineState,
  type FailureData,
  type RemoteControlRequest,
  Result,
  type StartStreamReply,
  type StreamCamera,
  StreamRefusal,
  type StreamQuality,
} from '../../../../protocol/index.ts';
import { TOAST_MS } from '../../../api/request.ts';
import { ConfirmDialog } from '../../../components/ConfirmDialog.tsx';
import { deviceChannel } from '../../../devices/channel.ts';
import { askDevice, resultText, sendCommand, sendQuietly, toastError, toastReply } from '../../../devices/commands.ts';
import { presence } from '../../../devices/presence.ts';
import { session } from '../../../state/session.ts';
import { canDecodeH264, LivePlayer, type LivePath, type LiveStats } from './live-player.ts';
import { picturePoint } from './picture-point.ts';
import { canDecodeOpus, VoicePlayer } from './voice-player.ts';
import { useRealtimeOpen } from '../../../devices/hooks.ts';

const SCALES = ['0.5', '0.75', '1'] as const;
/** A pointer that moves less than this share of the picture between down and up is a tap. */
const TAP_SLOP = 0.02;
/** A touch held at least this long without moving is a long press, not a tap. */
const LONG_PRESS_MS = 600;
/** Wheel steps the scroll buttons send. */
const SCROLL_STEPS = 3;
/** A wheel's deltaY per step (one notch is about 100 pixels in Chromium and Firefox). */
const WHEEL_STEP_PX = 100;
/** How often the frame rate and latency readout refreshes. */
const STATS_EVERY_MS = 500;

type Status = 'idle' | 'starting' | 'playing' | 'failed';

const CAMERA_LABEL: Record<StreamCamera, string> = { screen: 'fleet.live.cameraScreen', front: 'fleet.live.cameraFront', back: 'fleet.live.cameraBack' };

/** Why a start failed, in the user's language where the device gave a known reason. */
function refusalText(reply: { readonly result: number; readonly data: FailureData }, t: (key: string) => string): string {
  if (reply.data.reason === StreamRefusal.noCamera) return t('fleet.live.noCamera');
  return resultText(reply.result, reply.data);
}

interface Props {
  readonly sn: string;
}

/**
 * Live view of one device (devices-and-commerce section 2): the device's H.264 stream through the
 * gateway, decoded by WebCodecs onto a canvas where the browser supports the stream's configuration and
 * by jmuxer into a video element otherwise, with start and stop, main or sub stream, the screen or a
 * camera, voice (Opus through WebCodecs' AudioDecoder, off until switched on: browsers play sound only
 * after a user gesture), rotate, full screen, scale, live control (tap, swipe, keys as RemoteControl)
 * and a confirmed reboot. Fills its container, so it works in a tab, a dialog or a page of its own.
 */
export function LiveView({ sn }: Props) {
  const { t } = useTranslation();
  const permissions = useSnapshot(session).permissions;
  const mayControl = permissions.includes('device_live_control');
  const mayReboot = permissions.includes('device_reboot');
  const videoRef = useRef<HTMLVideoElement>(null);
  const canvasRef = useRef<HTMLCanvasElement>(null);
  const boxRef = useRef<HTMLDivElement>(null);
  const playerRef = useRef<LivePlayer | undefined>(undefined);
  const voiceRef = useRef<VoicePlayer | undefined>(undefined);
  const audioContextRef = useRef<AudioContext | undefined>(undefined);
  const flowRef = useRef<string | undefined>(undefined);
  const [status, setStatus] = useState<Status>('idle');
  const [reason, setReason] = useState('');
  const [quality, setQuality] = useState<StreamQuality>('main');
  const [camera, setCamera] = useState<StreamCamera>('screen');
  const [voice, setVoice] = useState(false);
  // The stream has no voice (the device sent none) or this browser cannot decode it.
  const [voiceProblem, setVoiceProblem] = useState<'noVoice' | 'noAudioDecoder'>();
  const [voiceFrames, setVoiceFrames] = useState(0);
  const [confirmReboot, setConfirmReboot] = useState(false);
  const [meta, setMeta] = useState<StartStreamReply>();
  const [rotation, setRotation] = useState(0);
  const [scale, setScale] = useState<(typeof SCALES)[number]>('1');
  // The device list's "live control" action opens the view with control already on (?control=1).
  const [control, setControl] = useState(() => mayControl && new URLSearchParams(window.location.search).get('control') === '1');
  const [stats, setStats] = useState<LiveStats>({ fps: 0, latencyMs: undefined, fed: 0, shown: 0, path: undefined });
  const [path, setPath] = useState<LivePath>();
  // The browser had a decoder API but neither WebCodecs nor MSE accepted this stream's configuration.
  const [undecodable, setUndecodable] = useState(false);
  const decodable = canDecodeH264();

  // Bumped by every stop, so a start whose reply arrives after a stop (or unmount) stops its own flow.
  const generation = useRef(0);
  // The viewer wants the picture (started it and has not pressed Stop): it restarts when the device is back.
  const wanted = useRef(false);
  // The device went offline (a reboot, a drop, or a move to another organisation) while the picture was wanted.
  const [away, setAway] = useState(false);
  const [full, setFull] = useState(false);
  const [typed, setTyped] = useState('');
  const [clipboard, setClipboard] = useState<string>();

  const stopVoice = useCallback(() => {
    voiceRef.current?.dispose();
    voiceRef.current = undefined;
  }, []);

  /** Plays the voice of a started stream, when it has voice and the user switched it on. */
  const startVoice = useCallback((info: StartStreamReply) => {
    stopVoice();
    const context = audioContextRef.current;
    if (!info.audio) return setVoiceProblem('noVoice');
    // Voice is on (this runs only then), so no context means this browser has no Web Audio.
    if (!context || !canDecodeOpus()) return setVoiceProblem('noAudioDecoder');
    setVoiceProblem(undefined);
    voiceRef.current = new VoicePlayer(context, deviceChannel().chunks$, info.flowId, info.audio);
  }, [stopVoice]);

  const stop = useCallback(() => {
    generation.current++;
    stopVoice();
    playerRef.current?.dispose();
    playerRef.current = undefined;
    const flowId = flowRef.current;
    flowRef.current = undefined;
    if (flowId) deviceChannel().request(Command.StopStream, { sn, data: { flowId } }).subscribe({ error: () => undefined });
    setStatus('idle');
  }, [sn, stopVoice]);

  // The choices last made, for starts and restarts (kept beside the state the controls show).
  const qualityRef = useRef<StreamQuality>('main');
  const cameraRef = useRef<StreamCamera>('screen');
  const voiceOnRef = useRef(false);
  const ask = useCallback(() => ({ quality: qualityRef.current, camera: cameraRef.current, audio: voiceOnRef.current }), []);

  const start = useCallback(
    async () => {
      stop();
      wanted.current = true;
      setAway(false);
      const mine = generation.current;
      setStatus('starting');
      try {
        const reply = await askDevice(Command.StartStream, sn, ask());
        if (reply.result !== Result.Success) throw new Error(refusalText(reply, t));
        const info = reply.data;
        const video = videoRef.current;
        const canvas = canvasRef.current;
        if (!video || !canvas || mine !== generation.current) {
          deviceChannel().request(Command.StopStream, { sn, data: { flowId: info.flowId } }).subscribe({ error: () => undefined });
          return;
        }
        flowRef.current = info.flowId;
        setMeta(info);
        setPath(undefined);
        playerRef.current = new LivePlayer({ video, canvas }, deviceChannel(), info.flowId, info.fps, {
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
        if (voiceOnRef.current) startVoice(info);
        setStatus('playing');
      } catch (err) {
        setReason(err instanceof Error ? err.message : String(err));
        setStatus('failed');
      }
    },
    [sn, stop, startVoice, t, ask],
  );

  // Started once the console socket is open (a page opened straight on this view gets here first), and
  // again after it reconnects: the gateway drops a socket's viewers with it.
  const connected = useRealtimeOpen();
  useEffect(() => {
    // Starting the stream is the external effect this component exists for; its status follows it.
    // eslint-disable-next-line react-hooks/set-state-in-effect -- the status shown is the stream's, set as it starts
    if (decodable && connected) void start();
    return stop;
  }, [decodable, connected, start, stop]);

  // The device's presence: offline ends the picture with a notice; back online restarts it when it was wanted.
  useEffect(() => {
    let last = presence.get(sn);
    return presence.subscribe(sn, () => {
      const now = presence.get(sn);
      if (now === last) return;
      last = now;
      if (now === OnlineState.Offline && wanted.current) {
        stop();
        setAway(true);
      } else if (now === OnlineState.Online && wanted.current && decodable) {
        setAway(false);
        void start();
      }
    });
  }, [sn, start, stop, decodable]);

  useEffect(() => {
    const changed = () => setFull(document.fullscreenElement !== null && document.fullscreenElement === boxRef.current);
    document.addEventListener('fullscreenchange', changed);
    return () => document.removeEventListener('fullscreenchange', changed);
  }, []);

  useEffect(() => {
    const timer = setInterval(() => {
      if (playerRef.current) setStats(playerRef.current.stats);
      if (voiceRef.current) setVoiceFrames(voiceRef.current.stats.decoded);
    }, STATS_EVERY_MS);
    return () => clearInterval(timer);
  }, []);

  // The audio context outlives stream restarts (a new one would need another gesture); closed with the view.
  useEffect(
    () => () => {
      void audioContextRef.current?.close().catch(() => undefined);
      audioContextRef.current = undefined;
    },
    [],
  );

  /**
   * The voice switch. The audio context is created (or resumed) here, inside the click, because browsers
   * let sound play only from a user gesture. A running stream is not restarted: StartStream on the same
   * stream only changes whether the gateway sends this viewer its voice.
   */
  const toggleVoice = (on: boolean) => {
    voiceOnRef.current = on;
    setVoice(on);
    setVoiceProblem(undefined);
    setVoiceFrames(0);
    if (on && typeof AudioContext !== 'undefined') {
      audioContextRef.current ??= new AudioContext({ sampleRate: 48000, latencyHint: 'interactive' });
      void audioContextRef.current.resume().catch(() => undefined);
    }
    if (!on) stopVoice();
    if (status !== 'playing' || !flowRef.current) return;
    const mine = generation.current;
    deviceChannel()
      .request(Command.StartStream, { sn, data: ask() })
      .subscribe({
        next: (e) => {
          if (e.kind !== 'result' || mine !== generation.current || !voiceOnRef.current) return;
          if (e.reply.result === Result.Success) startVoice(e.reply.data);
          else notifications.show({ color: 'red', message: refusalText(e.reply, t), autoClose: TOAST_MS });
        },
        error: (err: unknown) => notifications.show({ color: 'red', message: err instanceof Error ? err.message : String(err), autoClose: TOAST_MS }),
      });
  };

  // The remote tab's command path (offline and repeated-click guards, the outcome toasted); the gateway
  // answers result 5 itself for a device gone offline, and Reboot is not Android-only.
  const reboot = () => void sendCommand({ sn }, Command.Reboot, undefined, { voice: 'view' });

  const send = (data: RemoteControlRequest) => sendQuietly(Command.RemoteControl, sn, data);

  /** Reads the device's clipboard into the view (and the browser's clipboard, where it allows). */
  const readClipboard = () =>
    void askDevice(Command.RemoteControl, sn, { action: 'clipboard' } satisfies RemoteControlRequest).then((reply) => {
      if (reply.result !== Result.Success) return void toastReply(reply);
      const text = reply.data.text ?? '';
      setClipboard(text);
      void navigator.clipboard?.writeText(text).catch(() => undefined);
    }, toastError);

  const natural = { width: meta?.width ?? 320, height: meta?.height ?? 240 };
  const sideways = rotation % 180 !== 0;
  // Full screen: the picture fills the screen keeping its aspect (rotated, the other way round).
  const screenScale = full ? Math.min(window.screen.width / (sideways ? natural.height : natural.width), window.screen.height / (sideways ? natural.width : natural.height)) : Number(scale);
  const width = natural.width * screenScale;
  const height = natural.height * screenScale;

  const pointAt = (e: { currentTarget: Element; clientX: number; clientY: number }) => picturePoint(e.currentTarget.getBoundingClientRect(), e.clientX, e.clientY, rotation);
  const down = useRef<{ x: number; y: number; at: number } | undefined>(undefined);

  // The picture's element (canvas or video) is sized, rotated and mapped to control input the same way.
  const surface = {
    style: { width, height, flex: 'none', transform: `rotate(${rotation}deg)`, cursor: control ? 'crosshair' : 'default', touchAction: 'none' },
    onWheel: (e: React.WheelEvent<HTMLElement>) => {
      if (!control || (e.deltaY === 0 && e.deltaX === 0)) return;
      const [x, y] = pointAt(e);
      const steps = (d: number) => (d === 0 ? 0 : Math.sign(d) * Math.min(20, Math.max(1, Math.round(Math.abs(d) / WHEEL_STEP_PX))));
      send({ action: 'scroll', x, y, dx: steps(e.deltaX), dy: steps(e.deltaY) });
    },
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
      const held = Math.round(performance.now() - from.at);
      if (Math.hypot(x - from.x, y - from.y) < TAP_SLOP) send(held >= LONG_PRESS_MS ? { action: 'longPress', x: from.x, y: from.y, durationMs: Math.min(5_000, held) } : { action: 'tap', x, y });
      else send({ action: 'swipe', x1: from.x, y1: from.y, x2: x, y2: y, durationMs: Math.min(5_000, Math.round(performance.now() - from.at)) });
    },
  };

  return (
    <Stack gap="xs" data-testid="live-view" data-status={status}>
      <Group gap="xs">
        {status === 'playing' || status === 'starting' ? (
          <Button
          size="xs"
          variant="light"
          onClick={() => {
            wanted.current = false;
            setAway(false);
            stop();
          }}
        >
            {t('fleet.live.stop')}
          </Button>
        ) : (
          <Button size="xs" onClick={() => void start()} disabled={!decodable}>
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
            if (status === 'playing') void start();
          }}
        />
        <SegmentedControl
          size="xs"
          value={camera}
          data-testid="live-camera"
          data={(['screen', 'front', 'back'] as const).map((value) => ({ value, label: t(CAMERA_LABEL[value]) }))}
          onChange={(v) => {
            cameraRef.current = v as StreamCamera;
            setCamera(v as StreamCamera);
            // A failed camera start may be retried with another choice, so restart from failed too.
            if (status === 'playing' || status === 'failed') void start();
          }}
        />
        <Switch size="xs" label={t('fleet.live.voice')} checked={voice} onChange={(e) => toggleVoice(e.currentTarget.checked)} data-testid="live-voice" />
        <Button size="xs" variant="default" onClick={() => setRotation((r) => (r + 90) % 360)}>
          {t('fleet.live.rotate')}
        </Button>
        <Button size="xs" variant="default" onClick={() => void boxRef.current?.requestFullscreen?.()}>
          {t('fleet.live.fullScreen')}
        </Button>
        <Text size="xs">{t('fleet.live.scale')}</Text>
        <SegmentedControl size="xs" value={scale} data={[...SCALES]} onChange={(v) => setScale(v as (typeof SCALES)[number])} />
        {mayControl && <Switch size="xs" label={t('fleet.live.control')} checked={control} onChange={(e) => setControl(e.currentTarget.checked)} />}
        {mayReboot && (
          <Button size="xs" variant="light" color="orange" onClick={() => setConfirmReboot(true)} data-testid="live-reboot">
            {t('deviceView.remote.reboot')}
          </Button>
        )}
      </Group>
      <ConfirmDialog
        opened={confirmReboot}
        title={t('deviceView.remote.reboot')}
        message={t('deviceView.remote.rebootConfirm', { sn })}
        onCancel={() => setConfirmReboot(false)}
        onConfirm={() => {
          setConfirmReboot(false);
          reboot();
        }}
        confirmTestId="live-reboot-confirm"
      />
      {voice && voiceProblem && (
        <Alert color="yellow" data-testid="live-voice-problem" data-problem={voiceProblem}>
          {t(`fleet.live.${voiceProblem}`)}
        </Alert>
      )}
      {(!decodable || undecodable) && (
        <Alert color="yellow" data-testid="live-no-decoder">
          {t('fleet.live.noDecoder')}
        </Alert>
      )}
      {status === 'failed' && <Alert color="red">{t('fleet.live.failed', { reason })}</Alert>}
      {away && (
        <Alert color="yellow" data-testid="live-away">
          {t('fleet.live.away')}
        </Alert>
      )}
      <div
        ref={boxRef}
        data-testid="live-box"
        data-full={full ? 'true' : 'false'}
        style={{ width: full ? '100%' : sideways ? height : width, height: full ? '100%' : sideways ? width : height, display: 'flex', alignItems: 'center', justifyContent: 'center', background: '#000', overflow: 'hidden' }}
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
        {mayControl &&
          ([-SCROLL_STEPS, SCROLL_STEPS] as const).map((dy) => (
            <Button key={dy} size="xs" variant="default" disabled={!control} onClick={() => send({ action: 'scroll', x: 0.5, y: 0.5, dx: 0, dy })} data-testid={dy < 0 ? 'live-scroll-up' : 'live-scroll-down'}>
              {t(dy < 0 ? 'fleet.live.scrollUp' : 'fleet.live.scrollDown')}
            </Button>
          ))}
        <Text
          size="xs"
          c="dimmed"
          data-testid="live-stats"
          data-fps={stats.fps}
          data-latency={stats.latencyMs ?? ''}
          data-fed={stats.fed}
          data-shown={stats.shown}
          data-path={stats.path ?? ''}
          data-audio={voiceFrames}
          data-camera={meta?.camera ?? 'screen'}
        >
          {status === 'playing' ? t('fleet.live.playing') : status === 'starting' ? t('fleet.live.starting') : t('fleet.live.idle')} · {t('fleet.live.fps', { fps: stats.fps })}
          {stats.latencyMs !== undefined && ` · ${t('fleet.live.latency', { ms: Math.round(stats.latencyMs) })}`}
          {stats.path && ` · ${t(stats.path === 'webcodecs' ? 'fleet.live.pathWebCodecs' : 'fleet.live.pathMse')}`}
          {voice && !voiceProblem && ` · ${t('fleet.live.voiceFrames', { count: voiceFrames })}`}
        </Text>
      </Group>
      {mayControl && (
        <Group gap="xs" align="flex-end" data-testid="live-text-controls">
          <TextInput
            size="xs"
            w={260}
            label={t('fleet.live.textLabel')}
            placeholder={t('fleet.live.textPlaceholder')}
            value={typed}
            maxLength={MAX_CONTROL_TEXT}
            disabled={!control}
            onChange={(e) => setTyped(e.currentTarget.value)}
            onKeyDown={(e) => {
              if (e.key === 'Enter' && typed) {
                send({ action: 'text', text: typed });
                setTyped('');
              }
            }}
            data-testid="live-text"
          />
          <Button size="xs" variant="default" disabled={!control || !typed} onClick={() => (send({ action: 'text', text: typed }), setTyped(''))} data-testid="live-type">
            {t('fleet.live.type')}
          </Button>
          <Button size="xs" variant="default" disabled={!control || !typed} onClick={() => send({ action: 'clipboard', text: typed })} data-testid="live-clipboard-set">
            {t('fleet.live.clipboardSet')}
          </Button>
          <Button size="xs" variant="default" disabled={!control} onClick={readClipboard} data-testid="live-clipboard-get">
            {t('fleet.live.clipboardGet')}
          </Button>
          {clipboard !== undefined && (
            <Text size="xs" data-testid="live-clipboard" style={{ maxWidth: 320, overflow: 'hidden', textOverflow: 'ellipsis', whiteSpace: 'nowrap' }}>
              {t('fleet.live.clipboardShown', { text: clipboard })}
            </Text>
          )}
          <Text size="xs" c="dimmed">
            {t('fleet.live.gestures')}
          </Text>
        </Group>
      )}
    </Stack>
  );
}
