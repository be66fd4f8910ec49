import { fork, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { startNodeWorkers, type LaunchedNode } from './cluster/node-primary.ts';
import { loadConfig } from './config.ts';
import { ADMIN_ACCOUNT } from './seed.ts';
import { startServer } from './server.ts';

// The launcher behind `npm start` (loaded by server/main.ts): one process tree with the server and, unless SIM_DEVICES=0, the
// fleet simulator in a child process connecting over real WebSockets. With GATEWAY_WORKERS > 1 this
// process is the node's primary and the server runs in that many worker processes on the same port.
const config = loadConfig();
const log = (line: string) => process.stdout.write(`${line}\n`);
const server: LaunchedNode =
  config.gatewayWorkers > 1 ? await startNodeWorkers(config, { log }) : await startServer(config, { logger: process.env.LOG_REQUESTS === '1' ? true : { level: 'warn' } });

log(`Console:   ${server.url}/user/`);
if (config.gatewayWorkers > 1) log(`Workers:   ${config.gatewayWorkers} processes on port ${new URL(server.url).port} (GATEWAY_WORKERS)`);
log(`Database:  ${config.databaseUrl ? 'PostgreSQL (DATABASE_URL)' : path.join(config.dataDir, 'control-center.sqlite')}`);
if (server.seeded.generatedPassword) {
  log(`Admin login created: account "${ADMIN_ACCOUNT}", password "${server.seeded.generatedPassword}" (shown once; set ADMIN_PASSWORD to choose it)`);
} else {
  log(`Admin login: account "${ADMIN_ACCOUNT}" (password as set on first start)`);
}
log(`Enrolment key of the platform organisation (for agents): ${server.seeded.enrollKey}`);
if (!config.loginCaptcha) log('WARNING: LOGIN_CAPTCHA=off: the login verification code is not checked. Use only for automation.');
if (config.paymentSandbox) log('WARNING: PAYMENT_SANDBOX=on: payment administrators can mark orders paid without money. Use only for demos.');

let simulator: ChildProcess | undefined;
if (config.simDevices > 0) {
  simulator = fork(path.resolve(import.meta.dirname, '../agent/simulator-cli.ts'), [], {
    env: {
      ...process.env,
      GATEWAY_URL: server.deviceSocketUrl,
      ENROLL_KEY: server.seeded.enrollKey,
      SIM_DEVICES: String(config.simDevices),
      SIM_STATE_FILE: path.join(config.dataDir, 'simulator-secrets.json'),
    },
    stdio: 'inherit',
  });
  log(`Simulator: ${config.simDevices} devices connecting to ${server.deviceSocketUrl}`);
}

let stopping = false;
async function shutdown(): Promise<void> {
  if (stopping) return;
  stopping = true;
  simulator?.kill('SIGTERM');
  await server.close();
  process.exit(0);
}
process.on('SIGINT', () => void shutdown());
process.on('SIGTERM', () => void shutdown());
