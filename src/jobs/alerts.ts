// Job: evaluate every alert rule over the current serving tables and send the alerts that are due,
// retries included (src/alerts, docs/alerts.md). The scheduler runs it after every tables build
// (`after` in src/jobs/registry.ts) and on ALERTS_INTERVAL_MS for retries; `txray jobs run alerts`
// runs it now. Its lease (runJob) keeps two processes from sending at once.

import { runAlerts } from "../alerts";
import type { Job } from "./run";

export const alertsJob: Job = {
  name: "alerts",
  run: async (ctx, runtime) => await runAlerts(ctx, { signal: runtime.signal }),
};
