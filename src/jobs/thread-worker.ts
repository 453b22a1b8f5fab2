// The worker thread of a job on a thread of its own (thread.ts): a job host (job-host.ts) whose
// messages come from the scheduler's thread.

import type { HostMessage } from "./hosted-runs";
import { jobHost } from "./job-host";

declare const self: Worker;

const host = jobHost((reply) => postMessage(reply));
self.onmessage = (event: MessageEvent<HostMessage>) => void host.receive(event.data);
