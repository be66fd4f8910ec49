import { runApiBench } from './api.bench.ts';
import { runConsoleBench } from './console.bench.ts';
import { runGatewayBench } from './gateway.bench.ts';
import { runProtocolBench } from './protocol.bench.ts';
import { runPushBench } from './push.bench.ts';
import { runRecordingBench } from './recording.bench.ts';
import { runReportsBench } from './reports.bench.ts';
import { runTimelineBench } from './timeline.bench.ts';
import { runUiBench } from './ui.bench.ts';
import { type BenchRow, printTable } from './table.ts';

// `npm run bench -- <name>...`; no name runs them all. Numbers are noisy on shared machines, so each
// benchmark measures its raw baseline in the same run and prints the ratio.
const benches: Record<string, { title: string; run: () => Promise<BenchRow[]> }> = {
  protocol: { title: 'protocol engine (one core)', run: runProtocolBench },
  api: { title: 'HTTP API (autocannon on loopback, server in this process)', run: runApiBench },
  gateway: { title: 'gateway (server and simulator on this 2-core machine)', run: runGatewayBench },
  reports: { title: 'report queries (p95 per report; baseline: bare count over devices)', run: runReportsBench },
  ui: { title: 'console UI under fleet load (real Chromium, 2-core machine)', run: runUiBench },
  console: { title: 'console bundle (what the login page loads, as sent compressed)', run: runConsoleBench },
  recording: { title: 'recording on the gateway, per minute of shell (asciicast v2, busy output) and of live view (H.264 at 30 fps with Opus); baseline: the same gateway work unrecorded', run: runRecordingBench },
  timeline: { title: 'device timeline writes (issue 21), outside the gateway', run: runTimelineBench },
  push: { title: 'push campaign (fleet in a separate process, simulated download time off, 2-core machine)', run: runPushBench },
};

const wanted = process.argv.slice(2);
const unknown = wanted.filter((n) => !(n in benches));
if (unknown.length) {
  process.stderr.write(`Unknown benchmark(s): ${unknown.join(', ')}. Available: ${Object.keys(benches).join(', ')}\n`);
  process.exit(2);
}
for (const name of wanted.length ? wanted : Object.keys(benches)) {
  const bench = benches[name];
  if (bench) printTable(bench.title, await bench.run());
}
