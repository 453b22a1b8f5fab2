// `txray alerts …` (docs/alerts.md#managing-rules): the operator's side of /v1/alerts, straight on
// the control database like `txray keys`: add, list, remove and test rules, and read the delivery
// log. The account is `--account <name>`, else the one `txray keys create` saved in the config file.

import { parseArgs } from "node:util";
import { createRule, defaultSendEffects, removeRule, ruleView, sendTestWithDetail } from "../alerts";
import type { Config } from "../config";
import { accountIdByName, type ControlDb, deliveryLog, firingCounts, listAlertRules, openControlDb } from "../control";
import { dataPaths } from "../lake/paths";
import { readUserConfig, userConfigPath } from "./user-config";

export type AlertsIo = {
  stdout(text: string): void;
  stderr(text: string): void;
  env: Record<string, string | undefined>;
};

export const ALERTS_USAGE = `  jobs run alerts         evaluate every alert rule now and send what is due (also after each tables build)
  alerts add --program <id> --rule <new_issue|regression|landing_rate|provider_drops|cu_headroom>
             (--webhook <url> [--secret <s>] | --slack <url>) [--param <name>=<value>]... [--account <name>] [--json]
                          create an alert rule (docs/alerts.md); a webhook's secret is shown once
  alerts list [--account <name>] [--json]
                          rules (every account's without --account), destinations redacted
  alerts remove <id>      remove a rule (its unsent deliveries are cancelled)
  alerts test <id>        send a sample alert to the rule's destination now
  alerts log [<id>] [--account <name>] [--limit <n>] [--json]
                          the delivery log, newest first
`;

export class AlertsUsageError extends Error {}

export async function alertsCommand(
  action: string | undefined,
  args: string[],
  config: Config,
  io: AlertsIo,
): Promise<number> {
  const control = openControlDb(dataPaths(config.dataDir).controlDb, config.TXRAY_CONTROL_URL);
  try {
    if (action === "add") return add(control, config, args, io);
    if (action === "list") return list(control, args, io);
    if (action === "remove") return remove(control, args, io);
    if (action === "test") return await test(control, config, args, io);
    if (action === "log") return log(control, args, io);
    throw new AlertsUsageError(`unknown alerts command: ${action ?? "(none)"}`);
  } finally {
    control.close();
  }
}

function parse(args: string[], options: NonNullable<NonNullable<Parameters<typeof parseArgs>[0]>["options"]>) {
  try {
    return parseArgs({ args, options, allowPositionals: true, strict: true });
  } catch (error) {
    throw new AlertsUsageError((error as Error).message);
  }
}

/** The account named by --account, else the config file's; null when neither says (every account). */
function accountOf(control: ControlDb, named: string | undefined, io: AlertsIo, required: boolean): string | null {
  const name = named ?? readUserConfig(userConfigPath(io.env)).account;
  if (name === undefined) {
    if (required)
      throw new AlertsUsageError(
        "which account? --account <name> (or create a key with `txray keys create`, which saves it)",
      );
    return null;
  }
  const id = accountIdByName(control, name);
  if (id === null) throw new Error(`no account named ${name}`);
  return id;
}

/** `minCount=3` → ["minCount", 3]: numbers and true/false as JSON, anything else as text. */
function paramEntry(text: string): [string, unknown] {
  const at = text.indexOf("=");
  if (at <= 0) throw new AlertsUsageError(`--param ${text}: expected <name>=<value>`);
  const [name, value] = [text.slice(0, at), text.slice(at + 1)];
  if (/^-?\d+(\.\d+)?$/.test(value)) return [name, Number(value)];
  if (value === "true" || value === "false") return [name, value === "true"];
  return [name, value];
}

