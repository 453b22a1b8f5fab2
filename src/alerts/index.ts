// Public surface of alerts (docs/alerts.md): rules over the query layer, evaluated by the alerts job
// after each refresh, delivered durably to a signed webhook or a Slack incoming webhook.
export {
  RULE_KINDS,
  RULE_PARAMS,
  AlertRuleInputSchema,
  DestinationSchema,
  ruleParams,
  isLoopbackUrl,
  type RuleKind,
  type RuleParams,
  type AlertRuleInput,
} from "./rules";
export { destinationProblem, allowedNetworks, type DestinationSettings, type Lookup } from "./destination";
export { AlertPayloadSchema, PAYLOAD_VERSION, type AlertPayload, type StoredPayload } from "./payload";
export { SIGNATURE_HEADER, SIGNATURE_TOLERANCE_SECONDS, signatureHeader, verifySignature } from "./signature";
export { slackAlertMessage, type SlackWebhookMessage } from "./slack-message";
export { planFlood, type FloodPlan, type FloodCandidate } from "./flood";
export { transitions, type Change } from "./transitions";
export {
  backoffMs,
  nextAttemptAt,
  sendAttempt,
  attemptRequest,
  defaultSendEffects,
  ATTEMPT_TIMEOUT_MS,
  RETRY_CAP_MS,
  type SendEffects,
  type AttemptOutcome,
} from "./send";
export { evaluateRules, publicBaseUrl, type EvaluationSummary } from "./evaluate";
export { deliverDue, type DeliverySummary } from "./deliver";
export { runAlerts, ALERT_HISTORY_MS } from "./run";
export {
  createRule,
  listRules,
  removeRule,
  sendTest,
  sendTestWithDetail,
  redactUrl,
  ruleView,
  MAX_RULES_PER_ACCOUNT,
  AlertRuleSchema,
  AlertRuleCreatedSchema,
  AlertRulesSchema,
  AlertRuleDeletedSchema,
  AlertTestResultSchema,
  type AlertRuleView,
  type AlertRuleCreated,
  type AlertTestResult,
} from "./manage";
