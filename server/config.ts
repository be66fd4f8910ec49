import path from 'node:path';
import { type TelemetrySettings, telemetrySettingsFrom } from './telemetry/ingest.ts';
import { DEFAULT_CONSOLE_COMMAND_BURST, DEFAULT_CONSOLE_COMMAND_RATE } from './gateway/command-limits.ts';
import { type UploadLimits, uploadLimitsFrom } from './uploads/upload-limits.ts';
import { type OidcSettings, oidcSettingsFrom } from './auth/oidc/oidc-settings.ts';

/** Server settings, read once from the environment at start-up. */
export interface Config {
  readonly port: number;
  readonly host: string;
  readonly dataDir: string;
  /** PostgreSQL connection string; without it the embedded database under dataDir is used. */
  readonly databaseUrl: string | undefined;
  readonly natsUrl: string | undefined;
  /** PostgreSQL schema of this installation (DATABASE_SCHEMA); unset uses the connection's default. */
  readonly databaseSchema: string | undefined;
  /** Prefix of every NATS subject of this cluster, so clusters (or test runs) can share one NATS server. */
  readonly natsPrefix: string;
  readonly adminPassword: string | undefined;
  readonly simDevices: number;
  /** Off only for automation and API clients; the server warns when it is off. */
  readonly loginCaptcha: boolean;
  readonly sessionTtlMs: number;
  /** Built console files (vite build output). */
  readonly consoleDir: string;
  /** Most organisations that may exist below the root organisation; undefined means no limit. */
  readonly orgCreateLimit: number | undefined;
  /** Retention of telemetry and reports, and the abnormal thresholds. */
  readonly telemetry: TelemetrySettings;
  /**
   * Worker processes of this node sharing its port (node:cluster); 1 is a single process. One process
   * holds at most about 19,900 sockets under this machine's open-file limit, so larger fleets need more.
   */
  readonly gatewayWorkers: number;
  /** Device sockets each process admits per second at most (reconnect storms); 0 for no limit. */
  readonly deviceAdmissionRate: number;
  /** Device logins admitted and not yet answered, per process, before devices are answered 503 (0: no bound). */
  readonly deviceLoginsInFlight: number;
  /** How long a device's upgrade past either limit waits for its turn before the 503 (0: answered at once). */
  readonly deviceAdmissionWaitMs: number;
  /** How often a node beats on a shared bus; three missed beats and the others mark its devices offline. */
  readonly clusterBeatMs: number;
  /** Console commands one session may send per second through a node's gateway (0: no limit), and in a burst. */
  readonly consoleCommandRate: number;
  readonly consoleCommandBurst: number;
  /** RECORDING_RETENTION_DAYS: recorded sessions older than this are deleted (0: kept for ever; default 90). */
  readonly recordingRetentionDays: number;
  /**
   * PAYMENT_SANDBOX=on: Alipay payments go to an in-process sandbox that payment administrators may complete
   * without money (demos). Off by default: with no real payment adapter, orders are paid by offline transfer.
   */
  readonly paymentSandbox: boolean;
  /** Single sign-on through an OpenID provider (OIDC_* variables); undefined when off. */
  readonly oidc: OidcSettings | undefined;
  /** Per-account upload caps, upload creation rate and the sweep of untaken uploads (UPLOAD_* variables). */
  readonly uploadLimits: UploadLimits;
}

function schemaFrom(value: string | undefined): string | undefined {
  if (!value) return undefined;
  // It goes into search_path: a plain identifier only.
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(value)) throw new Error(`DATABASE_SCHEMA must be a lowercase identifier, got "${value}"`);
  return value;
}

function intFrom(value: string | undefined, fallback: number, name: string): number {
  if (value === undefined || value === '') return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new Error(`${name} must be a non-negative integer, got "${value}"`);
  return n;
}

/** The wait before a 503 stays well under the 10 s a device waits for its handshake (agent/ws-transport.ts). */
function admissionWaitFrom(value: string | undefined): number {
  const ms = intFrom(value, 2_000, 'DEVICE_ADMISSION_WAIT_MS');
  if (ms > 5_000) throw new Error(`DEVICE_ADMISSION_WAIT_MS must be at most 5000 (a device gives up its handshake after 10 s), got "${value}"`);
  return ms;
}

/** Reads the configuration from environment variables (names fixed by the README). */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const root = path.resolve(import.meta.dirname, '..');
  return {
    port: intFrom(env.PORT, 8080, 'PORT'),
    host: env.HOST ?? '127.0.0.1',
    dataDir: path.resolve(env.DATA_DIR ?? path.join(root, 'data')),
    databaseUrl: env.DATABASE_URL || undefined,
    natsUrl: env.NATS_URL || undefined,
    databaseSchema: schemaFrom(env.DATABASE_SCHEMA),
    natsPrefix: env.NATS_PREFIX || 'dcc',
    adminPassword: env.ADMIN_PASSWORD || undefined,
    simDevices: intFrom(env.SIM_DEVICES, 200, 'SIM_DEVICES'),
    loginCaptcha: env.LOGIN_CAPTCHA !== 'off',
    sessionTtlMs: intFrom(env.SESSION_TTL_HOURS, 24, 'SESSION_TTL_HOURS') * 3_600_000,
    consoleDir: path.resolve(env.CONSOLE_DIR ?? path.join(root, 'dist')),
    orgCreateLimit: env.ORG_CREATE_LIMIT ? intFrom(env.ORG_CREATE_LIMIT, 0, 'ORG_CREATE_LIMIT') : undefined,
    telemetry: telemetrySettingsFrom(env),
    gatewayWorkers: Math.max(1, intFrom(env.GATEWAY_WORKERS, 1, 'GATEWAY_WORKERS')),
    deviceAdmissionRate: intFrom(env.DEVICE_ADMISSION_RATE, 2_000, 'DEVICE_ADMISSION_RATE'),
    deviceLoginsInFlight: intFrom(env.DEVICE_LOGINS_IN_FLIGHT, 1_000, 'DEVICE_LOGINS_IN_FLIGHT'),
    deviceAdmissionWaitMs: admissionWaitFrom(env.DEVICE_ADMISSION_WAIT_MS),
    clusterBeatMs: Math.max(50, intFrom(env.CLUSTER_BEAT_MS, 5_000, 'CLUSTER_BEAT_MS')),
    consoleCommandRate: intFrom(env.CONSOLE_COMMAND_RATE, DEFAULT_CONSOLE_COMMAND_RATE, 'CONSOLE_COMMAND_RATE'),
    consoleCommandBurst: intFrom(env.CONSOLE_COMMAND_BURST, DEFAULT_CONSOLE_COMMAND_BURST, 'CONSOLE_COMMAND_BURST'),
    recordingRetentionDays: intFrom(env.RECORDING_RETENTION_DAYS, 90, 'RECORDING_RETENTION_DAYS'),
    paymentSandbox: env.PAYMENT_SANDBOX === 'on',
    oidc: oidcSettingsFrom(env),
    uploadLimits: uploadLimitsFrom(env),
  };
}
