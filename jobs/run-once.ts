// Runs one job once through the CLI's job runner, exactly as `bun run txray jobs run <name>` does
// (src/cli/commands.ts): the files beside this one are the entry points a crontab line or a
// systemd timer names (docs/publishing.md). Arguments after the file (`--date`, `--full`) go to
// the runner; the process exits with its code (0 when every step succeeded, 1 otherwise, 2 on a
// usage error).

import { run } from "../src/cli/commands";

export async function runOnce(job: string): Promise<never> {
  const code = await run(["jobs", "run", job, ...process.argv.slice(2)], {
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
    env: process.env,
  });
  process.exit(code);
}
