// The MCP tool twins of the read routes (docs/architecture.md, "Surfaces over one query layer"): one tool per question
// of src/contract/questions.ts, calling the same query function with the same raw arguments as the
// route, returning the route's object as structuredContent plus a short text. Input schemas
// describe the parameters (types, enums) but accept anything: the query layer validates, exactly
// as for HTTP, so a bad argument comes back as a tool error carrying the same code and message as
// the route's 400. Errors: isError with text `code (HTTP status): message` and the error body in
// `_meta["txray/error"]` (structuredContent would have to match the output schema).

import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { type CallToolResult, ListToolsRequestSchema, type Tool } from "@modelcontextprotocol/sdk/types.js";
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv";
import { z } from "zod";
import {
  actorOfPrincipal,
  changeIssueState,
  type IssueListResponse,
  IssueListSchema,
  type IssueStateAnswer,
  IssueStateAnswerSchema,
  issueList,
} from "../analytics/queries";
import {
  accountForScope,
  PARAMS,
  QUESTIONS,
  type Question,
  type QuestionArgs,
  type QuestionDeps,
  summarize,
  summaryText,
} from "../contract";
import { authenticate, type Principal, scopeCanAdmin, scopeCanRead } from "../control";
import { TxrayError } from "../shared/errors";
import { describeError } from "../shared/logger";
import { VERSION } from "../shared/version";
import { toolJsonSchema } from "./json-schema";

const INSTRUCTIONS =
  "txray answers why Solana transactions of a program fail, drop or land: per signature (why, diagnose_drop) and per program " +
  "(baseline, top_issues, release_diff, cu_headroom, provider_report, wallet_history), and per issue (issue: a fingerprint from top_issues, why or release_diff, " +
  "with its call stack and logs). With a key of the account: issue_list (triage) and set_issue_state (admin key). " +
  "Program ids, wallets and signatures are base58. " +
  "Analytical answers come from tables rebuilt every few minutes; status tells how fresh they are.";

/** A question's input schema: documented types, validated by the query layer (see header). */
export function inputSchema(question: Question) {
  return schemasOf(question).input;
}

/**
 * Built once per question (/mcp creates a server per request): the zod schemas that validate calls and answers, and
 * what tools/list says of the tool, its schemas in the portable form of json-schema.ts.
 */
const schemaCache = new Map<string, { input: z.ZodObject; output: z.ZodObject; definition: Tool }>();
function schemasOf(question: Question) {
  let schemas = schemaCache.get(question.name);
  if (!schemas) {
    const input = buildInputSchema(question);
    // The output: the same shape without the component id, so the root is an object schema rather
    // than a $ref (nested components such as Rates become local $defs).
    const output = z.looseObject((question.response as z.ZodObject).shape);
    const definition: Tool = {
      name: question.name,
      title: question.summary,
      description: question.description,
      inputSchema: toolJsonSchema(input, "input") as Tool["inputSchema"],
      outputSchema: toolJsonSchema(output, "output") as Tool["outputSchema"],
      annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: question.name === "why" },
    };
    schemas = { input, output, definition };
    schemaCache.set(question.name, schemas);
  }
  return schemas;
}

function buildInputSchema(question: Question): z.ZodObject {
  const shape: Record<string, z.ZodType> = {};
  for (const name of [...question.pathParams, ...question.queryParams]) {
    const spec = PARAMS[name];
    shape[name] = z
      .unknown()
      .optional()
      .meta({
        type: spec.integer ? "integer" : "string",
        description: spec.description,
        ...(spec.enum ? { enum: spec.enum } : {}),
        ...(spec.example ? { examples: [spec.example] } : {}),
      });
  }
  return z.object(shape).meta({ required: question.pathParams });
}

/** Tool arguments as the route would see them: strings (numbers written the way a URL would carry them). */
function toArgs(question: Question, input: Record<string, unknown>): QuestionArgs {
  const args: QuestionArgs = {};
  for (const name of [...question.pathParams, ...question.queryParams]) {
    const value = input[name];
    args[name] =
      value === undefined || value === null
        ? question.pathParams.includes(name)
          ? ""
          : null
        : typeof value === "string"
          ? value
          : JSON.stringify(value);
  }
  return args;
}

