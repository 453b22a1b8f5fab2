// Shutdown: the HTTP server's wait for its requests in flight and the scheduler's wait for its jobs
// run at once within the one deadline, so the listener closes as soon as its requests are done even
// while a job is still reaching its safe point.
import { afterEach, expect, test } from "bun:test";
import { type Component, startComponents } from "../../src/context";
import { serverComponents } from "../../src/server";
import { stoppedTogether } from "../../src/server/stop-together";
import { silentLogger } from "../../src/shared/logger";
import { testContext } from "../helpers/context";

let dispose: (() => void) | null = null;
afterEach(() => dispose?.());

/** A part whose stop waits until the test lets it finish, recording what happened when. */
function waitingPart(name: string, events: string[]) {
  let finish = () => {};
  const finished = new Promise<void>((resolve) => (finish = resolve));
  const part: Component = {
    name,
    start: () => void events.push(`${name} started`),
    drain: () => void events.push(`${name} drained`),
    async stop() {
      events.push(`${name} waiting`);
      await finished;
      events.push(`${name} stopped`);
    },
  };
  return { part, finish };
}

test("the requests' wait and the jobs' wait run together; each part stops when its own work is done", async () => {
  const events: string[] = [];
  const http = waitingPart("http", events);
  const scheduler = waitingPart("scheduler", events);
  const running = await startComponents([stoppedTogether([http.part, scheduler.part], 1000)], {
    logger: silentLogger,
    stopTimeoutMs: 10_000,
  });
  expect(events).toEqual(["http started", "scheduler started"]);
  const stopped = running.stop(10_000);
  await Bun.sleep(0);
  expect(events.slice(2)).toEqual(["http drained", "scheduler drained", "http waiting", "scheduler waiting"]);
  http.finish(); // the requests are done while a job still runs: the listener goes now
  await Bun.sleep(0);
  expect(events.at(-1)).toBe("http stopped");
  scheduler.finish();
  await stopped;
  expect(events.at(-1)).toBe("scheduler stopped");
});

test("the server's HTTP part and scheduler stop together; a part that fails to start stops those started", async () => {
  const ctx = await testContext();
  dispose = ctx.dispose;
  const names = (scheduler: boolean) => serverComponents(ctx, { scheduler }).components.map((part) => part.name);
  expect(names(true).at(-1)).toBe("http and scheduler");
  expect(names(false).at(-1)).toBe("http");

  const events: string[] = [];
  const first = waitingPart("first", events);
  first.finish();
  const failing: Component = {
    name: "failing",
    start: () => {
      throw new Error("no start");
    },
    stop: () => {},
  };
  await expect(
    startComponents([stoppedTogether([first.part, failing], 1000)], { logger: silentLogger, stopTimeoutMs: 1000 }),
  ).rejects.toThrow("no start");
  expect(events).toEqual(["first started", "first drained", "first waiting", "first stopped"]);
});
