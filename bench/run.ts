// `bun run bench <name>`: runs bench/<name>.ts. Each benchmark prints progress to stderr and, as its
// last line on stdout, one JSON object of figures (bench/README.md records them).
import { existsSync } from "node:fs";
import { join } from "node:path";

const name = process.argv[2];
const file = name ? join(import.meta.dir, `${name}.ts`) : "";
if (!name || !/^[a-z][a-z0-9-]*$/.test(name) || !existsSync(file)) {
  console.error(
    "usage: bun run bench <memory|wallet|ingest|ingest-nodes|flush|resolve|signatures|freshness|refresh|burst|tables|read|sdk|landing-score|web|drops|alerts|compact|flood>",
  );
  process.exit(2);
}
const child = Bun.spawn(["bun", "run", file, ...process.argv.slice(3)], { stdio: ["inherit", "inherit", "inherit"] });
process.exit(await child.exited);
