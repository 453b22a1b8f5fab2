// The systemd units in deploy/ (docs/deploy.md): `systemd-analyze verify` accepts them when it is
// installed (with ExecStart's bun pointed at this one), and in any case each unit has the sections and
// keys the deployment relies on: hardening, a restart on failure, and a stop timeout beyond the
// server's own graceful shutdown.

import { afterAll, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SETTINGS } from "../../src/config";

const ROOT = join(import.meta.dir, "..", "..");
const DEPLOY = join(ROOT, "deploy");
const UNITS = readdirSync(DEPLOY).filter((name) => /\.(service|timer)$/.test(name));
const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

type Unit = Record<string, Record<string, string[]>>;

/** A unit file's sections and their keys (a key given more than once keeps every value). */
function parseUnit(text: string): Unit {
  const unit: Unit = {};
  let section: string | null = null;
  for (const raw of text.split("\n")) {
    const line = raw.trim();
    if (line === "" || line.startsWith("#") || line.startsWith(";")) continue;
    const header = /^\[([A-Za-z]+)\]$/.exec(line);
    if (header) {
      section = header[1];
      unit[section] ??= {};
      continue;
    }
    const entry = /^([A-Za-z][A-Za-z0-9]*)=(.*)$/.exec(line);
    if (!entry || section === null) throw new Error(`not a unit file line: ${line}`);
    (unit[section][entry[1]] ??= []).push(entry[2]);
  }
  return unit;
}

const unitOf = (name: string) => parseUnit(readFileSync(join(DEPLOY, name), "utf8"));
const value = (unit: Unit, section: string, key: string) => unit[section]?.[key]?.at(-1);

test("deploy/ holds the server's unit and the nightly Landing Score's service and timer", () => {
  expect(UNITS.sort()).toEqual(["txray-landing-score.service", "txray-landing-score.timer", "txray.service"]);
});

test("systemd-analyze verify accepts the units", () => {
  const analyze = Bun.which("systemd-analyze");
  if (!analyze) {
    console.warn("units.test: systemd-analyze is not installed; the units' sections and keys are checked only");
    return;
  }
  const dir = mkdtempSync(join(tmpdir(), "txray-units-"));
  dirs.push(dir);
  for (const name of UNITS)
    writeFileSync(
      join(dir, name),
      readFileSync(join(DEPLOY, name), "utf8").replaceAll("/usr/local/bin/bun", process.execPath),
    );
  const run = Bun.spawnSync([analyze, "verify", ...UNITS.map((name) => join(dir, name))], {
    env: { ...process.env, SYSTEMD_LOG_COLOR: "0" },
  });
  const output = `${run.stdout.toString()}${run.stderr.toString()}`.trim();
  expect(output).toBe("");
  expect(run.exitCode).toBe(0);
});

test("every service is hardened, writes only its directories and runs bun on a file of the repository", () => {
  for (const name of UNITS.filter((n) => n.endsWith(".service"))) {
    const unit = unitOf(name);
    for (const [key, expected] of Object.entries({
      NoNewPrivileges: "true",
      ProtectSystem: "strict",
      ProtectHome: "true",
      PrivateTmp: "true",
      UMask: "0077",
      User: "txray",
    }))
      expect([name, key, value(unit, "Service", key)]).toEqual([name, key, expected]);
    const dataDir = (unit.Service.Environment ?? []).map((e) => /^TXRAY_DATA_DIR=(.+)$/.exec(e)?.[1]).find(Boolean);
    expect(dataDir).toBe("/srv/txray/data");
    expect(value(unit, "Service", "ReadWritePaths")?.split(/\s+/)).toContain(dataDir!);
    const exec = value(unit, "Service", "ExecStart")!.split(/\s+/);
    expect(exec[0]).toBe("/usr/local/bin/bun");
    expect(existsSync(join(ROOT, exec[1]))).toBe(true);
  }
});

test("the server restarts on failure and is given longer than SHUTDOWN_TIMEOUT_MS to stop", () => {
  const unit = unitOf("txray.service");
  expect(value(unit, "Service", "Restart")).toBe("on-failure");
  expect(value(unit, "Service", "KillSignal")).toBe("SIGTERM");
  const shutdownMs = SETTINGS.SHUTDOWN_TIMEOUT_MS.schema.parse(undefined) as number;
  expect(Number(value(unit, "Service", "TimeoutStopSec")) * 1000).toBeGreaterThan(shutdownMs);
  expect(value(unit, "Install", "WantedBy")).toBe("multi-user.target");
});

test("the Landing Score runs nightly after 00:15 UTC, as docs/publishing.md says", () => {
  const timer = unitOf("txray-landing-score.timer");
  expect(value(timer, "Timer", "OnCalendar")).toBe("*-*-* 00:25:00 UTC");
  expect(value(timer, "Timer", "Persistent")).toBe("true");
  expect(value(unitOf("txray-landing-score.service"), "Service", "Type")).toBe("oneshot");
});
