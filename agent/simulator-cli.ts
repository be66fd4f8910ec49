import path from 'node:path';
import { systemClock } from '../protocol/index.ts';
import { DEFAULT_FLEET, Fleet } from './simulator/fleet.ts';
import { fileSecretStore } from './simulator/file-secret-store.ts';
import { wsTransport } from './ws-transport.ts';

// Fleet simulator: `npm run simulator` with GATEWAY_URL and ENROLL_KEY (npm start launches it for you).
const env = process.env;
const gatewayUrl = env.GATEWAY_URL ?? 'ws://127.0.0.1:8080/device/websocket';
const enrollKey = env.ENROLL_KEY;
if (!enrollKey) {
  process.stderr.write('ENROLL_KEY is required (the organisation enrolment key printed by the server)\n');
  process.exit(2);
}
const count = Number(env.SIM_DEVICES ?? 200);
const fleet = new Fleet({
  ...DEFAULT_FLEET,
  gatewayUrl,
  enrollKey,
  count,
  seed: Number(env.SIM_SEED ?? DEFAULT_FLEET.seed),
  churnEveryMs: Number(env.SIM_CHURN_MS ?? DEFAULT_FLEET.churnEveryMs),
  transport: wsTransport(),
  clock: systemClock,
  secrets: fileSecretStore(env.SIM_STATE_FILE ?? path.resolve('data', 'simulator-secrets.json')),
  // Real downloads, unless simulated download time is off (SIM_PUSH_STEP_MS=0, the push benchmark).
  pushDownload: env.SIM_PUSH_STEP_MS !== '0',
  // A demo fleet fails 5% of pushes, so failure states, retries and rollout thresholds are there to see.
  pushFailRate: Number(env.SIM_PUSH_FAIL_RATE ?? 0.05),
});
fleet.start();

const report = setInterval(() => {
  if (env.SIM_QUIET !== '1') process.stdout.write(`[simulator] ${fleet.onlineCount}/${count} devices online\n`);
}, 30_000);
const stop = () => {
  clearInterval(report);
  fleet.stop();
  process.exit(0);
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
// Started by the server (fork): go when the server goes, even if it dies without signalling us.
if (process.send) process.on('disconnect', stop);
