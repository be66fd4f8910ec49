import type { Subscription } from 'rxjs';
import {
  type AppListReply,
  type BaseInfoReply,
  Command,
  type Envelope,
  FlowJobs,
  offerFileOnFlow,
  FOLDER_NOT_DOWNLOADABLE,
  LINUX_CANNOT,
  MAX_DELETE,
  type OtaListReply,
  type ReceivedFile,
  receiveFiles,
  refusedOnSystem,
  screenshotMaxWidth,
  Result,
  type RuntimeInfoReply,
  type SystemInfoReply,
} from '../../protocol/index.ts';
import { type CommandHandler, type CommandOutcome, type DeviceSession, typed, type TypedHandler } from '../device-session.ts';
import type { FileStore } from './file-store.ts';
import { PathEscapeError, validName } from './file-store.ts';
import type { ShellProvider } from './shell.ts';
import { ShellSessions } from './shell-sessions.ts';

/** A file the device hands to the platform (screenshot, log tail). */
export interface DeviceFile {
  readonly name: string;
  readonly mime: string;
  readonly bytes: Uint8Array;
}

/** What differs between the real agent and a simulated device; the protocol handling is shared. */
export interface DeviceBackend {
  readonly systemType: 'android' | 'linux';
  baseInfo(): BaseInfoReply | Promise<BaseInfoReply>;
  systemInfo(): SystemInfoReply | Promise<SystemInfoReply>;
  runtime(limit: number): RuntimeInfoReply | Promise<RuntimeInfoReply>;
  readonly shell: ShellProvider;
  readonly files: FileStore;
  /** A PNG of the screen, or undefined when the device cannot take one. */
  /** A PNG of the screen, at most `maxWidth` pixels wide when asked (a thumbnail); undefined when unsupported. */
  screenshot(maxWidth?: number): Promise<Uint8Array | undefined>;
  logTail(maxBytes: number): Promise<DeviceFile>;
  /** Side-effecting actions; each resolves to what the device did, in words. */
  pushText(title: string, text: string): Promise<string>;
  factoryReset(): Promise<string>;
  clear(kind: 'data' | 'cache', packageName: string | undefined): Promise<string>;
  whitelist(action: 'set' | 'cancel' | 'get', packages: readonly string[]): Promise<readonly string[]>;
  daemon(packageName: string, enabled: boolean): Promise<string>;
  sshConfig(enabled: boolean, port: number | undefined): Promise<{ enabled: boolean; port: number }>;
  otaList(): Promise<OtaListReply>;
  appList(): Promise<AppListReply>;
  uninstall(packageName: string): Promise<string>;
}

/** Commands answered by {@link deviceHandlers}. */
export const DEVICE_OPS_COMMANDS: readonly number[] = [
  Command.BaseInfo,
  Command.SystemInfo,
  Command.RuntimeQuery,
  Command.Shell,
  Command.FileList,
  Command.FileUpload,
  Command.FileDownload,
  Command.FileDelete,
  Command.Screenshot,
  Command.GrabLog,
  Command.PushText,
  Command.FactoryReset,
  Command.ClearData,
  Command.ClearCache,
  Command.Whitelist,
  Command.Daemon,
  Command.ChangeSshConfig,
  Command.OtaList,
  Command.AppList,
  Command.Uninstall,
];

const ok = (data?: unknown): CommandOutcome => ({ result: Result.Success, data });
const fail = (message: string): CommandOutcome => ({ result: Result.Fail, data: { message } });
const bad = (message: string): CommandOutcome => ({ result: Result.MessageError, data: { message } });
const UPLOAD_WAIT_MS = 10 * 60_000;
const MAX_LOG_BYTES = 4 * 1024 * 1024;
/** Progress replies while a transfer runs keep the gateway's per-command timeout from expiring. */
const PROGRESS_EVERY_CHUNKS = 16;

/**
 * The handlers of every device command this area owns, over one backend. The caller adds its own
 * (reboot, base-level ones) and the other areas' commands to the map it gives its DeviceSession.
 */
