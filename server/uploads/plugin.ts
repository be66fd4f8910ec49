import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import type { Clock } from '../../protocol/index.ts';
import type { UploadLimits } from './upload-limits.ts';
import { UploadService } from './upload-service.ts';

declare module 'fastify' {
  interface FastifyInstance {
    /** The file store: resumable uploads and the content blobs they become (DATA_DIR/uploads, DATA_DIR/content). */
    readonly uploads: UploadService;
  }
}

export interface UploadsPluginOptions {
  readonly clock: Clock;
  /** Uploads go to <dataDir>/uploads, stored files to <dataDir>/content. */
  readonly dataDir: string;
  /** Per-account upload caps, the upload creation rate and the sweep (defaults: upload-limits.ts). */
  readonly limits?: UploadLimits | undefined;
}

/**
 * The file store as infrastructure (issue 17 part 4): decorates the app with the upload service (the tus
 * endpoints, content, custom orders and campaigns use it) and sweeps, from ready to close, unfinished
 * uploads past their expiry and finished ones nobody took (hourly by default).
 */
async function uploadsPlugin(app: FastifyInstance, opts: UploadsPluginOptions): Promise<void> {
  const { clock } = opts;
  const uploads = new UploadService(opts.dataDir, opts.limits);
  app.decorate('uploads', uploads);
  let sweep: unknown;
  let closed = false;
  const schedule = () => {
    if (!closed) sweep = clock.setTimeout(() => void uploads.sweep(clock.now()).catch(() => 0).then(schedule), uploads.sweepEveryMs);
  };
  app.addHook('onReady', async () => schedule());
  app.addHook('onClose', async () => {
    closed = true;
    clock.clearTimeout(sweep);
  });
}

export default fp(uploadsPlugin, { name: 'uploads', fastify: '5.x' });
