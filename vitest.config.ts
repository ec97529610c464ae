import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defineConfig } from 'vitest/config';

// The approvals `init --verify` and `gapflow trust` keep go to a config folder of the run's own, never the user's.
const configHome = mkdtempSync(join(tmpdir(), 'gapflow-test-config-'));

export default defineConfig({
  test: { env: { XDG_CONFIG_HOME: configHome } },
});
