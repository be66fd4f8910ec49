import type { FastifyInstance } from 'fastify';
import { ok } from '../http/envelope.ts';
import { callerOf } from '../http/guard.ts';
import type { DeviceRepository } from './repository.ts';

/** Page sizes the console offers (platform-core section 9). */
export const PAGE_SIZES = [10, 20, 30, 40, 50, 100] as const;

interface ListBody {
  pageNum?: number;
  pageSize?: number;
  sn?: string;
  onlineState?: number;
}

/** Device list. Not shown by the spec: POST /device/list in the style of /org/list. */
export function registerDeviceRoutes(app: FastifyInstance, devices: DeviceRepository): void {
  app.post<{ Body: ListBody }>(
    '/device/list',
    {
      config: { permission: 'device_list' },
      schema: {
        body: {
          type: 'object',
          additionalProperties: false,
          properties: {
            pageNum: { type: 'integer', minimum: 1, default: 1 },
            pageSize: { type: 'integer', enum: [...PAGE_SIZES], default: 10 },
            sn: { type: 'string', maxLength: 128 },
            onlineState: { type: 'integer', enum: [1, 2] },
          },
        },
      },
    },
    async (req) => {
      const body = req.body ?? {};
      return ok(
        await devices.list({
          scope: callerOf(req).scope,
          pageNum: body.pageNum ?? 1,
          pageSize: body.pageSize ?? 10,
          sn: body.sn,
          onlineState: body.onlineState,
        }),
      );
    },
  );
}
