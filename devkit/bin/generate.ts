// `bun run generate --envelopes N [--programs N] [--days N] [--seed N] [--data-dir DIR] [--force]`:
// writes a synthetic lake (see devkit/generate/index.ts) and registers two synthetic accounts' programs
// in the control database, printing the keys of those accounts once (so /v1/programs and
// ?scope=account can be tried).

import { z } from "zod";
import { loadConfig } from "../../src/config";
import { createAccountKey, openControlDb } from "../../src/control";
import { dataPaths } from "../../src/lake/paths";
import { generateLake } from "../generate";

const argsSchema = z.object({
  envelopes: z.coerce.number().int().positive(),
  programs: z.coerce.number().int().min(1).max(1000).default(20),
  days: z.coerce.number().int().min(1).max(365).default(30),
  seed: z.coerce.number().int().default(1),
  "data-dir": z.string().min(1).optional(),
  force: z.boolean().default(false),
});

function parseArgs(argv: string[]): Record<string, string | boolean> {
  const out: Record<string, string | boolean> = {};
  for (let i = 0; i < argv.length; i++) {
    const name = argv[i].replace(/^--/, "");
    if (name === "force") out.force = true;
    else out[name] = argv[++i] ?? "";
  }
  return out;
}

const parsed = argsSchema.safeParse(parseArgs(process.argv.slice(2)));
if (!parsed.success) {
  console.error(
    `usage: bun run generate --envelopes N [--programs N] [--days N] [--seed N] [--data-dir DIR] [--force]\n${parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("\n")}`,
  );
  process.exit(2);
}
const args = parsed.data;
const dataDir = args["data-dir"] ?? loadConfig().dataDir;
const control = openControlDb(dataPaths(dataDir).controlDb);
const now = Date.now();
const a = createAccountKey(control, `synthetic-a-${args.seed}`, "read", now);
const b = createAccountKey(control, `synthetic-b-${args.seed}`, "read", now);
const result = await generateLake({
  dataDir,
  envelopes: args.envelopes,
  programs: args.programs,
  days: args.days,
  seed: args.seed,
  accounts: [a.record.accountId, b.record.accountId],
  control,
  force: args.force,
});
control.close();
console.log(
  JSON.stringify({
    ...result,
    deploys: result.deploys.length,
    keys: { [a.record.accountName]: a.key, [b.record.accountName]: b.key },
  }),
);
