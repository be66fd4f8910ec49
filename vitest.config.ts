import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'unit',
          include: ['protocol/**/*.test.ts', 'workers/**/*.test.ts', 'server/**/*.test.ts', 'agent/**/*.test.ts', 'src/**/*.test.{ts,tsx}', 'tests/integration/**/*.test.ts'],
          environment: 'node',
          testTimeout: 30_000,
          // Set-up hooks start whole servers with a fresh PostgreSQL schema (migrations, seed). On a loaded
          // 2-core runner that took over vitest's default 10 s (fleet-devices' beforeAll, CI of 2026-11-26), so
          // hooks get the same budget as a test.
          hookTimeout: 30_000,
        },
      },
      {
        test: {
          name: 'e2e',
          include: ['tests/e2e/**/*.e2e.ts'],
          environment: 'node',
          testTimeout: 120_000,
          hookTimeout: 180_000,
          // expect.poll waits for what a page shows, which on a loaded 2-core runner can take seconds (a
          // lazily loaded shell rendered its menu after vitest's default 1 s: authority.e2e.ts, CI of
          // 2026-11-26); a poll still fails as soon as the budget is spent, and passes at the first match.
          expect: { poll: { timeout: 15_000 } },
          fileParallelism: false,
        },
      },
    ],
  },
});
