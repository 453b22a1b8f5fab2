// `bun devkit/bin/standin.ts [--landed N --failed N --dropped N]`: the stand-in mainnet provider
// (devkit/standin) in a process of its own, on a free loopback port. Prints one JSON line
// `{"url": …}` on stdout when it listens; on SIGTERM prints `{"requests", "calls"}` (what it
// answered) and exits. Used by `bun run bench resolve` so the resolver being measured does not pay
// for the provider's work.

import { parseArgs } from "node:util";
import { SOAK_FATES, startStandInChain } from "../standin";

const { values } = parseArgs({
  args: process.argv.slice(2),
  options: { landed: { type: "string" }, failed: { type: "string" }, dropped: { type: "string" } },
  strict: true,
});
const share = (text: string | undefined, fallback: number) => {
  const value = text === undefined ? fallback : Number(text);
  if (!Number.isFinite(value) || value < 0) {
    console.error("usage: bun devkit/bin/standin.ts [--landed N] [--failed N] [--dropped N]   (non-negative shares)");
    process.exit(2);
  }
  return value;
};
const chain = startStandInChain({
  fates: {
    landed: share(values.landed, SOAK_FATES.landed),
    failed: share(values.failed, SOAK_FATES.failed),
    dropped: share(values.dropped, SOAK_FATES.dropped),
  },
});
console.log(JSON.stringify({ url: chain.url }));
process.on("SIGTERM", () => {
  console.log(JSON.stringify(chain.counts()));
  chain.stop();
  process.exit(0);
});
