// @ts-check
/**
 * The import arrows of DESIGN.md, checked over the resolved dependency graph (static, type-only and dynamic
 * `import()` alike), which eslint's no-restricted-imports cannot see: src -> workers -> protocol,
 * server -> protocol, agent -> protocol; bench/, tests/ and tools/ may import anything. What counts as a
 * folder's public surface is written down in docs/DECISIONS.md ("Layers enforced by the compiler").
 * Run by `npm run lint`; tests/layers/layers.test.ts proves on fixtures that the rules bite.
 */

/** A colocated unit test: it follows its folder's arrows but may reach internals and test doubles. */
const TEST = '\\.test\\.tsx?$';

/** Folders of ours below the given one: what it may not import. */
const arrow = (name, from, forbidden, comment) => ({
  name,
  comment,
  severity: 'error',
  from: { path: `^${from}/` },
  to: { path: `^(${forbidden.join('|')})/` },
});

/** @type {import('dependency-cruiser').IConfiguration} */
export default {
  forbidden: [
    arrow('protocol-imports-nothing-of-ours', 'protocol', ['workers', 'src', 'server', 'agent', 'bench', 'tests', 'tools'], 'protocol/ is the bottom layer: it imports nothing of ours (DESIGN.md).'),
    arrow('workers-import-only-protocol', 'workers', ['src', 'server', 'agent', 'bench', 'tests', 'tools'], 'workers/ may import protocol/ only (DESIGN.md).'),
    arrow('src-imports-only-workers-and-protocol', 'src', ['server', 'agent', 'bench', 'tests', 'tools'], 'src/ may import workers/ and protocol/ only (DESIGN.md).'),
    arrow('server-imports-only-protocol', 'server', ['workers', 'src', 'agent', 'bench', 'tests', 'tools'], 'server/ may import protocol/ only (DESIGN.md).'),
    arrow('agent-imports-only-protocol', 'agent', ['workers', 'src', 'server', 'bench', 'tests', 'tools'], 'agent/ may import protocol/ only (DESIGN.md).'),
    {
      name: 'browser-code-imports-no-node',
      comment: 'protocol/, workers/ and src/ run in the browser (protocol/ anywhere): no Node built-ins, dynamic import() included.',
      severity: 'error',
      from: { path: '^(protocol|workers|src)/', pathNot: TEST },
      to: { dependencyTypes: ['core'] },
    },
    {
      name: 'protocol-packages',
      comment: 'protocol/ may import rxjs, msgpackr, mitt and typebox, the REST contract schema library (DESIGN.md, docs/DECISIONS.md).',
      severity: 'error',
      from: { path: '^protocol/', pathNot: [TEST, '^protocol/testing/'] },
      to: {
        dependencyTypes: ['npm', 'npm-dev', 'npm-optional', 'npm-peer', 'npm-bundled', 'npm-no-pkg', 'npm-unknown', 'unknown', 'undetermined'],
        // typebox publishes ES modules only (exports: import/default), which the cruiser leaves unresolved.
        pathNot: '(^|/)node_modules/(rxjs|msgpackr|mitt|typebox)/|^typebox$',
      },
    },
    {
      name: 'workers-import-no-react',
      comment: 'workers/ runs in a Web Worker: no React.',
      severity: 'error',
      from: { path: '^workers/', pathNot: TEST },
      to: { path: '(^|/)node_modules/(react|react-dom)/' },
    },
    {
      name: 'protocol-public-surface',
      comment:
        'Outside protocol/, code imports protocol/index.ts or a REST contract module protocol/api/<area>.ts, never the engine\'s internals (colocated tests may).',
      severity: 'error',
      from: { path: '^(workers|src|server|agent)/', pathNot: TEST },
      to: { path: '^protocol/', pathNot: '^protocol/(index\\.ts|api/[^/]+\\.ts)$' },
    },
    {
      name: 'test-doubles-only-in-tests',
      comment: 'protocol/testing/ (fake clock, fake transport) is for tests and benchmarks only.',
      severity: 'error',
      from: { pathNot: [TEST, '^(tests|bench|tools|protocol/testing)/'] },
      to: { path: '^protocol/testing/' },
    },
    {
      name: 'workers-public-surface',
      comment:
        'src/ imports the worker bridge only: workers/engine-client.ts and workers/bridge-protocol.ts (the worker entry is loaded by URL).',
      severity: 'error',
      from: { path: '^src/', pathNot: TEST },
      to: { path: '^workers/', pathNot: '^workers/(engine-client|bridge-protocol)\\.ts$' },
    },
    {
      name: 'no-importing-tests',
      comment: 'Production code never imports a test file.',
      severity: 'error',
      from: { path: '^(protocol|workers|src|server|agent)/', pathNot: TEST },
      to: { path: TEST },
    },
    {
      name: 'no-cycles',
      comment: 'No module imports itself through others (type-only imports count: they tie the files together all the same).',
      severity: 'error',
      from: { path: '^(protocol|workers|src|server|agent)/' },
      to: { circular: true },
    },
  ],
  options: {
    // Type-only imports are dependencies too (a src/ file importing a server/ type is still an arrow broken).
    tsPreCompilationDeps: true,
    // Packages stay in the graph (protocol-packages needs them) but are not cruised into.
    doNotFollow: { path: '(^|/)node_modules/' },
    // The fixtures break the rules on purpose (tests/layers/layers.test.ts cruises them on their own).
    exclude: { path: ['^dist/', '^tests/layers/fixtures/'] },
    enhancedResolveOptions: {
      extensions: ['.ts', '.tsx', '.js', '.mjs', '.json'],
      conditionNames: ['import', 'browser', 'node', 'default'],
    },
    progress: { type: 'none' },
  },
};
