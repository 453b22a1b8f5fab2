// The routes beside /v1: MCP over Streamable HTTP at /mcp, the Slack slash command at
// /chat/slack (only with SLACK_SIGNING_SECRET), the OpenAPI document and its rendered reference.
// Mounted by app.ts with its public rate limit; all answer from src/contract/questions.ts.

import type { Elysia } from "elysia";
import { handleSlackCommand, type SlackOptions } from "../chat";
import { openApiDocument, type QuestionDeps } from "../contract";
import { handleMcpRequest } from "../mcp";
import { API_REFERENCE_PATH, apiReferenceText, docsPage, REDOC_BUNDLE_PATH, redocBundle } from "./docs-page";

type RateLimited = (
  handler: (request: Request, params: Record<string, string>, client: string) => Promise<Response> | Response,
  // biome-ignore lint/suspicious/noExplicitAny: Elysia's handler context, whose type depends on the route
) => (context: any) => Promise<Response>;

export type SurfaceOptions = {
  questions: QuestionDeps;
  /** Wraps a handler with the public rate limit and error rendering (app.ts). */
  limited: RateLimited;
  /** Overrides for the Slack handler (tests: inline budget, response_url poster). */
  chat?: Partial<Pick<SlackOptions, "inlineBudgetMs" | "postResponse">>;
};

export function mountSurfaces(
  // biome-ignore lint/suspicious/noExplicitAny: the routes mounted before this one vary the app's type parameters
  app: Elysia<any, any, any, any, any, any, any>,
  { questions, limited, chat }: SurfaceOptions,
): void {
  const { config } = questions.ctx;
  const slack = config.SLACK_SIGNING_SECRET !== undefined;
  app.post(
    "/mcp",
    limited((request, _params, client) => handleMcpRequest(request, questions, client)),
    { parse: "none" },
  );
  app.get(
    "/mcp",
    limited((request, _params, client) => handleMcpRequest(request, questions, client)),
  );
  app.delete(
    "/mcp",
    limited((request, _params, client) => handleMcpRequest(request, questions, client)),
  );
  app.get(
    "/openapi.json",
    limited(() => Response.json(openApiDocument({ slack }))),
  );
  app.get(
    "/docs",
    limited(() => docsPage()),
  );
  app.get(
    REDOC_BUNDLE_PATH,
    limited(() => redocBundle()),
  );
  app.get(
    API_REFERENCE_PATH,
    limited(() => apiReferenceText()),
  );
  if (slack) {
    const options: SlackOptions = {
      signingSecret: config.SLACK_SIGNING_SECRET!,
      questions,
      clock: questions.ctx.clock,
      ...chat,
    };
    app.post(
      "/chat/slack",
      limited((request) => handleSlackCommand(request, options)),
      { parse: "none" },
    );
  }
}
