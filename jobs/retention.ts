#!/usr/bin/env bun
// `bun jobs/retention.ts`: apply TXRAY_RETENTION_DAYS (expired lake partitions and their control rows go).
import { runOnce } from "./run-once";

await runOnce("retention");