function add(control: ControlDb, config: Config, args: string[], io: AlertsIo): number {
  const { values, positionals } = parse(args, {
    program: { type: "string" },
    rule: { type: "string" },
    webhook: { type: "string" },
    slack: { type: "string" },
    secret: { type: "string" },
    param: { type: "string", multiple: true },
    account: { type: "string" },
    json: { type: "boolean" },
  });
  if (positionals.length > 0) throw new AlertsUsageError(`alerts add takes flags only (got ${positionals.join(" ")})`);
  if (!values.program || !values.rule) throw new AlertsUsageError("alerts add needs --program <id> and --rule <kind>");
  if ((values.webhook === undefined) === (values.slack === undefined))
    throw new AlertsUsageError("alerts add needs one destination: --webhook <url> or --slack <url>");
  if (values.secret !== undefined && values.webhook === undefined)
    throw new AlertsUsageError("--secret goes with --webhook");
  const destination =
    values.webhook !== undefined
      ? { type: "webhook", url: values.webhook, ...(values.secret !== undefined ? { secret: values.secret } : {}) }
      : { type: "slack", url: values.slack };
  const params = Object.fromEntries(((values.param as string[] | undefined) ?? []).map(paramEntry));
  const accountId = accountOf(control, values.account as string | undefined, io, true)!;
  const created = createRule(
    control,
    accountId,
    { program: values.program, rule: values.rule, params, destination },
    Date.now(),
    config,
  );
  if (values.json) io.stdout(`${JSON.stringify(created)}\n`);
  else {
    io.stdout(`${created.id}\n`);
    const secret = "secret" in created.destination ? ` Webhook secret (shown once): ${created.destination.secret}` : "";
    io.stderr(
      `created ${created.rule} alert ${created.id} on ${created.program} → ${created.destination.type}.${secret}\n`,
    );
  }
  return 0;
}

function list(control: ControlDb, args: string[], io: AlertsIo): number {
  const { values } = parse(args, { account: { type: "string" }, json: { type: "boolean" } });
  const accountId = values.account === undefined ? null : accountOf(control, values.account as string, io, true);
  const firing = firingCounts(control, accountId);
  const rules = listAlertRules(control, accountId).map((record) => ({
    ...ruleView(record, firing.get(record.id) ?? 0),
    accountId: record.accountId,
  }));
  if (values.json) {
    io.stdout(`${JSON.stringify(rules)}\n`);
    return 0;
  }
  if (rules.length === 0) io.stdout("no alert rules\n");
  for (const rule of rules) {
    io.stdout(
      `${rule.id}\t${rule.accountId}\t${rule.program}\t${rule.rule}\t${rule.destination.type} ${rule.destination.url}\tfiring ${rule.firing}\t${JSON.stringify(rule.params)}\n`,
    );
  }
  return 0;
}

function remove(control: ControlDb, args: string[], io: AlertsIo): number {
  const { positionals } = parse(args, {});
  if (positionals.length !== 1) throw new AlertsUsageError("alerts remove needs one rule id (see `txray alerts list`)");
  removeRule(control, null, positionals[0], Date.now());
  io.stdout(`removed ${positionals[0]}\n`);
  return 0;
}

async function test(control: ControlDb, config: Config, args: string[], io: AlertsIo): Promise<number> {
  const { positionals } = parse(args, {});
  if (positionals.length !== 1) throw new AlertsUsageError("alerts test needs one rule id (see `txray alerts list`)");
  const { answer: result, detail } = await sendTestWithDetail(
    { control, config },
    null,
    positionals[0],
    defaultSendEffects(),
  );
  io.stdout(`${JSON.stringify(result)}\n`);
  if (!result.delivered) io.stderr(`txray: the destination did not accept the test: ${detail}\n`);
  return result.delivered ? 0 : 1;
}

function log(control: ControlDb, args: string[], io: AlertsIo): number {
  const { values, positionals } = parse(args, {
    account: { type: "string" },
    limit: { type: "string" },
    json: { type: "boolean" },
  });
  const limit = values.limit === undefined ? 50 : Number(values.limit);
  if (!Number.isInteger(limit) || limit < 1 || limit > 10_000)
    throw new AlertsUsageError("--limit: expected an integer from 1 to 10000");
  const accountId = values.account === undefined ? null : accountOf(control, values.account as string, io, true);
  const entries = deliveryLog(control, { accountId, ruleId: positionals[0] ?? null, limit });
  if (values.json) {
    io.stdout(`${JSON.stringify(entries.map(({ payload: _payload, ...entry }) => entry))}\n`);
    return 0;
  }
  if (entries.length === 0) io.stdout("no deliveries\n");
  for (const e of entries) {
    const outcome = e.status === "sent" ? `sent ${new Date(e.sentAt!).toISOString()}` : e.status;
    const last = e.lastError ? `\t${e.lastError}` : "";
    io.stdout(
      `${new Date(e.createdAt).toISOString()}\t${e.id}\t${e.ruleId}\t${e.kind}\t${e.state}\t${outcome}\tattempts ${e.attempts}\t${e.title}${last}\n`,
    );
  }
  return 0;
}
