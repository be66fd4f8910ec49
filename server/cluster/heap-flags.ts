/**
 * V8 flags every server process runs with, given on the command line (`npm start`, `npm run serve`) and
 * added to the execArgv of the node's worker processes. V8 reads them once, when the heap is set up:
 * `v8.setFlagsFromString` after start does not resize the heap.
 *
 * The young generation is capped at 16 MB semi-spaces. Node 24's default lets it grow to 64 MB each
 * (134 MB committed) under a login storm or a steady stream of telemetry, and a gateway that holds
 * devices is never idle long enough for V8 to shrink it again: that committed young generation was half
 * of the resident memory a held device cost (DECISIONS, "Memory per held device"). Scavenges at 16 MB
 * stay short because what a command or a telemetry frame allocates dies young.
 */
export const SERVER_HEAP_FLAGS: readonly string[] = ['--max-semi-space-size=16'];

const flagName = (flag: string) => flag.split('=')[0] ?? flag;

/**
 * `execArgv` with every server heap flag the operator has not set already, on the command line or in
 * NODE_OPTIONS (an operator's own size wins).
 */
export function withServerHeapFlags(execArgv: readonly string[], nodeOptions = ''): string[] {
  const given = [...execArgv, ...nodeOptions.split(/\s+/)].map(flagName);
  return [...execArgv, ...SERVER_HEAP_FLAGS.filter((flag) => !given.includes(flagName(flag)))];
}
