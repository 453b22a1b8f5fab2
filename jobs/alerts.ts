#!/usr/bin/env bun
// `bun jobs/alerts.ts`: evaluate every alert rule now and send what is due.
import { runOnce } from "./run-once";

await runOnce("alerts");
