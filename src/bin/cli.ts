#!/usr/bin/env bun
// `txray` — the command-line tool (`bun run txray …`, also the package bin). Keys, jobs, IDLs, backups;
// prints results to stdout, errors to stderr with a non-zero exit.

import { run } from "../cli/commands";

const code = await run(process.argv.slice(2), {
  stdout: (t) => process.stdout.write(t),
  stderr: (t) => process.stderr.write(t),
  env: process.env,
});
process.exit(code);
