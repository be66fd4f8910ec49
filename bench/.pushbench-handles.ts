import { runPushBench } from './push.bench.ts';
await runPushBench();
setTimeout(() => { console.log(process.getActiveResourcesInfo()); }, 2000).unref();
setTimeout(() => { console.log('still alive', process.getActiveResourcesInfo()); }, 5000);
