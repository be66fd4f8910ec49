import fs from 'node:fs';
import { EncodedAudioPacketSource, EncodedPacket, EncodedVideoPacketSource, FilePathTarget, Mp4OutputFormat, Output } from 'mediabunny';
import { type LiveFrame, openLiveFile } from './live-file.ts';

/**
 * Exports a recorded live-view session (live-file.ts) as a fragmented MP4, muxed by Mediabunny (a
 * maintained, dependency-free TypeScript muxer; docs/DECISIONS.md "Live-view recordings"): the recorded
 * H.264 access units (Annex B, turned into the MP4's length-prefixed form by the muxer, which also builds
 * the avcC from the first key frame's SPS and PPS) and Opus packets go in as they are, no re-encode. Times
 * are the device's media timestamps from the first picture on.
 *
 * Written to `out` (a temporary name first, renamed at the end, so a reader never sees half a file).
 * Returns the MP4's size.
 */
export async function exportLiveMp4(liveFile: string, out: string): Promise<number> {
  const { header, frames } = await openLiveFile(liveFile);
  // A first pass says whether there is voice at all: a track declared and never fed would hold every
  // picture back (the fragments interleave the tracks), so a stream whose voice never came is video only.
  let hasAudio = false;
  let hasVideo = false;
  for await (const f of frames()) {
    if (f.audio) hasAudio = true;
    else hasVideo = true;
    if (hasAudio && hasVideo) break;
  }
  const tmp = `${out}.${process.pid}.${Date.now()}.tmp`;
  const output = new Output({ format: new Mp4OutputFormat({ fastStart: 'fragmented' }), target: new FilePathTarget(tmp) });
  const video = new EncodedVideoPacketSource('avc');
  output.addVideoTrack(video, { frameRate: header.fps > 0 ? header.fps : undefined });
  const audioInfo = hasAudio ? header.audio : undefined;
  const audio = audioInfo ? new EncodedAudioPacketSource('opus') : undefined;
  if (audio) output.addAudioTrack(audio);
  try {
    await output.start();
    let base: number | undefined;
    let lastVideo = -1;
    let lastAudio = -1;
    const frameSeconds = 1 / (header.fps > 0 ? header.fps : 30);
    for await (const f of frames()) {
      if (!f.audio) {
        if (base === undefined && !f.key) continue;
        base ??= f.timestamp;
        // Pictures in decoding order (the devices send no B-frames): a timestamp that went backwards is set just after the last.
        const t = Math.max((f.timestamp - base) / 1000, lastVideo + 0.001);
        await video.add(new EncodedPacket(f.payload, f.key ? 'key' : 'delta', t, frameSeconds), lastVideo < 0 ? { decoderConfig: { codec: avcCodecString(f.payload), codedWidth: header.width, codedHeight: header.height } } : undefined);
        lastVideo = t;
      } else if (audio && audioInfo && base !== undefined) {
        const t = (f.timestamp - base) / 1000;
        if (t < 0 || t <= lastAudio) continue;
        await audio.add(new EncodedPacket(f.payload, 'key', t, opusPacketSeconds(f)), lastAudio < 0 ? { decoderConfig: { codec: 'opus', numberOfChannels: audioInfo.channels, sampleRate: audioInfo.sampleRate } } : undefined);
        lastAudio = t;
      }
    }
    if (lastVideo < 0) throw new Error('the recording holds no picture');
    await output.finalize();
    await fs.promises.rename(tmp, out);
    return (await fs.promises.stat(out)).size;
  } catch (err) {
    await output.cancel().catch(() => undefined);
    await fs.promises.rm(tmp, { force: true });
    throw err;
  }
}

/** The RFC 6381 codec string of an H.264 stream ("avc1.PPCCLL") from the SPS in a key frame; baseline 3.0 when none is found. */
export function avcCodecString(annexB: Uint8Array): string {
  for (let i = 0; i + 7 < annexB.length; i++) {
    if (annexB[i] === 0 && annexB[i + 1] === 0 && annexB[i + 2] === 1 && ((annexB[i + 3] as number) & 0x1f) === 7) {
      const hex = (b: number | undefined) => (b ?? 0).toString(16).padStart(2, '0');
      return `avc1.${hex(annexB[i + 4])}${hex(annexB[i + 5])}${hex(annexB[i + 6])}`;
    }
  }
  return 'avc1.42c01e';
}

/** An Opus packet's duration from its TOC byte (RFC 6716 section 3.1), in seconds; 20 ms when it cannot tell. */
export function opusPacketSeconds(f: Pick<LiveFrame, 'payload'>): number {
  const toc = f.payload[0];
  if (toc === undefined) return 0.02;
  const config = toc >> 3;
  const frameMs = config < 12 ? [10, 20, 40, 60][config % 4] : config < 16 ? [10, 20][config % 2] : [2.5, 5, 10, 20][config % 4];
  const code = toc & 3;
  const count = code === 0 ? 1 : code < 3 ? 2 : (f.payload[1] ?? 1) & 0x3f;
  return ((frameMs ?? 20) * Math.max(1, count)) / 1000;
}