export function toolError(error: unknown, deps: QuestionDeps): CallToolResult {
  const known = error instanceof TxrayError ? error : null;
  if (!known) deps.ctx.logger.error("internal error in an MCP tool", { error: describeError(error) });
  const code = known?.code ?? "internal";
  const message = known?.message ?? "internal error";
  const status = known?.status ?? 500;
  const retry = known?.retryAfterSeconds;
  return {
    isError: true,
    content: [
      {
        type: "text",
        text: `${code} (HTTP ${status}): ${message}${retry !== undefined ? ` — retry in ${retry}s` : ""}`,
      },
    ],
    _meta: { "txray/error": { code, message, status, ...(retry !== undefined ? { retryAfterSeconds: retry } : {}) } },
  };
}

/**
 * One JSON Schema validator for every server: the HTTP transport builds a server per request
 * (stateless), and each built its own Ajv instance, ~2.6% of the whole process's CPU in a soak.
 */
let validator: AjvJsonSchemaValidator | null = null;
const sharedValidator = () => (validator ??= new AjvJsonSchemaValidator());

/**
 * An MCP server with every tool. `key`: the API key the client presented (HTTP transport), which
 * `scope: "account"` restricts answers to, like `?scope=account` on the routes; null over stdio.
 * `client`: who asks (the HTTP client), counted by per-client limits apart from the same client's
 * HTTP and Slack requests.
 */
export function createMcpServer(deps: QuestionDeps, key: string | null, client = "stdio"): McpServer {
  const server = new McpServer(
    { name: "txray", version: VERSION },
    { instructions: INSTRUCTIONS, jsonSchemaValidator: sharedValidator() },
  );
  for (const question of QUESTIONS) {
    server.registerTool(
      question.name,
      {
        title: question.summary,
        description: question.description,
        inputSchema: schemasOf(question).input,
        outputSchema: schemasOf(question).output,
        annotations: schemasOf(question).definition.annotations,
      },
      async (input: Record<string, unknown>): Promise<CallToolResult> => {
        try {
          const args = toArgs(question, input);
          // stdio has no header to carry a key: say what works there instead of naming one.
          if (client === "stdio" && key === null && args.scope === "account")
            throw new TxrayError(
              "unauthorized",
              'scope "account" needs a key, which stdio cannot carry: omit scope for public answers, or use POST /mcp with a read key',
            );
          const accountId = question.queryParams.includes("scope")
            ? accountForScope(deps.ctx.control, key, args.scope)
            : null;
          const answer = (await question.answer(deps, args, accountId, `mcp:${client}`)) as Record<string, unknown>;
          return {
            structuredContent: answer,
            content: [{ type: "text", text: summaryText(summarize(question.name, answer)) }],
          };
        } catch (error) {
          return toolError(error, deps);
        }
      },
    );
  }
  const triage = registerTriageTools(server, deps, key);
  // The SDK lists the zod schemas converted to draft-07; this answers with the portable ones. The
  // zod schemas above still validate calls and answers.
  server.server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: [...QUESTIONS.map((question) => schemasOf(question).definition), ...triage],
  }));
  return server;
}

/** A described tool argument that accepts anything (the query layer validates, as for the routes). */
const argument = (type: "string" | "integer", description: string, values?: readonly string[]) =>
  z
    .unknown()
    .optional()
    .meta({ type, description, ...(values ? { enum: [...values] } : {}) });

/** An argument as a route's query string would carry it. */
const asText = (value: unknown): string | null =>
  value === undefined || value === null ? null : typeof value === "string" ? value : JSON.stringify(value);

/**
 * The triage tools (docs/api.md#issue-states), twins of GET /v1/issues/{program} and POST
 * /v1/issue/{fingerprint}/state: they act for the key the client presented (none over stdio: 401),
 * a read key lists, only an admin key changes a state.
 */
