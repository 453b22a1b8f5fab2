// A process and its descendants, from /proc (Linux): the soak sums their memory and the chaos driver
// kills them together (the server's child processes: src/jobs/process.ts).
import { readdirSync, readFileSync } from "node:fs";

/** `pid` first, then its descendants, breadth first; processes that end meanwhile are skipped. */
export function processTree(pid: number): number[] {
  const out = [pid];
  for (let i = 0; i < out.length; i++) {
    let tasks: string[] = [];
    try {
      tasks = readdirSync(`/proc/${out[i]}/task`);
    } catch {
      continue;
    }
    for (const task of tasks) {
      try {
        for (const child of readFileSync(`/proc/${out[i]}/task/${task}/children`, "utf8").trim().split(/\s+/))
          if (child) out.push(Number(child));
      } catch {}
    }
  }
  return out;
}
