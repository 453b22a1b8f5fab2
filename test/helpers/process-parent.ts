// A process that starts a job's child process (src/jobs/process.ts), runs the tables job there once
// over TXRAY_DATA_DIR, prints "ready" and waits to be killed (process.test.ts: the child must not
// outlive it).
import { loadConfig } from "../../src/config";
import { createContext } from "../../src/context";
import { runJob } from "../../src/jobs";
import { inChildProcess } from "../../src/jobs/process";
import { tablesJob } from "../../src/jobs/tables";

const ctx = await createContext(loadConfig({ TXRAY_DATA_DIR: process.env.TXRAY_DATA_DIR!, TXRAY_LOG_LEVEL: "silent" }));
const outcome = await runJob(ctx, inChildProcess(tablesJob, { nice: 10 }));
console.log(outcome.ok ? "ready" : `failed: ${outcome.error}`);
setInterval(() => {}, 60_000);
