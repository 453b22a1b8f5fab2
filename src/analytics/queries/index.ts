// The analytics query layer: one function per question, shared by HTTP, MCP, web and chat.
export { type BaselineResponse, baseline, baselineAnswers } from "./baseline";
export { type PayerFeatures, payerBotScore, payerFeatures } from "./bot-score";
export type { BaseParams } from "./common";
export { type AnswerScope, answerSlot, type RowSource, seenOnChainProgramsSql } from "./common";
export { type CuHeadroomResponse, cuHeadroom, cuHeadroomAnswers } from "./cu-headroom";
export { type DiagnoseDropAnswer, diagnoseDrop } from "./diagnose-drop";
export { type EcosystemParams, type EcosystemProgram, type EcosystemResponse, ecosystem } from "./ecosystem";
export {
  FINGERPRINT_PATTERN,
  type IssueDetailDeps,
  type IssueDetailParams,
  type IssueDetailResponse,
  issueDetail,
} from "./issue-detail";
export {
  ISSUE_SORTS,
  ISSUE_STATE_FILTERS,
  type IssueListItem,
  type IssueListParams,
  type IssueListResponse,
  issueList,
} from "./issue-list";
export {
  ASSIGNEE_MAX_LENGTH,
  actorOfPrincipal,
  changeIssueState,
  deriveIssueState,
  HIDDEN_STATES,
  ISSUE_STATES,
  type IssueFacts,
  type IssueState,
  type IssueStateAnswer,
  IssueStateChangeBody,
  type IssueStateChangeInput,
  type IssueStateName,
  issueStateAnswer,
  issueStateNow,
  programIssueStates,
} from "./issue-state";
export { type ProviderReportResponse, providerReport, providerReportAnswers } from "./provider-report";
export {
  MAX_RECENT_MINUTES,
  type RecentActivity,
  type RecentActivityParams,
  type RecentIssue,
  recentActivity,
} from "./recent";
export {
  issueStatus,
  RELEASE_ALPHA,
  type ReleaseDiffParams,
  type ReleaseDiffResponse,
  releaseDiff,
  releaseDiffAnswers,
} from "./release-diff";
export * from "./schemas";
export {
  type Issue,
  type IssueSummary,
  issueSummary,
  SEGMENTS,
  type Segment,
  type TopIssuesParams,
  type TopIssuesResponse,
  topIssues,
  topIssuesAnswers,
} from "./top-issues";
export { type ChainFigures, type TransactionAnswer, type TransactionDeps, transaction } from "./transaction";
export {
  publicRequestCost,
  type WalletHistoryParams,
  type WalletHistoryResponse,
  walletHistory,
} from "./wallet-history";
export {
  attemptsBySig,
  type IssueRef,
  issueRef,
  RecentAnswers,
  requireSignature,
  type WhyAnswer,
  type WhyDeps,
  why,
} from "./why";