export function deviceHandlers(backend: DeviceBackend): { handlers: Map<number, CommandHandler>; attach(session: DeviceSession): () => void } {
  const shells = new ShellSessions(backend.shell);
  const uploads = new Map<string, { size: number; resolve: (f: ReceivedFile) => void; reject: (err: Error) => void }>();
  // Uploads and files sent to the console, one per flow; a console's repeated request joins its flow's job.
  const jobs = new FlowJobs<CommandOutcome>();

  const linuxRefuses = (msgId: number) => refusedOnSystem(msgId, backend.systemType);
  // Each handler gets its request's data decoded by the command map (typed(): result 2 when malformed).
  const guarded = <K extends number>(msgId: K, handler: TypedHandler<K>): [number, CommandHandler] => typed(msgId, async (data, req, session) => {
      if (linuxRefuses(msgId)) return fail(LINUX_CANNOT);
      try {
        return await handler(data, req, session);
      } catch (err) {
        if (err instanceof PathEscapeError) return bad(err.message);
        return fail(err instanceof Error ? err.message : String(err));
      }
    });

  // Sends a file to the console on the request's flow, telling it first what is coming. A console that
  // lost its socket asks again on the flow: it hears the offer again and the transfer re-begins (XFER-4).
  const offerFile = (req: Envelope, session: DeviceSession, produce: () => Promise<DeviceFile>): Promise<CommandOutcome> => {
    const flowId = req.flowId;
    if (!flowId) return Promise.resolve(bad('flowId is required'));
    return jobs.run(flowId, req, async (job) => ok(await offerFileOnFlow(session.engine, job, { flowId, file: produce, progress: (r, data) => session.progress(r, data) })));
  };

  const handlers = new Map<number, CommandHandler>([
    guarded(Command.BaseInfo, async () => ok(await backend.baseInfo())),
    guarded(Command.SystemInfo, async () => ok(await backend.systemInfo())),
    guarded(Command.RuntimeQuery, async (d) => {
      const limit = d.limit ?? 200;
      return ok(await backend.runtime(Number.isInteger(limit) && limit > 0 ? Math.min(limit, 1000) : 200));
    }),
    guarded(Command.Shell, (d, req, session) => shells.handle(d, req.flowId, session)),
    guarded(Command.FileList, async (d) => {
      const p = d.path;
      const entry = await backend.files.stat(p);
      if (!entry) return fail(`No such folder: ${p}`);
      if (entry.type !== 'folder') return fail(`Not a folder: ${p}`);
      return ok({ path: p, entries: await backend.files.list(p) });
    }),
    guarded(Command.FileUpload, async (d, req, session) => {
      const flowId = req.flowId;
      const dir = d.path;
      const { name, size } = d;
      if (!flowId) return bad('flowId is required');
      if (!name) return bad('name and size are required');
      const folder = await backend.files.stat(dir);
      if (!folder || folder.type !== 'folder') return fail(`No such folder: ${dir}`);
      // Check the name before any byte travels, with the same rule the store writes by (PathEscapeError
      // for '..', separators and NUL bytes): a name refused only at the write left the console waiting.
      validName(name);
      return jobs.run(flowId, req, async (job) => {
        const received = new Promise<ReceivedFile>((resolve, reject) => {
          uploads.set(flowId, { size, resolve, reject });
          const t = setTimeout(() => {
            uploads.delete(flowId);
            reject(new Error('Upload timed out'));
          }, UPLOAD_WAIT_MS);
          t.unref?.();
        });
        let chunks = 0;
        const progress = session.engine.chunks(flowId).subscribe(() => {
          if (++chunks % PROGRESS_EVERY_CHUNKS === 0) session.progress(job.request, { stage: 'receiving', chunks });
        });
        // A console back from a dropped socket hears `ready` again and re-begins from this side's `next`.
        const again = job.rejoined$.subscribe(() => session.progress(job.request, { stage: 'ready' }));
        session.progress(job.request, { stage: 'ready' });
        try {
          const file = await received;
          const written = await backend.files.write(dir, name, file.bytes);
          return ok({ path: written, size: file.bytes.length, sha256: file.sha256 });
        } finally {
          again.unsubscribe();
          progress.unsubscribe();
          uploads.delete(flowId);
        }
      });
    }),
    guarded(Command.FileDownload, async (d, req, session) => {
      const p = d.path;
      const entry = await backend.files.stat(p);
      if (!entry) return fail(`No such file: ${p}`);
      if (entry.type === 'folder') return fail(FOLDER_NOT_DOWNLOADABLE);
      return offerFile(req, session, async () => ({ name: entry.name, mime: 'application/octet-stream', bytes: await backend.files.read(p) }));
    }),
    guarded(Command.FileDelete, async ({ paths }) => {
      if (paths.length === 0) return bad('paths must be a non-empty list of paths');
      if (paths.length > MAX_DELETE) return bad(`At most ${MAX_DELETE} files per delete`);
      // A path leaving the file root refuses the whole request (result 2, DOPS-5) before anything is deleted.
      for (const p of paths) await backend.files.stat(p);
      const deleted: string[] = [];
      const failed: { path: string; message: string }[] = [];
      for (const p of paths) {
        try {
          await backend.files.remove(p);
          deleted.push(p);
        } catch (err) {
          failed.push({ path: p, message: err instanceof Error ? err.message : String(err) });
        }
      }
      if (deleted.length > 0 || failed.length === 0) return ok({ deleted, failed });
      // Nothing deleted: a refusal, which says why (the first reasons) beside the per-path list.
      const message = failed.slice(0, 3).map((f) => `${f.path}: ${f.message}`).join('; ') + (failed.length > 3 ? `; and ${failed.length - 3} more` : '');
      return { result: Result.Fail, data: { message, deleted, failed } };
    }),
    guarded(Command.Screenshot, async (_d, req, session) => {
      return offerFile(req, session, async () => {
        const png = await backend.screenshot(screenshotMaxWidth(req.data));
        if (!png) throw new Error('This device cannot take screenshots (set AGENT_SCREENSHOT_CMD)');
        return { name: `screenshot-${Date.now()}.png`, mime: 'image/png', bytes: png };
      });
    }),
    guarded(Command.GrabLog, async (d, req, session) => {
      const asked = d.maxBytes ?? 256 * 1024;
      const maxBytes = Number.isInteger(asked) && asked > 0 ? Math.min(asked, MAX_LOG_BYTES) : 256 * 1024;
      return offerFile(req, session, () => backend.logTail(maxBytes));
    }),
    guarded(Command.PushText, async (d) => {
      const text = d.text;
      if (!text || text.length > 2000) return bad('text is required (at most 2000 characters)');
      return ok({ message: await backend.pushText(d.title ?? '', text) });
    }),
    guarded(Command.FactoryReset, async () => ok({ message: await backend.factoryReset() })),
    guarded(Command.ClearData, async (d) => ok({ message: await backend.clear('data', d.packageName) })),
    guarded(Command.ClearCache, async (d) => ok({ message: await backend.clear('cache', d.packageName) })),
    guarded(Command.Whitelist, async (d) => {
      const action = d.action;
      const packages = (d.packages ?? []).filter((p) => /^[A-Za-z0-9_.]{1,128}$/.test(p));
      if (action === 'set' && packages.length === 0) return bad('packages are required');
      return ok({ packages: await backend.whitelist(action, packages) });
    }),
    guarded(Command.Daemon, async (d) => {
      const pkg = d.packageName;
      if (!pkg) return bad('packageName is required');
      return ok({ message: await backend.daemon(pkg, d.enabled) });
    }),
    guarded(Command.ChangeSshConfig, async (d) => {
      const port = d.port;
      if (port !== undefined && (!Number.isInteger(port) || port < 1 || port > 65535)) return bad('port must be 1-65535');
      return ok(await backend.sshConfig(d.enabled, port));
    }),
    guarded(Command.OtaList, async () => ok(await backend.otaList())),
    guarded(Command.AppList, async () => ok(await backend.appList())),
    guarded(Command.Uninstall, async (d) => {
      const pkg = d.packageName;
      if (!pkg) return bad('packageName is required');
      return ok({ message: await backend.uninstall(pkg) });
    }),
  ]);

  return {
    handlers,
    // Uploads arrive as transfers on the session's engine; only flows announced by a FileUpload are accepted.
    attach(session: DeviceSession) {
      const sub: Subscription = receiveFiles(session.engine, {
        accept: (m) => uploads.get(m.flowId)?.size === m.size,
        // A failed transfer ends its upload at once: the final reply is result 1 with the reason (XFER-2).
        failed: (flowId, error) => uploads.get(flowId)?.reject(new Error(error)),
      }).subscribe((file) => uploads.get(file.flowId)?.resolve(file));
      return () => {
        sub.unsubscribe();
        shells.closeAll();
      };
    },
  };
}