function registerTriageTools(server: McpServer, deps: QuestionDeps, key: string | null): Tool[] {
  const definitions: Tool[] = [];
  /** Registers a tool and keeps its portable definition for the tool list. */
  const register = (
    name: string,
    config: {
      title: string;
      description: string;
      inputSchema: z.ZodObject;
      outputSchema: z.ZodObject;
      annotations: NonNullable<Tool["annotations"]>;
    },
    handler: (input: Record<string, unknown>) => Promise<CallToolResult>,
  ) => {
    server.registerTool(name, config, handler);
    definitions.push({
      name,
      title: config.title,
      description: config.description,
      inputSchema: toolJsonSchema(config.inputSchema, "input") as Tool["inputSchema"],
      outputSchema: toolJsonSchema(config.outputSchema, "output") as Tool["outputSchema"],
      annotations: config.annotations,
    });
  };
  const principal = (admin: boolean): Principal => {
    if (key === null) throw new TxrayError("unauthorized", "missing API key: send it as Authorization: Bearer <key>");
    const found = authenticate(deps.ctx.control, key);
    if (!found) throw new TxrayError("unauthorized", "invalid or revoked API key");
    if (!scopeCanRead(found.scope) || (admin && !scopeCanAdmin(found.scope)))
      throw new TxrayError(
        "forbidden",
        admin ? "only an admin key (txr_live_…) changes an issue's state" : "an ingest key reads nothing",
      );
    return found;
  };
  const run = async <T extends IssueListResponse | IssueStateAnswer>(
    answer: () => Promise<T>,
    text: (answer: T) => string,
  ): Promise<CallToolResult> => {
    try {
      const result = await answer();
      return { structuredContent: result, content: [{ type: "text", text: text(result) }] };
    } catch (error) {
      return toolError(error, deps);
    }
  };
  const stateText = (answer: IssueStateAnswer) =>
    `${answer.fingerprint}: ${answer.state.state}${answer.state.assignee ? `, assigned to ${answer.state.assignee}` : ""} (${answer.history.length} change${answer.history.length === 1 ? "" : "s"})`;
  register(
    "issue_list",
    {
      title: "A program's issues, for triage",
      description:
        "The calling key's account's failure issues of a program with their triage state (unresolved, regressed, resolved, resolved_next_release, ignored), events and wallets affected in the window, first and last seen. " +
        "By default only open issues (unresolved and regressed); filter by state, instruction, error (name, code or drop class) or first seen since; sort by events or wallets; paginate with cursor. Needs a read or admin key.",
      inputSchema: z
        .object({
          program: argument("string", PARAMS.program.description),
          window: argument("string", PARAMS.window.description, PARAMS.window.enum),
          state: argument("string", "open (default), all, or one state", [
            "open",
            "all",
            "unresolved",
            "resolved",
            "resolved_next_release",
            "ignored",
            "regressed",
          ]),
          sort: argument("string", "events (default) or wallets", ["events", "wallets"]),
          instruction: argument("string", "only issues of this instruction"),
          error: argument("string", "only issues with this error name, code or drop class"),
          since: argument("integer", "only issues first seen at or after this time (Unix ms)"),
          limit: argument("integer", PARAMS.limit.description),
          cursor: argument("string", PARAMS.cursor.description),
        })
        .meta({ required: ["program"] }),
      outputSchema: z.looseObject(IssueListSchema.shape),
      annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
    },
    (input: Record<string, unknown>) =>
      run(
        () =>
          issueList(deps.ctx, {
            program: asText(input.program) ?? "",
            accountId: principal(false).accountId,
            window: asText(input.window),
            state: asText(input.state),
            sort: asText(input.sort),
            instruction: asText(input.instruction),
            error: asText(input.error),
            since: asText(input.since),
            limit: asText(input.limit),
            cursor: asText(input.cursor),
          }),
        (answer) =>
          `${answer.items.length} ${answer.state} issue${answer.items.length === 1 ? "" : "s"} of ${answer.program} (${answer.window.name})` +
          answer.items
            .slice(0, 10)
            .map((item) => `\n- ${item.title} [${item.state.state}]: ${item.count} events, ${item.wallets} wallets`)
            .join(""),
      ),
  );
  register(
    "set_issue_state",
    {
      title: "Resolve, ignore, reopen or assign an issue",
      description:
        "Sets an issue's triage state in the calling key's account: resolved, resolved_next_release (fixed by the program's next deploy), ignored (optionally until ignoreUntilEvents more events or until ignoreUntilAt, Unix ms) or unresolved; and/or its assignee (null unassigns). " +
        "Recorded in the issue's history with the key's id. Needs an admin key.",
      inputSchema: z
        .object({
          fingerprint: argument("string", PARAMS.fingerprint.description),
          state: argument("string", "the new state", ["unresolved", "resolved", "resolved_next_release", "ignored"]),
          ignoreUntilEvents: argument("integer", "with ignored: until this many more events"),
          ignoreUntilAt: argument("integer", "with ignored: until this time (Unix ms)"),
          assignee: argument("string", "who works on it (1–100 characters); null unassigns"),
        })
        .meta({ required: ["fingerprint"] }),
      outputSchema: z.looseObject(IssueStateAnswerSchema.shape),
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    },
    (input: Record<string, unknown>) =>
      run(() => {
        const caller = principal(true);
        const { fingerprint, ...change } = input;
        return changeIssueState(deps.ctx, caller.accountId, actorOfPrincipal(caller), fingerprint, change);
      }, stateText),
  );
  return definitions;
}
