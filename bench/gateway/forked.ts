import { type ChildProcess, fork } from 'node:child_process';

/**
 * The bench's handle on a forked helper process that answers requests over the fork IPC channel: ask a
 * question, wait for the answer of a given kind. Load generators and measuring clients run forked so they
 * do not share the server's event loop.
 */
export class ForkedProcess<Request extends { readonly kind: string }, Reply extends { readonly kind: string }> {
  readonly child: ChildProcess;
  readonly #waiting: ((reply: Reply) => boolean)[] = [];

  constructor(script: string, env: Record<string, string>, execArgv: string[] = []) {
    // BENCH_CPU_PROF=<dir> profiles the forked processes too (run the bench itself with --cpu-prof for the server);
    // BENCH_TRACE_GC=1 prints their GC pauses, where round-trip tails come from on a shared machine.
    const profile = process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : [];
    this.child = fork(script, [], { env: { ...process.env, ...env }, execArgv: [...execArgv, ...profile, ...(process.env.BENCH_TRACE_GC ? ['--trace-gc'] : [])], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    this.child.on('message', (reply: Reply) => {
      const i = this.#waiting.findIndex((accept) => accept(reply));
      if (i >= 0) this.#waiting.splice(i, 1);
    });
  }

  /** Resolves with the next reply of `kind` (after sending `request`, when given). */
  next<K extends Reply['kind']>(kind: K, request?: Request): Promise<Extract<Reply, { kind: K }>> {
    return new Promise((resolve, reject) => {
      const onExit = (code: number | null) => reject(new Error(`forked ${kind} process exited (${code ?? 'signal'})`));
      this.child.once('exit', onExit);
      this.#waiting.push((reply) => {
        if (reply.kind !== kind) return false;
        this.child.off('exit', onExit);
        resolve(reply as Extract<Reply, { kind: K }>);
        return true;
      });
      if (request) this.child.send(request);
    });
  }

  stop(): void {
    this.child.kill('SIGTERM');
  }
}
