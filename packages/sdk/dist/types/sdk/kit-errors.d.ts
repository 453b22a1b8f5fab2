/** kit's code for a JSON-RPC preflight failure (-32002). */
export declare const KIT_PREFLIGHT_FAILURE = -32002;
/** The TransactionError JSON behind a kit error's `cause`, or null. */
export declare function transactionErrorFromKit(cause: unknown): unknown;
